import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { ITEM_KINDS } from "../domain/item-schema";
import type {
  ModelUsage,
  RemovedStatement,
  Salvage,
  Statement,
  SupersededStatement,
  Verdict,
} from "../domain/memory";
import { MEMORY_STATUSES, RUN_STATUSES, RUN_TRIGGERS } from "../domain/memory";
import { timestamptz } from "./schema-columns";

/** One identifier an item names (items.sightings): key, role, the name the item gives it, automated or not. */
export type StoredSighting = { k: string; r: string; n: string | null; b: boolean };
/** A hard link an item's record makes between two identifiers (items.person_links). */
export type StoredPersonLink = { a: string; b: string };

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
/**
 * pgvector's `vector` without a fixed dimension, so one column holds any model's embeddings (each row's
 * length is in `dimensions`); indexes fix the dimension per model (see itemChunks). Read and written as
 * pgvector's text form, `[0.1,0.2,...]`.
 */
const vector = customType<{ data: number[]; driverData: string }>({
  dataType: () => "vector",
  toDriver: (value) => `[${value.join(",")}]`,
  fromDriver: (value) => JSON.parse(value) as number[],
});

/** Between an owner's key and a kind in the text index's owner keys: in no owner key and no kind. */
export const OWNER_KIND_SEPARATOR = "\x1f";
/**
 * The text index's owner keys of an item (drizzle/0028): its owner's, and with OWNER_KIND_SEPARATOR its kind.
 * One expression for the index and the reads the planner must match to it (item-rows.ts ownedInTextIndex).
 */
export const ownerKeys = (t: { ownerId: AnyPgColumn; kind: AnyPgColumn }) =>
  sql`array[${t.ownerId}, ${t.ownerId} || E'\\x1f' || ${t.kind}]`;

