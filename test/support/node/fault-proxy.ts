/**
 * A TCP proxy the fault tests control, placed between the worker and the database's endpoint.
 *   up    forwards bytes both ways
 *   down  refuses new connections and drops open ones (the database is unreachable)
 *   hung  accepts connections but forwards nothing (reachable, silent: the database hangs)
 * Controlled over HTTP: `PUT <control>/mode/<up|down|hung>`.
 */
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { closeServer, send } from "../../../scripts/lib/node-http";

export type ProxyMode = "up" | "down" | "hung";

export interface FaultProxy {
  /** Where clients connect instead of the target (http://127.0.0.1:<port>). */
  url: string;
  /** Base URL of the control endpoint. */
  controlUrl: string;
  close(): Promise<void>;
}

export async function startFaultProxy(target: URL): Promise<FaultProxy> {
  let mode: ProxyMode = "up";
  const open = new Set<Socket>();

  const proxy = createServer({ noDelay: true }, (client) => {
    if (mode === "down") {
      client.destroy();
      return;
    }
    open.add(client);
    const upstream = connect({ port: Number(target.port), host: target.hostname, noDelay: true });
    open.add(upstream);
    const forget = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    // Bytes only flow while the proxy is up; a hung proxy swallows them (nothing answers).
    client.on("data", (chunk) => {
      if (mode === "up") upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (mode === "up") client.write(chunk);
    });
    client.on("close", forget);
    upstream.on("close", forget);
    client.on("error", forget);
    upstream.on("error", forget);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));

  const control = createHttpServer((req, res) => {
    const next = req.url?.match(/^\/mode\/(up|down|hung)$/)?.[1] as ProxyMode | undefined;
    if (req.method !== "PUT" || !next) return send(res, 404, { error: "PUT /mode/<up|down|hung>" });
    mode = next;
    // Going down or hung drops what is open, so pooled keep-alive connections cannot slip through.
    if (mode !== "up") for (const socket of open) socket.destroy();
    open.clear();
    send(res, 200, { mode });
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));

  const port = (proxy.address() as AddressInfo).port;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    controlUrl: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of open) socket.destroy();
      await closeServer(control);
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
