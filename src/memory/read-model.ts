/**
 * The decisions behind GET /memory, from the one row the read path fetches. No I/O here. Whether generation
 * can happen at all is the MemoryAgent's call: it records "unavailable" or "failed" in the row.
 */
import type { ErrorCode } from "../domain/errors";
import type { MemoryFormat, RunErrorCode, Statement, StatementPerson } from "../domain/memory";
import { identityOf } from "../domain/statements";
import type { Citation, CurrentMemory, LastFailure } from "./memory-reader";

/** Retry-After for "generating": a first memory usually takes tens of seconds; poll gently. */
export const GENERATING_RETRY_AFTER_SECONDS = 5;

export interface GenerationProblem {
  code: Extract<ErrorCode, "llm_not_configured" | "generation_unavailable" | "generation_failing">;
  message: string;
}

export interface ReadContext {
  now: Date;
  ttlMs: number;
}

export type ReadDecision =
  | {
      kind: "ready";
      etag: string;
      stale: boolean;
      poke: boolean;
      memory: NonNullable<CurrentMemory["version"]>;
    }
  | { kind: "generating"; retryAfterSeconds: number; poke: boolean }
  /** The subject can see no item: nothing to remember, and no run is asked for. */
  | { kind: "empty"; poke: false }
  /**
   * `poke` lets the agent notice that a missing LLM configuration has since been fixed. `retryAfterSeconds`:
   * when the agent tries again by itself (it backs off after a rejected or failed run).
   */
  | {
      kind: "unavailable";
      problem: GenerationProblem;
      details?: Record<string, unknown>;
      retryAfterSeconds?: number;
      poke: boolean;
    };

export function decideRead(row: CurrentMemory | null, context: ReadContext): ReadDecision {
  const version = row?.version ?? null;
  if (version) {
    const freshAsOf = Math.max(version.generatedAt.getTime(), row?.checkedAt?.getTime() ?? 0);
    const stale = context.now.getTime() - freshAsOf > context.ttlMs;
    return { kind: "ready", etag: etagOf(version), stale, poke: stale, memory: version };
  }
  if (row?.status === "unavailable") {
    return {
      kind: "unavailable",
      problem:
        row.errorCode === "llm_not_configured"
          ? { code: "llm_not_configured", message: "No LLM is configured, so no memory can be generated." }
          : { code: "generation_unavailable", message: "Memory generation is not available." },
      details: { lastErrorCode: row.errorCode },
      poke: true,
    };
  }
  if (row?.status === "retrying" && row.lastFailure?.nextAttemptAt) {
    const next = row.lastFailure.nextAttemptAt;
    const waitMs = next.getTime() - context.now.getTime();
    // Past its time the next attempt is due or under way: that is "generating" again.
    if (waitMs > 0) {
      const retryAfterSeconds = Math.ceil(waitMs / 1000);
      return {
        kind: "unavailable",
        problem: {
          code: "generation_failing",
          message: `${attemptSentence(row.errorCode, row.lastFailure)} The next attempt is at ${next.toISOString()}; adding material or dismissing a statement may help.`,
        },
        details: failureDetails(row.errorCode, row.lastFailure),
        retryAfterSeconds,
        poke: false,
      };
    }
  }
  if (row?.status === "failed") {
    return {
      kind: "unavailable",
      problem: {
        code: "generation_failing",
        message: `${row.lastFailure ? `${attemptSentence(row.errorCode, row.lastFailure)} ` : ""}No attempt is left; new material, the daily sweep or POST /memory/refresh will try again.`,
      },
      details: failureDetails(row.errorCode, row.lastFailure ?? null),
      poke: false,
    };
  }
  return { kind: "generating", retryAfterSeconds: GENERATING_RETRY_AFTER_SECONDS, poke: true };
}

/** "Attempt 2 was rejected: checks failed: the memory has no statement." */
function attemptSentence(code: RunErrorCode | null, failure: LastFailure): string {
  const what = code === "judge_rejected" ? "was rejected" : "failed";
  const attempt = failure.attempt === null ? "The last attempt" : `Attempt ${failure.attempt}`;
  return `${attempt} to generate this memory ${what}: ${failure.message.replace(/\.?\s*$/, ".")}`;
}

function failureDetails(code: RunErrorCode | null, failure: LastFailure | null): Record<string, unknown> {
  return {
    lastErrorCode: code,
    reason: failure?.message ?? null,
    attempt: failure?.attempt ?? null,
    nextAttemptAt: failure?.nextAttemptAt?.toISOString() ?? null,
  };
}

/** Strong ETag of what is served: the version id, suffixed once the version has been redacted. */
export function etagOf(version: { id: string; redactedAt: Date | null }): string {
  return version.redactedAt ? `"${version.id}.r${version.redactedAt.getTime()}"` : `"${version.id}"`;
}

/** RFC 9110 If-None-Match: a list of (possibly weak) tags, or "*". Weak comparison, as for GET. */
export function matchesIfNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}

/** One statement as ?format=json serves it. */
export interface ServedStatement {
  id: string;
  section: string;
  text: string;
  citations: Citation[];
  /** The date of its newest cited item (null when none of them is visible). */
  since: string | null;
  /** When a version first held it. */
  firstStated: string;
  /** The people its cited items name, resolved when the version was generated (empty before that existed). */
  people: StatementPerson[];
}

/** A version's statements as served, with their identity and citations' metadata. */
export function servedStatements(version: {
  id: string;
  statements: Statement[];
  citations: Citation[];
  createdAt: Date;
}): ServedStatement[] {
  const byId = new Map<string, Citation>(version.citations.map((c) => [c.id, c]));
  return version.statements.map((s, index) => {
    const citations = s.itemIds.map(
      (id) => byId.get(id) ?? { id, kind: null, title: null, occurredAt: null },
    );
    const dates = citations.flatMap((c) => (c.occurredAt ? [c.occurredAt] : [])).sort();
    return {
      ...identityOf(s, index, version),
      section: s.section,
      text: s.text,
      citations,
      since: dates.at(-1) ?? null,
      people: s.people ?? [],
    };
  });
}

/** The 200 body, in the requested format. */
export function servedBody(
  version: NonNullable<CurrentMemory["version"]>,
  stale: boolean,
  format: MemoryFormat,
): Record<string, unknown> {
  const head = { version: version.id, generatedAt: version.generatedAt.toISOString(), stale };
  if (format === "markdown") {
    return { memory: version.markdown, ...head, citations: version.citations };
  }
  const statements = servedStatements({ ...version, createdAt: version.generatedAt });
  return { ...head, statements, citations: version.citations };
}

/**
 * The 200 body for a subject who can see no item at all: there is nothing to remember, so no run is asked
 * for (it would spend tokens on a draft the checks must reject). Ingesting anything changes that.
 */
export function emptyBody(format: MemoryFormat): Record<string, unknown> {
  const head = { version: null, generatedAt: null, stale: false, empty: true };
  return format === "markdown"
    ? { memory: "", ...head, citations: [] }
    : { ...head, statements: [], citations: [] };
}

/** Delays between polls of ?wait: quick at first (a short run), then once a second. */
export function waitPollDelays(totalMs: number): number[] {
  const delays: number[] = [];
  let elapsed = 0;
  let step = 100;
  while (elapsed < totalMs) {
    const delay = Math.min(step, totalMs - elapsed);
    delays.push(delay);
    elapsed += delay;
    step = Math.min(step * 2, 1000);
  }
  return delays;
}
