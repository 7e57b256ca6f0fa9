/**
 * A subject's memory: GET (from the edge cache on a hit, else one indexed query; never through the Durable
 * Object; ?asOf= reads the version current then), history and diffs, refresh, and dismissals. The same
 * handlers serve the caller's own memory at /memory and a team's at /teams/:team/memory: the middleware
 * in front of them sets whose memory it is (for a team, after checking membership). For GET /memory
 * itself, authentication reads the caller's memory entry from the cache together with their admission
 * (one cache round trip), and the handler decides from that entry instead of reading the cache again.
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  memoryRuns,
  memoryVersion,
  memoryVersions,
  readSubjectMemory,
  refreshMemory,
  teamSubject,
} from "../../app/memory";
import {
  dismissStatement,
  listDismissals,
  MAX_DISMISSAL_REASON_CHARS,
  memoryAsOf,
  versionDiff,
  withdrawDismissal,
} from "../../app/statements";
import type { MemoryOperations } from "../../contract/memory-operations";
import * as op from "../../contract/operations";
import { AppError } from "../../domain/errors";
import { emptyBody, matchesIfNoneMatch, servedBody } from "../../memory/read-model";
import type { AppEnv } from "../context";
import { type Route, route } from "../operation-routes";
import { validBody } from "../validation";

const subjectOf = (c: Context<AppEnv>) => c.get("subject");

/** The subject's cache entry when authentication already read it in this request; undefined otherwise. */
function entryReadAhead(c: Context<AppEnv>) {
  const entry = c.get("ownMemoryEntry");
  return entry?.subject === subjectOf(c) ? entry.memory : undefined;
}

/** The caller's own memory. */
const callerSubject: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("subject", c.get("caller").subjectKey);
  await next();
};

/**
 * A team's memory: members only. The caller's teams come from their cached admission when authenticate()
 * had it (no database round trip), else from the store.
 */
const teamMember: MiddlewareHandler<AppEnv> = async (c, next) => {
  const teams = c.get("membership")?.teams;
  c.set("subject", await teamSubject(c.get("services"), c.get("caller"), c.req.param("team") ?? "", teams));
  await next();
};

function memoryRoutes(
  ops: MemoryOperations,
  subject: MiddlewareHandler<AppEnv>,
  readsAhead: boolean,
): Route[] {
  const before = [subject];
  return [
    route(
      ops.getMemory,
      async (c, { query: { wait, format, asOf } }) => {
        if (asOf !== undefined) {
          if (wait > 0) throw new AppError("bad_request", "asOf reads a past version; it takes no wait");
          const past = await memoryAsOf(c.get("services"), subjectOf(c), asOf, format);
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
      },
      { before, ...(readsAhead ? { authenticate: { readsOwnMemory: () => true } } : {}) },
    ),

    route(
      ops.listRuns,
      async (c, { query }) => c.json(await memoryRuns(c.get("services"), subjectOf(c), query)),
      { before },
    ),

    route(
      ops.listVersions,
      async (c, { query }) => c.json(await memoryVersions(c.get("services"), subjectOf(c), query)),
      { before },
    ),

    route(
      ops.getVersion,
      async (c, { params }) => c.json(await memoryVersion(c.get("services"), subjectOf(c), params.id)),
      { before },
    ),

    route(
      ops.diffVersion,
      async (c, { params, query }) =>
        c.json(await versionDiff(c.get("services"), subjectOf(c), params.id, query.against)),
      { before },
    ),

    route(
      ops.dismissStatement,
      async (c, { params, body }) => {
        const { reason } = validBody(ops.dismissStatement.body.schema, body ?? {}, {
          key: "issues",
          message: `reason must be a string of at most ${MAX_DISMISSAL_REASON_CHARS} characters`,
        });
        const result = await dismissStatement(c.get("services"), subjectOf(c), params.id, reason ?? null);
        if (result.etag) c.header("ETag", result.etag);
        return c.json(result, 201);
      },
      { before },
    ),

    route(ops.listDismissals, async (c) => c.json(await listDismissals(c.get("services"), subjectOf(c))), {
      before,
    }),

    route(
      ops.withdrawDismissal,
      async (c, { params }) => {
        await withdrawDismissal(c.get("services"), subjectOf(c), params.id);
        return c.body(null, 204);
      },
      { before },
    ),

    route(ops.refreshMemory, async (c) => c.json(await refreshMemory(c.get("services"), subjectOf(c)), 202), {
      before,
    }),
  ];
}

export const ownMemoryRoutes = memoryRoutes(op.ownMemory, callerSubject, true);
export const teamMemoryRoutes = memoryRoutes(op.teamMemory, teamMember, false);
