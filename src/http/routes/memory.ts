/**
 * A subject's memory: GET / (from the edge cache on a hit, else one indexed query; never through the
 * Durable Object; ?asOf= reads the version current then), history and diffs, refresh, and dismissals.
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
import {
  dismissStatement,
  listDismissals,
  MAX_DISMISSAL_REASON_CHARS,
  memoryAsOf,
  parseInstant,
  versionDiff,
  withdrawDismissal,
} from "../../app/statements";
import { AppError } from "../../domain/errors";
import { PAGE_LIMIT } from "../../domain/pages";
import { emptyBody, matchesIfNoneMatch, parseFormat, parseWait, servedBody } from "../../memory/read-model";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";
import { readJsonBody } from "../read-body";
import { dismissBodySchema } from "../statement-schemas";

const MAX_DISMISS_BODY_BYTES = 16 * 1024;

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
    const asOf = c.req.query("asOf");
    if (asOf !== undefined) {
      if (wait > 0) throw new AppError("bad_request", "asOf reads a past version; it takes no wait");
      const past = await memoryAsOf(c.get("services"), subjectOf(c), parseInstant(asOf, "asOf"), format);
      c.header("ETag", past.etag);
      c.header("Cache-Control", "private, no-cache");
      if (matchesIfNoneMatch(c.req.header("if-none-match"), past.etag)) return c.body(null, 304);
      return c.json(past.body);
    }
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
        throw new AppError(decision.problem.code, decision.problem.message, {
          details: decision.details,
          retryAfterSeconds: decision.retryAfterSeconds,
        });
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

  .get("/versions/:id/diff", requireScope("memory:read"), async (c) =>
    c.json(await versionDiff(c.get("services"), subjectOf(c), c.req.param("id"), c.req.query("against"))),
  )

  .post("/statements/:id/dismiss", requireScope("items:write"), async (c) => {
    const empty = !c.req.raw.body || c.req.header("content-length") === "0";
    const raw = empty ? {} : await readJsonBody(c.req.raw, MAX_DISMISS_BODY_BYTES);
    const parsed = dismissBodySchema.safeParse(raw ?? {});
    if (!parsed.success) {
      throw new AppError(
        "validation_failed",
        `reason must be a string of at most ${MAX_DISMISSAL_REASON_CHARS} characters`,
        {
          details: {
            issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
          },
        },
      );
    }
    const result = await dismissStatement(
      c.get("services"),
      subjectOf(c),
      c.req.param("id"),
      parsed.data.reason ?? null,
    );
    if (result.etag) c.header("ETag", result.etag);
    return c.json(result, 201);
  })

  .get("/dismissals", requireScope("memory:read"), async (c) =>
    c.json(await listDismissals(c.get("services"), subjectOf(c))),
  )

  .delete("/dismissals/:id", requireScope("items:write"), async (c) => {
    await withdrawDismissal(c.get("services"), subjectOf(c), c.req.param("id"));
    return c.body(null, 204);
  })

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
