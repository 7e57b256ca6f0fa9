/**
 * Batch upsert of a user's items: idempotent by (owner, source, externalId), all-or-nothing.
 *
 * 1. One read of the existing rows (id, content hash, shared_with) for the batch's keys. If every item's
 *    content hash matches, nothing is written: the answer is all "unchanged".
 * 2. Otherwise one db.batch (one transaction) that
 *    - records that every subject who may see a written item has new material (memories.material_changed_at);
 *    - inserts or updates the new and changed items (the update is guarded by the hash, so a concurrent
 *      identical write stays a no-op);
 *    - replaces the links of every item written in this transaction (explicit links and @-mentions,
 *      with `to_item` resolved against the owner's items, including those of this batch);
 *    - resolves other items' pending links that point at the items just written;
 *    The insert or update also writes what each item says about people (its identifier sightings and hard
 *    links, derived by domain/people sightingsOf: item-people-writes.ts) into the item's own row.
 *    "Written in this transaction" is `xmin = pg_current_xact_id()::xid`, so later statements see
 *    exactly the rows the insert created or changed.
 */
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "../domain/errors";
import type { ItemInput } from "../domain/item-schema";
import { repeatedKeys, type UpsertOutcome } from "../domain/items";
import { sha256Hex } from "../domain/sha256";
import { shareTargetKey, shareTargetProblem, workspaceOf } from "../domain/workspaces";
import { writeWithRedaction } from "./access-loss";
import type { Db } from "./client";
import { canonicalJson } from "./content-hash";
import { type LinkSpec, linkSpecs } from "./item-links";
import { itemPeopleColumns, type PeopleColumns } from "./item-people-writes";
import { materialChangedStatement } from "./memory-events";
import { unknownShareTargets } from "./pg-workspace-store";
import { items } from "./schema";

type NewItemRow = typeof items.$inferInsert & { contentHash: string };

interface Prepared {
  row: NewItemRow;
  links: LinkSpec[];
  /** What the item says about people (derived only for the items a batch writes). */
  people: () => PeopleColumns;
}

export async function upsertItems(
  db: Db,
  subjectKey: string,
  inputs: ItemInput[],
): Promise<{ outcomes: UpsertOutcome[]; affectedSubjects: string[]; redactedSubjects: string[] }> {
  assertNoDuplicates(inputs);
  if (inputs.length === 0) return { outcomes: [], affectedSubjects: [], redactedSubjects: [] };
  await assertKnownShareTargets(db, subjectKey, inputs);
  const prepared = await Promise.all(inputs.map((input) => prepare(subjectKey, input)));
  const keyOf = (source: string, externalId: string) => JSON.stringify([source, externalId]);

  const existing = new Map(
    (
      await db
        .select({
          id: items.id,
          source: items.source,
          externalId: items.externalId,
          contentHash: items.contentHash,
          sharedWith: items.sharedWith,
        })
        .from(items)
        .where(and(eq(items.ownerId, subjectKey), inBatchKeys(prepared)))
    ).map((row) => [keyOf(row.source, row.externalId), row]),
  );

  const toWrite = prepared.filter(
    (p) => existing.get(keyOf(p.row.source, p.row.externalId))?.contentHash !== p.row.contentHash,
  );
  // Every subject who could see a written item before or can see it now has new material; the notices
  // commit with the items, so a failed request leaves neither and a retry cannot lose them.
  const affected = new Set<string>([subjectKey]);
  for (const p of toWrite) {
    const before = existing.get(keyOf(p.row.source, p.row.externalId));
    for (const subject of [...(before?.sharedWith ?? []), ...(p.row.sharedWith ?? [])]) affected.add(subject);
  }
  // An update that shares an item with fewer targets takes access away: redacted in the same batch.
  const narrowed = toWrite.flatMap((p) => {
    const before = existing.get(keyOf(p.row.source, p.row.externalId));
    const after = p.row.sharedWith ?? [];
    return before?.sharedWith.some((key) => !after.includes(key)) ? [{ id: before.id, keys: after }] : [];
  });
  const written = new Map<string, { id: string; inserted: boolean }>();
  let redactedSubjects: string[] = [];
  if (toWrite.length > 0) {
    const redacting = await writeWithRedaction(
      db,
      { sharedWith: narrowed },
      { items: narrowed.map((n) => n.id) },
      [
        insertStatement(db, toWrite),
        deleteLinksStatement(db, subjectKey, toWrite),
        insertLinksStatement(db, subjectKey, toWrite),
        resolvePendingStatement(db, subjectKey, toWrite),
        db.execute(materialChangedStatement([...affected], "now")),
      ],
      new Date(),
    );
    redactedSubjects = redacting.redactedSubjects;
    const upserted = redacting.results[0] as {
      id: string;
      source: string;
      externalId: string;
      inserted: boolean;
    }[];
    for (const row of upserted) {
      written.set(keyOf(row.source, row.externalId), { id: row.id, inserted: row.inserted });
    }
  }

  const outcomes = prepared.map(({ row }): UpsertOutcome => {
    const key = keyOf(row.source, row.externalId);
    const before = existing.get(key);
    const write = written.get(key);
    const base = { source: row.source, externalId: row.externalId };
    if (write) {
      return { ...base, id: write.id, status: write.inserted ? "created" : "updated" };
    }
    if (!before) throw new Error(`item ${key} was neither found nor written`);
    return { ...base, id: before.id, status: "unchanged" };
  });
  return { outcomes, affectedSubjects: toWrite.length > 0 ? [...affected] : [], redactedSubjects };
}

