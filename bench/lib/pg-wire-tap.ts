/**
 * A TCP relay in front of PostgreSQL that reads the client side of the wire protocol: it counts the
 * statements every connection executes and keeps the text and parameters of those a benchmark asks for.
 * Put between the Neon stand-in and Postgres, it sees exactly what the worker sends (one HTTP query is one
 * extended-protocol statement; a batch adds BEGIN and COMMIT), so a benchmark can count database round
 * trips and replay a captured statement under EXPLAIN. Benchmarks only.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface Statement {
  /** The SQL text, with $1.. placeholders. */
  query: string;
  /** Parameters as the client sent them (text format), null for NULL. */
  params: (string | null)[];
  /** performance.now() when the client sent it, and how long until the server was ready again. */
  at: number;
  durationMs?: number;
  /** Which client connection sent it (numbered from 1 as they open). */
  connection?: number;
}

export interface WireTap {
  /** postgres:// URL like `targetUrl`, but through the tap. */
  url: string;
  /** Statements executed so far (simple queries and extended-protocol executes). */
  count(): number;
  /** Keeps every statement executed from now on, until stopCapture(); returns them. */
  startCapture(): void;
  stopCapture(): Statement[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

export async function startWireTap(targetUrl: string): Promise<WireTap> {
  const target = new URL(targetUrl);
  let executed = 0;
  let captured: Statement[] | null = null;
  let connections = 0;
  const sockets = new Set<Socket>();

  const relay: Server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port: Number(target.port || 5432), host: target.hostname, noDelay: true });
    const connection = ++connections;
    sockets.add(client);
    sockets.add(upstream);
    // One ReadyForQuery per simple query or Sync, i.e. per statement: the oldest waiting one is done.
    const waiting: Statement[] = [];
    const server = new ServerStream(() => {
      const done = waiting.shift();
      if (done) done.durationMs = performance.now() - done.at;
    });
    const reader = new ClientStream(
      (statement) => {
        statement.connection = connection;
        executed++;
        waiting.push(statement);
        captured?.push(statement);
      },
      () => server.skipByte(),
    );
    client.on("data", (chunk: Buffer) => {
      reader.push(chunk);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      server.push(chunk);
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const address = relay.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);

  return {
    url: url.toString(),
    count: () => executed,
    startCapture: () => {
      captured = [];
    },
    stopCapture: () => {
      const out = captured ?? [];
      captured = null;
      return out;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}

/** Splits the frontend byte stream into messages and reports each executed statement. */
class ClientStream {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  /** Unnamed and named prepared statements' SQL, and the portal's statement and parameters. */
  private readonly prepared = new Map<string, string>();
  private readonly portals = new Map<string, { statement: string; params: (string | null)[] }>();

  constructor(
    private readonly onStatement: (statement: Statement) => void,
    /** The server answers an SSLRequest with one untyped byte. */
    private readonly onSslRequest: () => void,
  ) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (!this.started) {
        // Startup (or SSLRequest): length-prefixed, no type byte.
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        this.buffer = this.buffer.subarray(length);
        if (code === SSL_REQUEST) this.onSslRequest();
        else this.started = true;
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      const type = String.fromCharCode(this.buffer[0]!);
      const body = this.buffer.subarray(5, 1 + length);
      this.buffer = this.buffer.subarray(1 + length);
      this.message(type, body);
    }
  }

  private message(type: string, body: Buffer): void {
    if (type === "Q") {
      this.onStatement({ query: cstring(body, 0).value, params: [], at: performance.now() });
    } else if (type === "P") {
      const name = cstring(body, 0);
      const query = cstring(body, name.next);
      this.prepared.set(name.value, query.value);
    } else if (type === "B") {
      const portal = cstring(body, 0);
      const statement = cstring(body, portal.next);
      let offset = statement.next;
      const formats = body.readInt16BE(offset);
      offset += 2 + formats * 2;
      const count = body.readInt16BE(offset);
      offset += 2;
      const params: (string | null)[] = [];
      for (let i = 0; i < count; i++) {
        const length = body.readInt32BE(offset);
        offset += 4;
        if (length < 0) params.push(null);
        else {
          params.push(body.subarray(offset, offset + length).toString("utf8"));
          offset += length;
        }
      }
      this.portals.set(portal.value, { statement: statement.value, params });
    } else if (type === "E") {
      const portal = this.portals.get(cstring(body, 0).value);
      if (portal) {
        const query = this.prepared.get(portal.statement) ?? "";
        this.onStatement({ query, params: portal.params, at: performance.now() });
      }
    }
  }
}

/** Splits the backend byte stream into messages and reports each ReadyForQuery ('Z'). */
class ServerStream {
  private buffer: Buffer = Buffer.alloc(0);
  private skip = 0;

  constructor(private readonly onReady: () => void) {}

  skipByte(): void {
    this.skip++;
  }

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.skip > 0 && this.buffer.length > 0) {
      this.buffer = this.buffer.subarray(1);
      this.skip--;
    }
    while (this.buffer.length >= 5) {
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      if (this.buffer[0] === 0x5a) this.onReady();
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

function cstring(buffer: Buffer, start: number): { value: string; next: number } {
  const end = buffer.indexOf(0, start);
  return { value: buffer.subarray(start, end).toString("utf8"), next: end + 1 };
}
