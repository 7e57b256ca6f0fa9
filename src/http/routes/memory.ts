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
import {
  memoryRuns,
  memoryVersion,
  memoryVersions,
  readSubjectMemory,
  refreshMemory,
} from "../../app/memory";
import { AppError } from "../../domain/errors";
import { PAGE_LIMIT } from "../../domain/pages";
import { emptyBody, matchesIfNoneMatch, parseFormat, parseWait, servedBody } from "../../memory/read-model";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

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

const pageOf = (c: Context<AppEnv>) => ({
  limit: parseLimit(c.req.query("limit")),
  cursor: c.req.query("cursor"),
});

export const memoryRoutes = new Hono<AppEnv>()

  .get("/", requireScope("memory:read"), async (c) => {
    const wait = parseWait(c.req.query("wait"));
    if (wait === null)
      throw new AppError("bad_request", "wait must be a whole number of seconds from 0 to 30");
    const format = parseFormat(c.req.query("format"));
    if (format === null) throw new AppError("bad_request", 'format must be "markdown" or "json"');
    const decision = await readSubjectMemory(c.get("services"), subjectOf(c), {
      waitSeconds: wait,
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

  .get("/runs", requireScope("memory:read"), async (c) =>
    c.json(await memoryRuns(c.get("services"), subjectOf(c), pageOf(c))),
  )

  .get("/versions", requireScope("memory:read"), async (c) =>
    c.json(await memoryVersions(c.get("services"), subjectOf(c), pageOf(c))),
  )

  .get("/versions/:id", requireScope("memory:read"), async (c) =>
    c.json(await memoryVersion(c.get("services"), subjectOf(c), c.req.param("id"))),
  )

  .post("/refresh", requireScope("memory:read"), async (c) =>
    c.json(await refreshMemory(c.get("services"), subjectOf(c)), 202),
  );

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === "") return PAGE_LIMIT.default;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > PAGE_LIMIT.max) {
    throw new AppError("bad_request", `limit must be a whole number from 1 to ${PAGE_LIMIT.max}`);
  }
  return n;
}
