/**
 * A request of one operation, from the operation table generated from the API's contract
 * (generated/operations.ts): its method, and its path with the path parameters filled in. The client's
 * methods are thin wrappers over this; the paths are written nowhere else.
 */
import { OPERATIONS, type OperationId } from "./generated/operations.js";
import type { RequestOptions } from "./transport.js";

export type OperationRequest = Omit<RequestOptions, "method" | "path"> & {
  /** The path parameters, by name (`{ id }` for `/items/{id}`). */
  params?: Record<string, string>;
};

export function request(id: OperationId, options: OperationRequest = {}): RequestOptions {
  const { params = {}, ...rest } = options;
  const spec = OPERATIONS[id];
  const path = spec.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${id} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  return { method: spec.method, path, ...rest };
}