export const items = pgTable(
  "items",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerId: text("owner_id").notNull(),
    source: text("source").notNull(),
    externalId: text("external_id").notNull(),
    kind: text("kind", { enum: ITEM_KINDS }).notNull(),
    title: text("title"),
    body: text("body").notNull(),
    author: text("author"),
    participants: text("participants").array().notNull().default(sql`'{}'::text[]`),
    occurredAt: timestamptz("occurred_at").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
    url: text("url"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    sharedWith: text("shared_with").array().notNull().default(sql`'{}'::text[]`),
    /** sha-256 of the item's canonical content: re-ingesting identical content is "unchanged". */
    contentHash: text("content_hash").notNull(),
    /** Its people not derived yet (stored before people evidence existed): the backfill's work (drizzle/0020). */
    peoplePending: boolean("people_pending").notNull().default(false),
    /**
     * What the item says about people (db/item-people-writes.ts, drizzle/0022): its identifier sightings,
     * the hard links its record makes, and the sightings' distinct keys for the person filter. A speaker
     * key is stored as `speaker:{item}#<label>` and read with the item's id in place of `{item}`.
     */
    sightings: jsonb("sightings").$type<StoredSighting[]>().notNull().default([]),
    personLinks: jsonb("person_links").$type<StoredPersonLink[]>().notNull().default([]),
    peopleKeys: text("people_keys").array().notNull().default(sql`'{}'::text[]`),
    /**
     * Full-text index of title, author and the body's first 200,000 characters (a tsvector holds at most
     * 1 MB), kept in the row where scoring reads it (STORAGE MAIN, drizzle/0029: drizzle has no word for it).
     */
    search: tsvector("search")
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('english'::regconfig, coalesce(author, '')), 'B') || setweight(to_tsvector('english'::regconfig, left(body, 200000)), 'C')`,
      ),
  },
  (t) => [
    uniqueIndex("items_owner_source_external_key").on(t.ownerId, t.source, t.externalId),
    /**
     * A viewer's own items newest first: newest-first listings and the recent candidates of a ranked search
     * walk it backwards (item-search.ts); items shared with the viewer come from items_shared_with_idx.
     * Both owner indexes also carry content_hash (INCLUDE, drizzle/0026, which drizzle's builder cannot
     * say): the vector channel reads the visible items' current hashes from them (item-chunk-search.ts).
     */
    index("items_owner_occurred_id_idx").on(t.ownerId, t.occurredAt, t.id),
    index("items_owner_kind_occurred_id_idx").on(t.ownerId, t.kind, t.occurredAt, t.id),
    index("items_shared_with_idx").using("gin", t.sharedWith),
    /**
     * The text index, also keyed by owner, owner and kind, and the people an item names (drizzle/0027, 0028):
     * one scan finds a viewer's own items matching a query, a kind filter and a person filter (item-rows.ts
     * ownedInTextIndex), with no bitmap of all the owner's, the kind's or the person's items to AND.
     */
    index("items_search_idx").using("gin", t.search, sql`(${ownerKeys(t)})`, t.peopleKeys),
    index("items_people_pending_idx").on(t.id).where(sql`${t.peoplePending}`),
    /** The person filter: items naming one of a person's identifiers (item-search.ts namesAnyOf). */
    index("items_people_keys_idx").using("gin", t.peopleKeys),
    /** The people filter (substring of the author or a participant): trigrams of the joined names. */
    index("items_people_trgm_idx").using(
      "gin",
      sql`items_people(${t.author}, ${t.participants}) gin_trgm_ops`,
    ),
    check(
      "items_kind_check",
      sql`${t.kind} in ('email','message','task','doc','call','event','file','pull_request','contact','note')`,
    ),
  ],
);

/**
 * The @-link graph. A link names its target by (source, external id) within the owner's items;
 * `to_item` is filled in when the target exists, so a link can arrive before its target.
 */
export const itemLinks = pgTable(
  "item_links",
  {
    fromItem: uuid("from_item")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    targetSource: text("target_source").notNull(),
    targetExternalId: text("target_external_id").notNull(),
    toItem: uuid("to_item").references(() => items.id, { onDelete: "cascade" }),
    kind: text("kind").notNull().default("reference"),
  },
  (t) => [
    primaryKey({ columns: [t.fromItem, t.targetSource, t.targetExternalId, t.kind] }),
    index("item_links_to_item_idx").on(t.toItem),
    /** Finds links still waiting for their target when that target is ingested. */
    index("item_links_pending_idx").on(t.targetSource, t.targetExternalId).where(sql`${t.toItem} is null`),
  ],
);

/** One row per subject: the pointer to the current version plus what the read path needs. */
export const memories = pgTable(
  "memories",
  {
    subjectKey: text("subject_id").primaryKey(),
    currentVersionId: uuid("current_version_id"),
    markdown: text("markdown"),
    generatedAt: timestamptz("generated_at"),
    checkedAt: timestamptz("checked_at"),
    status: text("status", { enum: MEMORY_STATUSES }).notNull().default("none"),
    /** Last time an item this subject may see was created, updated or deleted. */
    materialChangedAt: timestamptz("material_changed_at"),
    /** Code of the last failure that makes generation unavailable (served as 503). */
    errorCode: text("error_code"),
    /** The last unsuccessful run's reason in words (the checks', the judge's, or the error's). */
    errorMessage: text("error_message"),
    /** That run's attempt (1 for the first of a series). */
    attempt: integer("attempt"),
    /** When the agent tries again (status "retrying"); null when it will not by itself. */
    nextAttemptAt: timestamptz("next_attempt_at"),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [index("memories_freshness_idx").on(t.generatedAt, t.subjectKey)],
);

export const memoryVersions = pgTable(
  "memory_versions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    subjectKey: text("subject_id").notNull(),
    markdown: text("markdown").notNull(),
    statements: jsonb("statements").$type<Statement[]>().notNull(),
    citedItemIds: uuid("cited_item_ids").array().notNull().default(sql`'{}'::uuid[]`),
    generatorModel: text("generator_model").notNull(),
    judgeModel: text("judge_model").notNull(),
    verdict: jsonb("verdict").$type<Verdict>().notNull(),
    runId: uuid("run_id"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    redactedAt: timestamptz("redacted_at"),
    /** Statements taken out after the version was written (redacted or dismissed), without their text. */
    removed: jsonb("removed").$type<RemovedStatement[]>().notNull().default([]),
  },
  (t) => [
    index("memory_versions_subject_idx").on(t.subjectKey, t.createdAt.desc()),
    index("memory_versions_cited_idx").using("gin", t.citedItemIds),
  ],
);

export const memoryRuns = pgTable(
  "memory_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    subjectKey: text("subject_id").notNull(),
    trigger: text("trigger", { enum: RUN_TRIGGERS }).notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    attempt: integer("attempt").notNull().default(1),
    queuedAt: timestamptz("queued_at").notNull().defaultNow(),
    startedAt: timestamptz("started_at"),
    finishedAt: timestamptz("finished_at"),
    turns: integer("turns").notNull().default(0),
    toolCalls: integer("tool_calls").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    usage: jsonb("usage").$type<ModelUsage>().notNull().default({}),
    verdict: jsonb("verdict").$type<Verdict>(),
    outcome: text("outcome"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    versionId: uuid("version_id"),
    /** Statements dropped from the draft (counts and reasons) before it was accepted; null when none were. */
    salvaged: jsonb("salvaged").$type<Salvage>(),
    /** Statements of the previous memory the judge found superseded by newer items; null when none. */
    superseded: jsonb("superseded").$type<SupersededStatement[]>(),
  },
  (t) => [index("memory_runs_subject_idx").on(t.subjectKey, t.queuedAt.desc())],
);

/**
 * What a subject (a user, or a team by any member) dismissed from its memory: the statement as it was, so
 * later runs are told and a restatement is dropped. The subject's data: erased with the subject (or the
 * team), and removed with the access to a cited item, as a memory version is redacted. `seq` orders them
 * for the run's write fence (a dismissal after the run read them refuses its version).
 */
export const memoryDismissals = pgTable(
  "memory_dismissals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    subjectKey: text("subject_id").notNull(),
    statementId: text("statement_id").notNull(),
    section: text("section").notNull(),
    text: text("text").notNull(),
    citedItemIds: uuid("cited_item_ids").array().notNull().default(sql`'{}'::uuid[]`),
    reason: text("reason"),
    versionId: uuid("version_id"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("memory_dismissals_subject_idx").on(t.subjectKey, t.seq),
    index("memory_dismissals_cited_idx").using("gin", t.citedItemIds),
  ],
);

/**
 * Where an unfinished daily sweep resumes (one row per sweep name): written only when an invocation hits
 * its bound, deleted when a sweep reaches the end, so the next invocation goes on instead of starting over.
 */
export const sweepCursors = pgTable("sweep_cursors", {
  name: text("name").primaryKey(),
  afterKey: text("after_key").notNull(),
  updatedAt: timestamptz("updated_at").notNull().defaultNow(),
});

/**
 * Private inbound-email addresses: mail to `<token>@<INGEST_EMAIL_DOMAIN>` becomes the owner's email item.
 * A revoked address keeps its row (revoked_at set) so it is never handed out again and mail to it is refused.
 */
export const ingestAddresses = pgTable(
  "ingest_addresses",
  {
    token: text("token").primaryKey(),
    ownerId: text("owner_id").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    revokedAt: timestamptz("revoked_at"),
    /** Envelope senders whose mail it accepts: lower-case addresses or `@domain`s; empty accepts none. */
    allowedSenders: text("allowed_senders").array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [uniqueIndex("ingest_addresses_active_owner_key").on(t.ownerId).where(sql`${t.revokedAt} is null`)],
);

/**
 * Sign-in codes (domain/sign-in-codes.ts): a code's SHA-256, whose it is, and the token it vouches for,
 * sealed with a key derived from the code; the first attempt to use a code sets used_at and clears the
 * sealed token, so a row outlives its use only to say why the code is refused.
 */
export const signInCodes = pgTable(
  "sign_in_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    ownerId: text("owner_id").notNull(),
    sealedToken: text("sealed_token"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
  },
  (t) => [index("sign_in_codes_owner_idx").on(t.ownerId), index("sign_in_codes_expires_idx").on(t.expiresAt)],
);

/**
 * The members of each workspace, by key (see domain/workspaces.ts). A user becomes a member the first time
 * they call the API with a token of the workspace, or when an admin adds them; an admin's removal sets
 * removed_at (their token is refused from then on) and keeps the row, so the removal is not undone by
 * their next request.
 */
export const workspaceMembers = pgTable(
  "workspace_members",
  {
    memberKey: text("member_key").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    userId: text("user_id").notNull(),
    joinedAt: timestamptz("joined_at").notNull().defaultNow(),
    removedAt: timestamptz("removed_at"),
    /** The member's address as an admin set it (PUT /members/:user): ties `user:<id>` to `email:<address>`. */
    email: text("email"),
  },
  (t) => [uniqueIndex("workspace_members_workspace_user_key").on(t.workspaceId, t.userId)],
);

/** Teams of a workspace; a team's key is also the subject key of its memory. */
export const teams = pgTable(
  "teams",
  {
    teamKey: text("team_key").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    teamId: text("team_id").notNull(),
    name: text("name").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    updatedAt: timestamptz("updated_at").notNull().defaultNow(),
  },
  (t) => [uniqueIndex("teams_workspace_team_key").on(t.workspaceId, t.teamId)],
);

/** Who is in which team: the access rule reads it (a member sees what is shared with their teams). */
export const teamMembers = pgTable(
  "team_members",
  {
    teamKey: text("team_key")
      .notNull()
      .references(() => teams.teamKey, { onDelete: "cascade" }),
    memberKey: text("member_key")
      .notNull()
      .references(() => workspaceMembers.memberKey, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.teamKey, t.memberKey] }),
    index("team_members_member_idx").on(t.memberKey),
  ],
);

/**
 * An item's body in chunks, each with its embedding by one model (an item has chunks of several models
 * only while the configured model changes). `content_hash` is the item's content hash the chunk was made
 * from: a chunk whose hash is not the item's current one is stale (search skips it; backfill redoes it).
 * Offsets are the chunk's [start, end) in the body, in UTF-16 code units (JavaScript string indices);
 * `snippet` is the beginning of that span, enough to show a search hit without reading the body.
 *
 * `embedding` has no dimension, so no index can be built on the column itself: each (model, dimensions)
 * gets its own partial HNSW index over `embedding::halfvec(N)`, created by the code when the model is first
 * used (db/item-chunks.ts ensureVectorIndex); rows of other dimensions fall outside its predicate.
 */
export const itemChunks = pgTable(
  "item_chunks",
  {
    itemId: uuid("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    /** The embedder's id, "provider:model" (e.g. "workers-ai:@cf/baai/bge-small-en-v1.5"). */
    model: text("model").notNull(),
    dimensions: integer("dimensions").notNull(),
    chunkIndex: integer("chunk_index").notNull(),
    contentHash: text("content_hash").notNull(),
    startOffset: integer("start_offset").notNull(),
    endOffset: integer("end_offset").notNull(),
    snippet: text("snippet").notNull(),
    embedding: vector("embedding").notNull(),
    embeddedAt: timestamptz("embedded_at").notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.itemId, t.model, t.dimensions, t.chunkIndex] }),
    check("item_chunks_dimensions_check", sql`vector_dims(${t.embedding}) = ${t.dimensions}`),
    check(
      "item_chunks_span_check",
      sql`${t.chunkIndex} >= 0 and ${t.startOffset} >= 0 and ${t.endOffset} >= ${t.startOffset}`,
    ),
  ],
);

/**
 * The audit trail: one row per read of memory or items and per access-changing write, append-only (no route
 * updates or deletes one; the daily cron prunes past AUDIT_RETENTION_DAYS, and an erase replaces the erased
 * user's name with `erased:<hash>`). Written once by id from the audit queue (db/pg-audit-store.ts).
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: uuid("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    at: timestamptz("at").notNull(),
    /** Names inside the workspace (`ada`, `team:payments`), never keys. */
    actor: text("actor").notNull(),
    subject: text("subject").notNull(),
    action: text("action").notNull(),
    channel: text("channel").notNull(),
    client: text("client"),
    requestId: text("request_id").notNull(),
    versionId: uuid("version_id"),
    itemIds: uuid("item_ids").array().notNull().default(sql`'{}'::uuid[]`),
    /** A search's query as a hash, never its text. */
    queryHash: text("query_hash"),
    status: integer("status").notNull(),
    recordedAt: timestamptz("recorded_at").notNull().defaultNow(),
  },
  (t) => [
    index("audit_events_workspace_idx").on(t.workspaceId, t.at.desc(), t.id.desc()),
    index("audit_events_subject_idx").on(t.workspaceId, t.subject, t.at.desc(), t.id.desc()),
    index("audit_events_at_idx").on(t.at),
  ],
);

/** Users who erased themselves, by the one-way hash their events now carry, and when. */
export const auditErasures = pgTable("audit_erasures", {
  hash: text("hash").primaryKey(),
  erasedAt: timestamptz("erased_at").notNull(),
});

/**
 * The usage ledger: per subject, per day (UTC, the day the run started), per model, what the runs spent;
 * the row of model '' counts the runs by outcome. Written in the same batch as the run's ending.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    subjectKey: text("subject_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    model: text("model").notNull(),
    runs: integer("runs").notNull().default(0),
    succeeded: integer("succeeded").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    budgetExhausted: integer("budget_exhausted").notNull().default(0),
    llmCalls: integer("llm_calls").notNull().default(0),
    inputTokens: bigint("input_tokens", { mode: "number" }).notNull().default(0),
    outputTokens: bigint("output_tokens", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.subjectKey, t.day, t.model] }), index("usage_daily_day_idx").on(t.day)],
);

export * from "./schema-imports";
export * from "./schema-webhooks";
