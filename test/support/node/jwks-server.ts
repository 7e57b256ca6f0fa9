/**
 * A tiny identity provider's JWKS endpoint for the auth tests: `PUT /jwks/<name>` stores a key set
 * (the tests generate their own key pairs inside workerd), `GET /jwks/<name>` serves it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer, readBody } from "../../../scripts/lib/node-http";

export async function startJwksServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sets = new Map<string, string>();
  const server = createServer((req, res) => {
    const name = /^\/jwks\/([\w-]+)$/.exec(req.url ?? "")?.[1];
    if (!name) {
      res.writeHead(404).end();
    } else if (req.method === "PUT") {
      readBody(req).then(
        (body) => {
          sets.set(name, body);
          res.writeHead(204).end();
        },
        () => res.destroy(),
      );
    } else {
      const body = sets.get(name);
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => closeServer(server),
  };
}
