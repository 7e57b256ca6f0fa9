/** Small node:http helpers shared by the local stand-ins and the test servers (Node only, never the worker). */
import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** Writes `payload` as a JSON response; a no-op once the client has gone. */
export function send(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const json = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

/** The whole request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Closes the server now, dropping keep-alive connections instead of waiting for them. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
