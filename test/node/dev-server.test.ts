/**
 * `npm run dev` as a user runs it, on the embedded database in a folder of its own: a second instance on
 * the same folder refuses to start and names the first; a `kill -9` keeps every committed item; and an
 * oversized chunked upload is refused without stalling the server for the next request.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/dev-secret";
import { signDevToken } from "../../scripts/lib/token";

const SECRET = "node-test-secret-that-is-long-enough-0123456789";
const dataDir = mkdtempSync(`${tmpdir()}/um-dev-`);
const started: Dev[] = [];

interface Dev {
  process: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startDev(): Promise<Dev> {
  const port = await freePort();
  const { DATABASE_URL: _ignored, ...env } = process.env;
  // node itself (not the tsx wrapper), so its pid is the one that holds the lock and gets killed.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const dev = { process: child, port, output: () => output, exited };
  started.push(dev);
  return dev;
}

async function ready(dev: Dev): Promise<void> {
  const deadline = Date.now() + 150_000;
  while (!dev.output().includes("unified-memory is running")) {
    if (dev.process.exitCode !== null) throw new Error(`npm run dev exited:\n${dev.output()}`);
    if (Date.now() > deadline) throw new Error(`npm run dev did not start:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const token = signDevToken(SECRET, "ada");
const api = (dev: Dev, path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${dev.port}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    signal: AbortSignal.timeout(30_000),
  });

/** Sends 8 MB as a chunked body (no Content-Length), as a streaming client would. */
function chunkedUpload(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/items",
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < 8 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    req.write('{"items":[{"body":"');
    pump();
  });
}

/** wrangler runs in its own process group; after a kill -9 of `npm run dev` it is left behind. */
function killOrphanedWrangler(port: number): void {
  let pids: number[] = [];
  try {
    pids = execFileSync("pgrep", ["-f", `wrangler.*--port ${port}`], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return; // nothing left
  }
  // wrangler leads its own process group (scripts/lib/stack.ts spawns it detached): the group holds workerd too.
  for (const pid of pids) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone, or not a group leader
    }
  }
}

afterAll(async () => {
  for (const dev of started) if (dev.process.exitCode === null) dev.process.kill("SIGINT");
  await Promise.race([
    Promise.all(started.map((dev) => dev.exited)),
    new Promise((r) => setTimeout(r, 10_000)),
  ]);
  for (const dev of started) killOrphanedWrangler(dev.port);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run dev on the embedded database", () => {
  it("refuses a second instance on the same data, survives kill -9 with every committed item, and never stalls on a refused upload", async () => {
    const first = await startDev();
    await ready(first);
    const item = {
      source: "notes",
      externalId: "kept",
      kind: "note",
      body: "Committed before the crash",
      occurredAt: "2026-11-30T10:00:00Z",
    };
    expect(
      (await api(first, "/items", { method: "POST", body: JSON.stringify({ items: [item] }) })).status,
    ).toBe(200);

    // An oversized chunked upload is refused, and the next request is served at once.
    expect(await chunkedUpload(first.port)).toBe(413);
    const startedAt = Date.now();
    expect((await api(first, "/health")).status).toBe(200);
    expect(Date.now() - startedAt).toBeLessThan(5_000);

    const second = await startDev();
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`in use by another process (pid ${first.process.pid},`);

    first.process.kill("SIGKILL");
    await first.exited;
    killOrphanedWrangler(first.port);

    const third = await startDev();
    await ready(third);
    const listed = (await (await api(third, "/items")).json()) as { items: { externalId: string }[] };
    expect(listed.items.map((i) => i.externalId)).toEqual(["kept"]);
  }, 400_000);
});
