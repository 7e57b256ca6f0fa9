/**
 * The local stand-in for Neon's endpoints, in front of any Postgres reachable over TCP
 * (the machine's PostgreSQL, or the embedded PGlite served on a socket):
 *   POST /sql  Neon's HTTP query protocol (single query or a batch run in one transaction)
 *   GET  /v1   Neon's WebSocket relay: frames carry raw Postgres wire bytes to and from TCP.
 * Local development and tests only; production talks to Neon's own endpoints.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import pg from "pg";
import { WebSocketServer } from "ws";
import { closeServer, readBody, send } from "./node-http";

type QueryRequest = { query: string; params?: unknown[] };
type Field = {
  name: string;
  dataTypeID: number;
  tableID: number;
  columnID: number;
  dataTypeSize: number;
  dataTypeModifier: number;
  format: string;
};

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

const ERROR_FIELDS = [
  "code",
  "severity",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

export interface NeonLocal {
  /** Base URL, e.g. http://127.0.0.1:4444; the worker gets it as NEON_LOCAL_ENDPOINT. */
  url: string;
  close(): Promise<void>;
}

export async function startNeonLocal(options: {
  databaseUrl: string;
  port?: number;
  host?: string;
  maxConnections?: number;
}): Promise<NeonLocal> {
  const target = new URL(options.databaseUrl);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.maxConnections ?? 10 });
  pool.on("error", (err) => console.error("[neon-local] idle client error:", err.message));

  const server = createServer((req, res) => {
    handleHttp(pool, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    });
  });

  const wss = new WebSocketServer({ server, path: "/v1" });
  wss.on("connection", (socket, req) => {
    // The driver asks for ?address=host:port; we always relay to our own database.
    const tcp = connect({ port: Number(target.port || 5432), host: target.hostname, noDelay: true });
    const pending: Buffer[] = [];
    let open = false;
    tcp.on("connect", () => {
      open = true;
      for (const chunk of pending) tcp.write(chunk);
      pending.length = 0;
    });
    const closeBoth = () => {
      tcp.destroy();
      socket.close();
    };
    socket.on("message", (data: Buffer) => {
      // Terminate ('X', length 4): the driver never hangs up itself, and pglite-socket does not either.
      const terminate = data.length === 5 && data[0] === 0x58 && data.readInt32BE(1) === 4;
      if (open) tcp.write(data);
      else pending.push(data);
      if (terminate) setTimeout(closeBoth, 10);
    });
    tcp.on("data", (chunk) => socket.send(chunk));
    tcp.on("error", closeBoth);
    tcp.on("close", () => socket.close());
    socket.on("close", () => tcp.destroy());
    socket.on("error", closeBoth);
    void req;
  });

  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closeServer(server);
      await pool.end();
    },
  };
}

async function handleHttp(pool: pg.Pool, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "POST" || !req.url?.startsWith("/sql")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ message: "not found" }));
    return;
  }
  const body = JSON.parse(await readBody(req)) as QueryRequest | { queries: QueryRequest[] };
  const client = await pool.connect();
  let broken = false;
  try {
    if ("queries" in body) {
      const isolation =
        ISOLATION[String(req.headers["neon-batch-isolation-level"] ?? "")] ?? "READ COMMITTED";
      const readOnly = req.headers["neon-batch-read-only"] === "true" ? " READ ONLY" : "";
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}${readOnly}`);
      try {
        const results = [];
        for (const q of body.queries) results.push(await runQuery(client, q));
        await client.query("COMMIT");
        send(res, 200, { results });
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw err;
      }
    } else {
      send(res, 200, await runQuery(client, body));
    }
  } catch (err) {
    if (err instanceof Error && "severity" in err) {
      const payload: Record<string, unknown> = { message: err.message };
      for (const key of ERROR_FIELDS) payload[key] = (err as unknown as Record<string, unknown>)[key];
      send(res, 400, payload);
    } else {
      broken = true;
      send(res, 500, { message: String(err) });
    }
  } finally {
    client.release(broken);
  }
}

const rawText = { getTypeParser: () => (value: string) => value };

async function runQuery(client: pg.PoolClient, q: QueryRequest) {
  const result = await client.query({
    text: q.query,
    values: q.params ?? [],
    rowMode: "array",
    types: rawText as unknown as pg.CustomTypesConfig,
  });
  const fields: Field[] = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: f.format,
  }));
  return {
    command: result.command,
    rowCount: result.rowCount ?? 0,
    rows: result.rows,
    fields,
    rowAsArray: true,
  };
}
