/**
 * A TCP proxy that puts a database "far away": every chunk is forwarded `oneWayMs` after it arrived, in
 * each direction (so a round trip gains 2 × oneWayMs), order preserved.
 */
import { type AddressInfo, connect, createServer, type Socket } from "node:net";

export interface DelayProxy {
  /** host:port to connect to instead of the target. */
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startDelayProxy(
  target: { host: string; port: number },
  oneWayMs: number,
): Promise<DelayProxy> {
  const open = new Set<Socket>();
  const later = (to: Socket) => (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, oneWayMs);
  };
  const server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port: target.port, host: target.host, noDelay: true });
    open.add(client);
    open.add(upstream);
    client.on("data", later(upstream));
    upstream.on("data", later(client));
    const end = () => {
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      }, oneWayMs);
    };
    for (const socket of [client, upstream]) {
      socket.on("close", end);
      socket.on("error", end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: "127.0.0.1",
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
