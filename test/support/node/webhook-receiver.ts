/**
 * Webhook receivers for the tests: `POST /hooks/<name>` records the delivery (its webhook-* headers and
 * body, exactly as received) and answers as the test asked with `PUT /__control/<name>`
 * ({status, body, delayMs, location}; 204 by default); `GET /__control/<name>` lists what arrived.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer, readBody, send } from "../../../scripts/lib/node-http";

export interface ReceiverBehaviour {
  status?: number;
  body?: string;
  delayMs?: number;
  location?: string;
}

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  receivedAt: string;
}

export async function startWebhookReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const behaviours = new Map<string, ReceiverBehaviour>();
  const received = new Map<string, ReceivedDelivery[]>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const match = /^\/(hooks|__control)\/([\w-]+)$/.exec(req.url ?? "");
    const [, area, name] = match ?? [];
    if (!area || !name) {
      res.writeHead(404).end();
      return;
    }
    readBody(req).then(
      (body) => {
        if (area === "__control" && req.method === "PUT") {
          behaviours.set(name, JSON.parse(body) as ReceiverBehaviour);
          res.writeHead(204).end();
        } else if (area === "__control") {
          send(res, 200, received.get(name) ?? []);
        } else {
          const headers = Object.fromEntries(
            Object.entries(req.headers).filter(([k]) => k.startsWith("webhook-") || k === "content-type"),
          ) as Record<string, string>;
          received.set(name, [
            ...(received.get(name) ?? []),
            { headers, body, receivedAt: new Date().toISOString() },
          ]);
          const { status = 204, body: answer = "", delayMs = 0, location } = behaviours.get(name) ?? {};
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (res.destroyed) return;
            res.writeHead(status, location ? { location } : {}).end(status === 204 ? undefined : answer);
          }, delayMs);
          timers.add(timer);
        }
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await closeServer(server);
    },
  };
}
