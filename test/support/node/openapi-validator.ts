/**
 * Validates OpenAPI documents against the official OpenAPI 3.x schemas with @seriousme/openapi-schema-validator.
 * It reads its schema files with node:fs, so it runs here in Node; the tests inside workerd POST the worker's
 * /openapi.json to `POST /validate` and get `{ valid, errors? }` back.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Validator } from "@seriousme/openapi-schema-validator";
import { closeServer, readBody, send } from "../../../scripts/lib/node-http";

export async function startOpenApiValidator(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/validate") {
      send(res, 404, { error: "POST /validate" });
      return;
    }
    readBody(req)
      .then(async (body) => {
        const validator = new Validator({ strict: false });
        const result = await validator.validate(JSON.parse(body) as Record<string, unknown>);
        send(res, 200, { valid: result.valid, version: validator.version, errors: result.errors ?? null });
      })
      .catch((err: unknown) => send(res, 400, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