function assertNoDuplicates(inputs: ItemInput[]): void {
  const problems = repeatedKeys(inputs.map((input, index) => ({ index, ...input })));
  if (problems.length > 0) {
    throw new AppError("validation_failed", "Some items are invalid", { details: { items: problems } });
  }
}

/**
 * Every share target must name an active member or a team of the owner's workspace: 422 otherwise, naming
 * each unknown target, and nothing is written.
 */
async function assertKnownShareTargets(db: Db, subjectKey: string, inputs: ItemInput[]): Promise<void> {
  const workspace = workspaceOf(subjectKey);
  const keyOfTarget = new Map<string, string | null>();
  for (const input of inputs) {
    for (const target of input.sharedWith ?? []) keyOfTarget.set(target, shareTargetKey(workspace, target));
  }
  const keys = [...keyOfTarget.values()].filter((k): k is string => k !== null && k !== subjectKey);
  const unknown = new Set(await unknownShareTargets(db, keys));
  const problems = inputs.flatMap((input, index) =>
    (input.sharedWith ?? [])
      .filter((target) => {
        const key = keyOfTarget.get(target) ?? null;
        return key === null || unknown.has(key);
      })
      .map((target) => {
        const problem = shareTargetProblem(target);
        const message = problem
          ? `"${target}" is not a usable member or team name: it ${problem}`
          : `"${target}" is not a member or team of this workspace`;
        return { index, path: "sharedWith", message };
      }),
  );
  if (problems.length > 0) {
    throw new AppError("validation_failed", "Some items are shared with unknown members or teams", {
      details: { items: problems },
    });
  }
}

async function prepare(subjectKey: string, input: ItemInput): Promise<Prepared> {
  const workspace = workspaceOf(subjectKey);
  const sharedWith = [
    ...new Set((input.sharedWith ?? []).map((target) => shareTargetKey(workspace, target) as string)),
  ]
    .filter((key) => key !== subjectKey)
    .sort();
  const links = linkSpecs(input);
  const content = {
    kind: input.kind,
    title: input.title ?? null,
    body: input.body,
    author: input.author ?? null,
    participants: input.participants ?? [],
    occurredAt: input.occurredAt.toISOString(),
    url: input.url ?? null,
    metadata: input.metadata ?? {},
    sharedWith,
    links,
    // Only when sent, so the hash of an item without people is what it was before the field existed.
    ...(input.people === undefined ? {} : { people: input.people }),
  };
  const row: NewItemRow = {
    ownerId: subjectKey,
    source: input.source,
    externalId: input.externalId,
    kind: content.kind,
    title: content.title,
    body: content.body,
    author: content.author,
    participants: content.participants,
    occurredAt: input.occurredAt,
    url: content.url,
    metadata: content.metadata,
    sharedWith,
    contentHash: await sha256Hex(canonicalJson(content)),
  };
  let people: PeopleColumns | undefined;
  return { row, links, people: () => (people ??= itemPeopleColumns(input)) };
}

