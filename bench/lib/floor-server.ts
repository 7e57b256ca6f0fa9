/**
 * The floor a memory read is measured against: a minimal Node `http` + `pg` server doing what GET /memory
 * must do at least (verify the HS256 bearer token, read the subject's one memories row) and nothing else.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";

export interface FloorServer {
  url: string;
  close(): Promise<void>;
}

export async function startFloorServer(databaseUrl: string, secret: string): Promise<FloorServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
  const server = createServer(async (req, res) => {
    const sub = verifiedSubject(req.headers.authorization, secret);
    if (!sub) {
      res.writeHead(401).end();
      return;
    }
    try {
      const { rows } = await pool.query(
        "select markdown, current_version_id, generated_at from memories where subject_id = $1",
        [sub],
      );
      const row = rows[0];
      res.writeHead(row ? 200 : 404, {
        "content-type": "application/json",
        etag: `"${row?.current_version_id}"`,
      });
      res.end(JSON.stringify(row ? { memory: row.markdown, version: row.current_version_id } : {}));
    } catch {
      res.writeHead(503).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

function verifiedSubject(header: string | undefined, secret: string): string | null {
  const token = header?.match(/^Bearer (.+)$/)?.[1];
  const [head, body, signature] = token?.split(".") ?? [];
  if (!head || !body || !signature) return null;
  const expected = createHmac("sha256", secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const claims = JSON.parse(Buffer.from(body, "base64url").toString()) as { sub?: string; exp?: number };
  if (typeof claims.sub !== "string" || typeof claims.exp !== "number" || claims.exp * 1000 < Date.now())
    return null;
  return claims.sub;
}
