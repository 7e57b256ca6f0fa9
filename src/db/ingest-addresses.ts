/** Private inbound-email addresses in Postgres (ingest_addresses): at most one active row per owner. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { IngestAddresses } from "../domain/ingest-addresses";
import type { Db } from "./client";
import { ingestAddresses, items } from "./schema";

export function createIngestAddresses(db: Db): IngestAddresses {
  const activeOf = (subjectKey: string) =>
    and(eq(ingestAddresses.ownerId, subjectKey), isNull(ingestAddresses.revokedAt));
  const columns = { token: ingestAddresses.token, allowedSenders: ingestAddresses.allowedSenders };
  return {
    async issue(subjectKey, candidate, replaceSenders) {
      // The partial unique index keeps one active address per owner, also under concurrent requests.
      const inserted = await db
        .insert(ingestAddresses)
        .values({ token: candidate.token, ownerId: subjectKey, allowedSenders: candidate.allowedSenders })
        .onConflictDoNothing()
        .returning(columns);
      if (inserted[0]) return { ...inserted[0], created: true };
      const [row] =
        replaceSenders === undefined
          ? await db.select(columns).from(ingestAddresses).where(activeOf(subjectKey))
          : await db
              .update(ingestAddresses)
              .set({ allowedSenders: replaceSenders })
              .where(activeOf(subjectKey))
              .returning(columns);
      if (!row) throw new Error("ingest address vanished between insert and read");
      return { ...row, created: false };
    },
    async revoke(subjectKey) {
      const rows = await db
        .update(ingestAddresses)
        .set({ revokedAt: sql`now()` })
        .where(activeOf(subjectKey))
        .returning({ token: ingestAddresses.token });
      return rows.length > 0;
    },
    async ownerOf(token) {
      const [row] = await db
        .select({ subjectKey: ingestAddresses.ownerId, allowedSenders: ingestAddresses.allowedSenders })
        .from(ingestAddresses)
        .where(and(eq(ingestAddresses.token, token), isNull(ingestAddresses.revokedAt)));
      return row ?? null;
    },
    async storedMessage(subjectKey, source, externalId) {
      const [row] = await db
        .select({ fingerprint: sql<string | null>`${items.metadata}->'inbound'->>'fingerprint'` })
        .from(items)
        .where(
          and(eq(items.ownerId, subjectKey), eq(items.source, source), eq(items.externalId, externalId)),
        );
      return row ? { fingerprint: row.fingerprint ?? null } : null;
    },
  };
}
