/**
 * A subject's memory: GET / (from the edge cache on a hit, else one indexed query; never through the
 * Durable Object), history, refresh.
 * Mounted twice: at /memory for the caller's own memory, and at /teams/:team/memory for a team's (the
 * teams routes resolve the subject after checking membership). Handlers read the subject key from the
 * context, set by the middleware in front of them. For GET /memory itself, authentication reads the
 * caller's memory entry from the cache together with their admission (one cache round trip), and GET /
 * decides from that entry instead of reading the cache again.
 */
import { type Context, Hono } from "hono";
import { AppError, notFound } from "../../domain/errors";
import { isUuid } from "../../domain/memory";
import { readMemory } from "../../memory/memory-read";
import { emptyBody, matchesIfNoneMatch, parseFormat, parseWait, servedBody } from "../../memory/read-model";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** GET /memory itself (not its history or refresh): the one request whose memory entry is read ahead. */
const readsOwnMemory = (c: Context<AppEnv>) => c.req.method === "GET" && c.req.path === "/memory";

/** The subject whose memory the request reads: the caller's own. */
export const ownMemory = new Hono<AppEnv>().use(authenticate({ readsOwnMemory })).use(async (c, next) => {
  c.set("subject", c.get("caller").subjectKey);
  await next();
});

const subjectOf = (c: Context<AppEnv>) => c.get("subject");

/** The subject's cache entry when authentication already read it in this request; undefined otherwise. */
function entryReadAhead(c: Context<AppEnv>) {
  const entry = c.get("ownMemoryEntry");
  return entry?.subject === subjectOf(c) ? entry.memory : undefined;
}

export const memoryRoutes = new Hono<AppEnv>()

  .get("/", requireScope("memory:read"), async (c) => {
    const wait = parseWait(c.req.query("wait"));
    if (wait === null)
      throw new AppError("bad_request", "wait must be a whole number of seconds from 0 to 30");
    const format = parseFormat(c.req.query("format"));
    if (format === null) throw new AppError("bad_request", 'format must be "markdown" or "json"');
    const decision = await readMemory(c.get("services"), subjectOf(c), {
      waitMs: wait * 1000,
      cached: entryReadAhead(c),
    });
    switch (decision.kind) {
      case "ready": {
        c.header("ETag", decision.etag);
        c.header("Cache-Control", "private, no-cache");
        if (matchesIfNoneMatch(c.req.header("if-none-match"), decision.etag)) return c.body(null, 304);
        return c.json(servedBody(decision.memory, decision.stale, format));
      }
      case "generating":
        c.header("Retry-After", String(decision.retryAfterSeconds));
        c.header("Cache-Control", "no-store");
        return c.json({ status: "generating", retryAfter: decision.retryAfterSeconds }, 202);
      case "empty":
        c.header("Cache-Control", "private, no-cache");
        return c.json(emptyBody(format));
      case "unavailable":
        throw new AppError(decision.problem.code, decision.problem.message, { details: decision.details });
    }
  })

  .get("/runs", requireScope("memory:read"), async (c) => {
    const page = await c.get("services").memoryReader.runs(subjectOf(c), {
      limit: parseLimit(c.req.query("limit")),
      cursor: c.req.query("cursor"),
    });
    return c.json({ runs: page.entries, nextCursor: page.nextCursor });
  })

  .get("/versions", requireScope("memory:read"), async (c) => {
    const page = await c.get("services").memoryReader.versions(subjectOf(c), {
      limit: parseLimit(c.req.query("limit")),
      cursor: c.req.query("cursor"),
    });
    return c.json({ versions: page.entries, nextCursor: page.nextCursor });
  })

  .get("/versions/:id", requireScope("memory:read"), async (c) => {
    const id = c.req.param("id");
    const version = isUuid(id) ? await c.get("services").memoryReader.version(subjectOf(c), id) : null;
    if (!version) throw notFound("Memory version");
    return c.json(version);
  })

  .post("/refresh", requireScope("memory:read"), async (c) => {
    const answer = await c.get("services").memoryAgents.forceRefresh(subjectOf(c));
    switch (answer.status) {
      case "refused": {
        const seconds = Math.max(1, Math.ceil(answer.retryAfterMs / 1000));
        throw new AppError("rate_limited", `A refresh is not allowed yet; retry in ${seconds} s.`, {
          retryAfterSeconds: seconds,
        });
      }
      case "running":
        return c.json({ status: "running", runId: answer.runId }, 202);
      case "scheduled":
        return c.json({ status: "scheduled", runAt: new Date(answer.runAt).toISOString() }, 202);
      case "unavailable":
        throw new AppError(answer.code, answer.message);
      default:
        return c.json({ status: answer.status }, 202);
    }
  });

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_LIMIT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new AppError("bad_request", `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return n;
}
