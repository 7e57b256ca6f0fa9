/** Opaque keyset cursors for search pages: base64url of the last row's sort key. */
import { type SQL, sql } from "drizzle-orm";
import { AppError } from "../domain/errors";
import { isStorableInstant } from "../domain/instants";
import { isUuid } from "../domain/memory";
import { fromBase64Url, toBase64Url } from "./base64url";
import type { KeywordStats } from "./keyword-ranking";

export interface SearchCursor {
  /** The last row's BM25 score when the search has a query; absent when ordered by time only. */
  rank?: number;
  occurredAt: Date;
  id: string;
  /** Ranked searches: the statistics the first page ranked with; later pages rank with the same. */
  stats?: KeywordStats;
}

/**
 * A ranked page's `where`: the rows whose (score, occurred_at, id), given as `row`, sort after the last
 * page's `position` (best first, ties newest first); nothing on a first page.
 */
export function rankedAfter(
  row: SQL,
  position: { score: number; occurredAt: Date; id: string } | undefined,
): SQL {
  if (!position) return sql``;
  const { score, occurredAt, id } = position;
  return sql`where ${row} < (${score}::float8, ${occurredAt.toISOString()}::timestamptz, ${id}::uuid)`;
}

export function encodeCursor(cursor: SearchCursor): string {
  const json = JSON.stringify({
    r: cursor.rank,
    t: cursor.occurredAt.toISOString(),
    i: cursor.id,
    k: cursor.stats && packStats(cursor.stats),
  });
  return toBase64Url(json);
}

/** Decodes a cursor made by encodeCursor for the same kind of search (ranked or not); 400 otherwise. */
export function decodeCursor(
  text: string,
  ranked: true,
): SearchCursor & { rank: number; stats: KeywordStats };
export function decodeCursor(text: string, ranked: false): SearchCursor;
export function decodeCursor(text: string, ranked: boolean): SearchCursor {
  const invalid = () => new AppError("bad_request", "cursor is not valid for this search");
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(text));
  } catch {
    throw invalid();
  }
  const { r, t, i, k, ...rest } = (parsed ?? {}) as Record<string, unknown>;
  const occurredAt = instant(t);
  if (!isStorableInstant(occurredAt) || typeof i !== "string" || !isUuid(i)) throw invalid();
  if (Object.keys(rest).length > 0 || ranked !== isRank(r)) throw invalid();
  if (!ranked) {
    if (k !== undefined) throw invalid();
    return { occurredAt, id: i };
  }
  const stats = unpackStats(k);
  if (!stats) throw invalid();
  return { rank: r as number, occurredAt, id: i, stats };
}

/** Statistics as [N, avgdl, df...]: a cursor is opaque, but stays short. */
function packStats(stats: KeywordStats): number[] {
  return [stats.documents, stats.averageLength, ...stats.frequencies];
}

/** Statistics a cursor carries, or null when they are not ones a search could have counted. */
export function unpackStats(value: unknown): KeywordStats | null {
  if (!Array.isArray(value) || value.length < 2) return null;
  const [documents, averageLength, ...frequencies] = value as unknown[];
  const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  if (
    !count(documents) ||
    typeof averageLength !== "number" ||
    !(averageLength >= 1 && averageLength < 1e9)
  ) {
    return null;
  }
  if (!frequencies.every((df) => df === -1 || (count(df) && df <= documents))) return null;
  return { documents, averageLength, frequencies: frequencies as number[] };
}

const instant = (value: unknown): Date =>
  typeof value === "string" ? new Date(value) : new Date(Number.NaN);

/** A BM25 score: finite and not negative. */
const isRank = (r: unknown): r is number =>
  typeof r === "number" && Number.isFinite(r) && r >= 0 && r <= 1e30;

/**
 * A search with a vector channel pages over one fixed candidate set: the items of the first page's instant
 * (`at`; later pages leave out what was written since) fused by score, ordered by (score, time,
 * id). `channels` says which channels made it, so a cursor is refused by a search of another mode.
 */
export interface FusedCursor {
  channels: "kv" | "v";
  /** With a keyword channel: the statistics the first page ranked it with. */
  stats?: KeywordStats;
  score: number;
  occurredAt: Date;
  id: string;
  at: Date;
}

export function encodeFusedCursor(cursor: FusedCursor): string {
  return toBase64Url(
    JSON.stringify({
      c: cursor.channels,
      s: cursor.score,
      t: cursor.occurredAt.toISOString(),
      i: cursor.id,
      a: cursor.at.toISOString(),
      k: cursor.stats && packStats(cursor.stats),
    }),
  );
}

export function decodeFusedCursor(text: string, channels: FusedCursor["channels"]): FusedCursor {
  const invalid = () => new AppError("bad_request", "cursor is not valid for this search");
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(text));
  } catch {
    throw invalid();
  }
  const { c, s, t, i, a, k } = (parsed ?? {}) as Record<string, unknown>;
  const stats = k === undefined ? undefined : unpackStats(k);
  const occurredAt = instant(t);
  const at = instant(a);
  if (
    c !== channels ||
    typeof s !== "number" ||
    !Number.isFinite(s) ||
    s < 0 ||
    s > 2 ||
    !isStorableInstant(occurredAt) ||
    !isStorableInstant(at) ||
    typeof i !== "string" ||
    !isUuid(i) ||
    stats === null ||
    (channels === "kv") !== (stats !== undefined)
  ) {
    throw invalid();
  }
  return { channels, score: s, occurredAt, id: i, at, ...(stats ? { stats } : {}) };
}
