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
import { freePort, untilOutput } from "../support/node/dev-command";

const SECRET = "node-test-secret-that-is-long-enough-0123456789";
const dataDir = mkdtempSync(`${tmpdir()}/um-dev-`);
const demoDir = mkdtempSync(`${tmpdir()}/um-dev-demo-`);
const started: Dev[] = [];

interface Dev {
  process: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startDev(args: string[] = [], options: { dir?: string; port?: number } = {}): Promise<Dev> {
  const port = options.port ?? (await freePort());
  const { DATABASE_URL: _ignored, ...env } = process.env;
  // node itself (not the tsx wrapper), so its pid is the one that holds the lock and gets killed.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts", ...args], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), DATA_DIR: options.dir ?? dataDir, AUTH_JWT_SECRET: SECRET },
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

function ready(dev: Dev, line = "unified-memory is running"): Promise<void> {
  return untilOutput(dev.process, dev.output, line, 150_000);
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
  rmSync(demoDir, { recursive: true, force: true });
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

/** Every item ada can see: its id and "source/externalId". */
async function itemKeys(dev: Dev): Promise<{ id: string; key: string }[]> {
  const keys: { id: string; key: string }[] = [];
  let cursor: string | null = null;
  do {
    const res = await api(dev, `/items?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const page = (await res.json()) as {
      items: { id: string; source: string; externalId: string }[];
      nextCursor: string | null;
    };
    keys.push(...page.items.map((i) => ({ id: i.id, key: `${i.source}/${i.externalId}` })));
    cursor = page.nextCursor;
  } while (cursor);
  return keys;
}

describe("npm run dev for a quick first hour", () => {
  it("stops at once when another process holds its port, and says which port", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as { port: number };
    try {
      const dev = await startDev([], { dir: demoDir, port });
      expect(await dev.exited).toBe(1);
      expect(dev.output()).toContain(`port ${port} on 127.0.0.1 is already in use by another process`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("with --fake-llm refreshes right after a first memory; --demo loads once, and a restart keeps a deleted item deleted", async () => {
    const first = await startDev(["--fake-llm", "--demo"], { dir: demoDir });
    await ready(first, "[dev] Try:");
    expect(first.output()).toContain("demo workspace loaded");
    const before = await itemKeys(first);
    const deleted = before[0]!;
    expect((await api(first, `/items/${deleted.id}`, { method: "DELETE" })).ok).toBe(true);

    const memory = await api(first, "/memory?wait=30");
    expect(memory.status).toBe(200);
    // No minimum interval with the fake LLM: a refresh right away is scheduled, not refused.
    const refresh = await api(first, "/memory/refresh", { method: "POST" });
    expect(refresh.status).toBe(202);

    first.process.kill("SIGINT");
    expect(await first.exited).toBe(0);

    const second = await startDev(["--fake-llm", "--demo"], { dir: demoDir });
    await ready(second, "[dev] Try:");
    expect(second.output()).toContain("demo already loaded");
    expect(second.output()).not.toContain("demo workspace loaded");
    // Not brought back, under its old id or a new one.
    const after = await itemKeys(second);
    expect(after.map((i) => i.key)).not.toContain(deleted.key);
    expect(after).toHaveLength(before.length - 1);
    second.process.kill("SIGINT");
    expect(await second.exited).toBe(0);
  }, 400_000);
});
