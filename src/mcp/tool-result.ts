/**
 * Tool results as data: a success carries `structuredContent` (and the same facts as text for clients that
 * only show text); a failure is an `isError` result with the HTTP error model's code, never an exception
 * that would reach the transport.
 */
import { type CallToolResult, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { AppError, ErrorCode } from "../domain/errors";
import type { McpContext } from "./deps";

export interface ToolErrorBody {
  error: { code: ErrorCode; message: string; retryAfter?: number };
}

export function toolSuccess(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

export function toolError(error: AppError): CallToolResult {
  const body: ToolErrorBody = { error: { code: error.code, message: error.message } };
  if (error.retryAfterSeconds !== undefined) body.error.retryAfter = error.retryAfterSeconds;
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    structuredContent: { ...body },
  };
}

/** Runs a tool body; a domain error becomes its tool error, anything else an `internal` one (logged). */
export async function guarded(
  context: McpContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    return toolError(asAppError(context, err));
  }
}

/** The error model for failures outside a tool (resources, prompts): the same codes, thrown as AppError. */
export function asAppError({ services, requestId }: McpContext, err: unknown): AppError {
  return services.errors.toAppError(err, requestId);
}

/** A resource read's failure: a missing one as the SDK's ResourceNotFoundError, anything else as asAppError. */
export function resourceError(context: McpContext, uri: URL, err: unknown): Error {
  const error = asAppError(context, err);
  return error.code === "not_found" ? new ResourceNotFoundError(uri.href, error.message) : error;
}

/** JSON-safe copy (Dates become ISO strings), as the HTTP API would serialise it. */
export const jsonSafe = <T>(value: T): Record<string, unknown> =>
  JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
