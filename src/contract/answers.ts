/**
 * The response bodies of the HTTP API, as zod schemas. They feed the OpenAPI document; the OpenAPI test
 * parses real responses with them, so a handler that changes its output without them fails a test.
 */
import { z } from "zod";
import { AUDIT_ACTIONS, AUDIT_CHANNELS } from "../domain/audit";
import { ITEM_KINDS } from "../domain/item-schema";
import { SEARCH_MODES, UPSERT_STATUSES } from "../domain/items";
import { REMOVAL_REASONS, RUN_STATUSES, RUN_TRIGGERS } from "../domain/memory";

const dateTime = z.iso.datetime({ offset: true });
const kind = z.enum(ITEM_KINDS);

export const errorBody = z.object({
  error: z.object({
    code: z.string().describe("Stable error code (bad_request, unauthorized, not_found, rate_limited, …)"),
    message: z.string(),
    requestId: z.string(),
    details: z.unknown().optional(),
  }),
});

export const ingestResponse = z.object({
  items: z.array(
    z.object({
      id: z.uuid(),
      source: z.string(),
      externalId: z.string(),
      status: z.enum(UPSERT_STATUSES),
    }),
  ),
});

const itemSummary = z.object({
  id: z.uuid(),
  kind,
  source: z.string(),
  externalId: z.string(),
  title: z.string().nullable(),
  author: z.string().nullable(),
  occurredAt: dateTime,
});

