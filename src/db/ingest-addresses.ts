/** Private inbound-email addresses in Postgres (ingest_addresses): at most one active row per owner. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { IngestAddresses } from "../domain/ingest-addresses";
import type { Db } from "./client";
import { ingestAddresses } from "./schema";

export function createIngestAddresses(db: Db): IngestAddresses {
  const active = (subjectKey: string) =>
    db
      .select({ token: ingestAddresses.token })
      .from(ingestAddresses)
      .where(and(eq(ingestAddresses.ownerId, subjectKey), isNull(ingestAddresses.revokedAt)));
  return {
    async issue(subjectKey, candidate) {
      // The partial unique index keeps one active address per owner, also under concurrent requests.
      const inserted = await db
        .insert(ingestAddresses)
        .values({ token: candidate, ownerId: subjectKey })
        .onConflictDoNothing()
        .returning({ token: ingestAddresses.token });
      if (inserted[0]) return { token: inserted[0].token, created: true };
      const [row] = await active(subjectKey);
      if (!row) throw new Error("ingest address vanished between insert and read");
      return { token: row.token, created: false };
    },
    async revoke(subjectKey) {
      const rows = await db
        .update(ingestAddresses)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(ingestAddresses.ownerId, subjectKey), isNull(ingestAddresses.revokedAt)))
        .returning({ token: ingestAddresses.token });
      return rows.length > 0;
    },
    async ownerOf(token) {
      const [row] = await db
        .select({ ownerId: ingestAddresses.ownerId })
        .from(ingestAddresses)
        .where(and(eq(ingestAddresses.token, token), isNull(ingestAddresses.revokedAt)));
      return row?.ownerId ?? null;
    },
  };
}
