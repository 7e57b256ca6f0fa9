/** Keyset paging for the memory history lists (runs, versions): newest first by (time, id), opaque cursors. */
import { and, eq, lt, or } from "drizzle-orm";
import { AppError } from "../domain/errors";
import { isStorableInstant } from "../domain/instants";
import { isUuid } from "../domain/memory";
import type { Page } from "../memory/memory-reader";
import { fromBase64Url, toBase64Url } from "./base64url";
import type { memoryRuns, memoryVersions } from "./schema";

export function keysetBefore(
  at: typeof memoryRuns.queuedAt | typeof memoryVersions.createdAt,
  id: typeof memoryRuns.id | typeof memoryVersions.id,
  cursor: { at: Date; id: string },
) {
  return or(lt(at, cursor.at), and(eq(at, cursor.at), lt(id, cursor.id)));
}

export function pageOf<T>(entries: T[], more: boolean, key: (entry: T) => { at: Date; id: string }): Page<T> {
  const last = entries.at(-1);
  return { entries, nextCursor: more && last ? encodeListCursor(key(last)) : null };
}

/** Opaque keyset cursor for the history lists: base64url of the last entry's (time, id). */
export function encodeListCursor(key: { at: Date; id: string }): string {
  return toBase64Url(JSON.stringify([key.at.toISOString(), key.id]));
}

export function decodeListCursor(text: string): { at: Date; id: string } {
  try {
    const [t, id] = JSON.parse(fromBase64Url(text)) as unknown[];
    const at = new Date(String(t));
    if (typeof id === "string" && isUuid(id) && isStorableInstant(at)) return { at, id };
  } catch {
    // fall through
  }
  throw new AppError("bad_request", "cursor is not valid for this list");
}