export const searchResponse = z.object({
  items: z.array(
    itemSummary.extend({
      snippet: z.string().describe("From the best-matching passage (the best chunk when found by meaning)"),
      rank: z
        .number()
        .describe(
          "Higher is better. hybrid and semantic: the reciprocal-rank fusion score; keyword: 1 plus a " +
            "share of the text rank for every-word matches, under 1 for any-word ones",
        ),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const itemResponse = itemSummary.extend({
  ownerId: z.string(),
  body: z.string(),
  participants: z.array(z.string()),
  createdAt: dateTime,
  updatedAt: dateTime,
  url: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  sharedWith: z.array(z.string()),
  links: z.array(
    z.object({ direction: z.enum(["outgoing", "incoming"]), kind: z.string(), item: itemSummary }),
  ),
  semanticIndex: z
    .enum(["indexed", "pending", "not_configured"])
    .describe(
      "Whether semantic search finds the item by its current content: indexed, pending (waiting for the " +
        "embeddings queue), or not_configured (no embedding model: keyword search only)",
    ),
  citedBy: z
    .array(z.object({ id: z.string(), section: z.string(), text: z.string() }))
    .describe("The statements of the caller's current memory that cite the item, in the memory's order"),
});

export const embeddingStatusResponse = z.object({
  configured: z.boolean(),
  model: z.string().nullable(),
  dimensions: z.number().int().nullable(),
  items: z.number().int().optional().describe("Items of the workspace"),
  indexed: z.number().int().optional().describe("Indexed for semantic search by their current content"),
  pending: z.number().int().optional().describe("Waiting for the embeddings queue or the daily backfill"),
  vectorIndex: z
    .enum(["ready", "building", "missing"])
    .nullable()
    .optional()
    .describe(
      "The model's vector index: ready; building (a model's backfill builds it once after its items, " +
        "semantic search reads the vectors exactly until then); missing (none yet). Null while the model's size is not known",
    ),
});

const citation = z.object({
  id: z.string(),
  kind: kind.nullable(),
  title: z.string().nullable(),
  occurredAt: dateTime.nullable(),
});

/** One statement of ?format=json. */
export const servedStatement = z.object({
  id: z.string().describe("Stable while the statement is carried unchanged from version to version"),
  section: z.string(),
  text: z.string(),
  citations: z.array(citation),
  since: dateTime.nullable().describe("The date of its newest cited item"),
  firstStated: dateTime.describe("When a version first held it"),
  people: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .describe(
      "The people its cited items name (never the subject), resolved by the service when the version was " +
        "generated; ids as GET /people/:id takes them",
    ),
});

export const memoryResponse = z.object({
  memory: z.string().optional().describe("Markdown; [n] cites citations[n-1] (format=markdown)"),
  statements: z.array(servedStatement).optional().describe("format=json"),
  version: z.uuid(),
  generatedAt: dateTime,
  stale: z.boolean(),
  citations: z.array(citation),
});

/** GET /memory?asOf=: the version that was current then. */
export const memoryAsOfResponse = z.object({
  memory: z.string().optional().describe("format=markdown"),
  statements: z.array(servedStatement).optional().describe("format=json"),
  version: z.uuid(),
  generatedAt: dateTime,
  createdAt: dateTime.describe("When the version was written (and became current)"),
  asOf: dateTime,
  current: z.boolean().describe("Whether it is still the current version"),
  citations: z.array(citation),
});

const removalReason = z.enum(REMOVAL_REASONS);

/** GET …/versions/:id/diff. */
export const versionDiffResponse = z.object({
  from: z.uuid().nullable().describe("The older version (null: the first version, compared with nothing)"),
  to: z.uuid(),
  added: z.array(servedStatement),
  removed: z.array(
    z.object({
      statement: servedStatement.extend({
        text: z.string().nullable().describe("null for a redacted statement: its words are not kept"),
        since: dateTime.nullable(),
        firstStated: dateTime.nullable(),
      }),
      reason: removalReason.describe(
        "superseded: a newer item replaced it; unsupported: its cited items did not support it; dropped: " +
          "the generator left it out; redacted: the subject lost access to a cited item; dismissed: the subject dismissed it " +
          "(also listed when this version held it when written and it was dismissed from it since)",
      ),
      dismissal: z
        .object({ id: z.uuid(), reason: z.string().nullable(), at: dateTime })
        .optional()
        .describe(
          "dismissed: the dismissal, while it stands (withdrawn: absent), with the subject's own reason",
        ),
    }),
  ),
  kept: z.array(servedStatement),
});

/** A dismissal: what the subject took out of its memory as wrong. */
export const dismissalResponse = z.object({
  id: z.uuid(),
  statementId: z.string(),
  text: z.string(),
  section: z.string(),
  citations: z.array(citation),
  reason: z.string().nullable(),
  at: dateTime,
});

export const dismissResponse = z.object({
  dismissal: dismissalResponse,
  version: z.uuid().describe("The version it was taken out of (the current one)"),
  etag: z.string().describe("The current memory's new ETag"),
});

export const dismissalsResponse = z.object({ dismissals: z.array(dismissalResponse) });

/** GET /memory when the subject can see no item yet: 200, and no run is asked for. */
export const emptyMemoryResponse = z.object({
  memory: z.literal("").optional().describe("format=markdown"),
  statements: z.array(z.never()).optional().describe("format=json"),
  version: z.null(),
  generatedAt: z.null(),
  stale: z.literal(false),
  empty: z.literal(true),
  citations: z.array(z.never()),
});

export const generatingResponse = z.object({ status: z.literal("generating"), retryAfter: z.number() });

export const refreshResponse = z.object({
  status: z.enum(["scheduled", "running", "fresh", "failing"]),
  runId: z.string().optional(),
  runAt: dateTime.optional(),
});

export const runsResponse = z.object({
  runs: z.array(
    z.looseObject({
      id: z.uuid(),
      trigger: z.enum(RUN_TRIGGERS),
      status: z.enum(RUN_STATUSES),
      attempt: z.number(),
      queuedAt: dateTime,
      startedAt: dateTime.nullable(),
      finishedAt: dateTime.nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

const versionSummary = z.looseObject({
  id: z.uuid(),
  createdAt: dateTime,
  runId: z.string().nullable(),
  generatorModel: z.string(),
  judgeModel: z.string(),
  statementCount: z.number(),
  redactedAt: dateTime
    .nullable()
    .describe("When a statement was last taken out of it (redacted or dismissed)"),
  takenOut: z
    .object({ dismissed: z.number().int(), redacted: z.number().int() })
    .describe("Statements taken out after it was written: dismissed by the subject, redacted on access loss"),
});

export const versionsResponse = z.object({
  versions: z.array(versionSummary),
  nextCursor: z.string().nullable(),
});

export const versionResponse = z.looseObject({ id: z.uuid(), markdown: z.string(), createdAt: dateTime });

export const healthResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  database: z.string(),
  embedder: z
    .object({ status: z.enum(["configured", "not_configured"]), model: z.string().optional() })
    .describe("The embedding model of semantic and hybrid search; not_configured: keyword-only"),
  search: z
    .object({ modes: z.array(z.enum(SEARCH_MODES)), default: z.enum(SEARCH_MODES) })
    .describe("The search modes GET /items answers here (semantic and hybrid need an embedding model)"),
  llm: z
    .object({
      status: z.enum(["configured", "not_configured"]),
      fake: z.boolean().describe("The models are the fake LLM of npm run dev -- --fake-llm (LLM_FAKE)"),
    })
    .describe("The models that write memories; not_configured: GET /memory answers 503 llm_not_configured"),
});

export const protectedResourceResponse = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
});

/** POST /me/ingest-address. */
export const ingestAddressResponse = z.object({
  address: z
    .string()
    .describe("The caller's private address: mail sent or forwarded to it becomes their email item"),
  allowedSenders: z
    .array(z.string())
    .describe(
      "The envelope senders (addresses, @domains) whose mail it accepts; mail from anyone else is refused. " +
        "Empty: it accepts none until senders are given",
    ),
});

/** A member of the caller's workspace (GET /members, PUT /members/:user). */
export const memberResponse = z.object({
  userId: z.string(),
  joinedAt: dateTime,
  removedAt: dateTime
    .nullable()
    .describe("Set while an admin has removed the member: their token is refused with 403"),
  email: z
    .string()
    .nullable()
    .describe("The address the member is tied to among people (PUT /members/:user with email)"),
});

export const membersResponse = z.object({
  workspace: z.string().describe("The workspace of the caller's token"),
  members: z.array(memberResponse),
});

/** A team of the caller's workspace (GET/PUT /teams/:team). */
export const teamResponse = z.object({
  id: z.string(),
  name: z.string(),
  members: z.array(z.string()).describe("User ids of the members"),
  createdAt: dateTime,
  updatedAt: dateTime,
});

export const teamsResponse = z.object({ teams: z.array(teamResponse) });

export const auditEventResponse = z.object({
  id: z.uuid(),
  at: dateTime,
  workspaceId: z.string(),
  actor: z.string().describe("Who acted, as the workspace names them, or erased:<hash> after an erase"),
  subject: z.string().describe("Whose memory or items (`ada`, `team:payments`), or erased:<hash>"),
  action: z.enum(AUDIT_ACTIONS),
  channel: z.enum(AUDIT_CHANNELS),
  client: z.string().nullable().describe("The MCP client's name/version, else the User-Agent's product"),
  requestId: z.string(),
  version: z.uuid().nullable().describe("The memory version served"),
  itemIds: z.array(z.uuid()).describe("The items read or returned"),
  queryHash: z.string().nullable().describe("A search's query as hex SHA-256 (never its text)"),
  status: z.number().int().describe("The answer's status (304s and refusals included)"),
});

export const auditPageResponse = z.object({
  events: z.array(auditEventResponse),
  nextCursor: z.string().nullable(),
  items: z
    .array(z.object({ id: z.uuid(), kind, title: z.string().nullable() }))
    .describe("The titles of the events' items the caller may see (the first 5 of each event)"),
});

const modelSpend = z.object({
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  calls: z.number().int(),
  estimatedCostUsd: z.number().nullable().describe("null: the model has no price in MODEL_PRICES"),
});

export const usageDayResponse = z.object({
  date: z.iso.date(),
  runs: z.number().int(),
  runsByOutcome: z.object({
    succeeded: z.number().int(),
    rejected: z.number().int(),
    failed: z.number().int(),
    budgetExhausted: z.number().int(),
  }),
  llmCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  byModel: z.record(z.string(), modelSpend),
  reads: z.number().int().describe("Reads of the memory that day"),
  estimatedCostUsd: z.number().describe("The priced models' cost (unpriced models show tokens only)"),
});

export const myUsageResponse = z.object({
  since: z.iso.date(),
  until: z.iso.date(),
  days: z.array(usageDayResponse),
});

export const workspaceUsageResponse = z.object({
  since: z.iso.date(),
  until: z.iso.date(),
  sort: z.enum(["cost", "tokens", "subject"]),
  subjects: z.array(
    z.object({
      subject: z.string(),
      runs: z.number().int(),
      llmCalls: z.number().int(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      reads: z.number().int(),
      estimatedCostUsd: z.number(),
      days: z.array(usageDayResponse),
    }),
  ),
});

/** GET /memory's 200: a memory, the empty answer, or (asOf) a past version. */
export const memoryAnswer = z.union([memoryResponse, emptyMemoryResponse, memoryAsOfResponse]);