/** `(source, external_id)` is one of the batch's keys; two array parameters, whatever the batch size. */
function inBatchKeys(batch: Prepared[]) {
  const sources = batch.map((p) => p.row.source);
  const externalIds = batch.map((p) => p.row.externalId);
  return sql`(${items.source}, ${items.externalId}) in (select * from unnest(${sql.param(sources)}::text[], ${sql.param(externalIds)}::text[]))`;
}

const writtenHere = sql.raw(`"items".xmin = pg_current_xact_id()::xid`);

function insertStatement(db: Db, batch: Prepared[]) {
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  return db
    .insert(items)
    .values(batch.map((p) => ({ ...p.row, ...p.people() })))
    .onConflictDoUpdate({
      target: [items.ownerId, items.source, items.externalId],
      set: {
        kind: sql`${excluded("kind")}`,
        title: sql`${excluded("title")}`,
        body: sql`${excluded("body")}`,
        author: sql`${excluded("author")}`,
        participants: sql`${excluded("participants")}`,
        occurredAt: sql`${excluded("occurred_at")}`,
        url: sql`${excluded("url")}`,
        metadata: sql`${excluded("metadata")}`,
        sharedWith: sql`${excluded("shared_with")}`,
        contentHash: sql`${excluded("content_hash")}`,
        sightings: sql`${excluded("sightings")}`,
        personLinks: sql`${excluded("person_links")}`,
        peopleKeys: sql`${excluded("people_keys")}`,
        updatedAt: sql`now()`,
        // Its people are written with it: nothing left for the backfill.
        peoplePending: sql`false`,
      },
      setWhere: sql`${items.contentHash} <> ${excluded("content_hash")}`,
    })
    .returning({
      id: items.id,
      source: items.source,
      externalId: items.externalId,
      inserted: sql<boolean>`("items".xmax = 0)`,
    });
}

function deleteLinksStatement(db: Db, subjectKey: string, batch: Prepared[]) {
  return db.execute(sql`
    delete from item_links where from_item in (
      select ${items.id} from ${items}
      where ${items.ownerId} = ${subjectKey} and ${inBatchKeys(batch)} and ${writtenHere}
    )`);
}

function insertLinksStatement(db: Db, subjectKey: string, batch: Prepared[]) {
  const rows = batch.flatMap((p) =>
    p.links.map((l) => ({
      fs: p.row.source,
      fe: p.row.externalId,
      ts: l.targetSource,
      te: l.targetExternalId,
      k: l.kind,
    })),
  );
  // A bare mention (ts null) becomes a link only if it resolves; it prefers the item's own source.
  return db.execute(sql`
    insert into item_links (from_item, target_source, target_external_id, kind, to_item)
    select distinct on (f.id, l.ts, l.te, l.k) f.id, coalesce(l.ts, t.source), l.te, l.k, t.id
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as l(fs text, fe text, ts text, te text, k text)
    join items f on f.owner_id = ${subjectKey} and f.source = l.fs and f.external_id = l.fe
      and f.xmin = pg_current_xact_id()::xid
    left join items t on t.owner_id = ${subjectKey} and t.external_id = l.te
      and (l.ts is null or t.source = l.ts)
    where (l.ts is not null or t.id is not null) and (t.id is null or t.id <> f.id)
    order by f.id, l.ts, l.te, l.k, (t.source = l.fs) desc nulls last, t.source
    on conflict do nothing`);
}

function resolvePendingStatement(db: Db, subjectKey: string, batch: Prepared[]) {
  return db.execute(sql`
    update item_links l set to_item = t.id
    from items f, items t
    where l.to_item is null and f.id = l.from_item and f.owner_id = ${subjectKey}
      and t.owner_id = ${subjectKey} and t.source = l.target_source and t.external_id = l.target_external_id
      and t.xmin = pg_current_xact_id()::xid
      and (t.source, t.external_id) in (
        select * from unnest(${sql.param(batch.map((p) => p.row.source))}::text[],
                             ${sql.param(batch.map((p) => p.row.externalId))}::text[]))`);
}
