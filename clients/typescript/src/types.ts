/**
 * Names for the API's bodies, read off the types generated from its OpenAPI document
 * (generated/openapi.ts, `npm run clients:generate`): a change of the contract changes them.
 */
import type { components, operations } from "./generated/openapi.js";

type JsonOf<
  O extends keyof operations,
  S extends keyof operations[O]["responses"],
> = operations[O]["responses"][S] extends {
  content: { "application/json": infer T };
}
  ? T
  : never;

type RequestOf<O extends keyof operations> = operations[O]["requestBody"] extends
  | { content: { "application/json": infer T } }
  | undefined
  ? T
  : never;

/** An item as POST /items takes it. */
export type ItemInput = RequestOf<"ingestItems">["items"][number];
export type ItemKind = ItemInput["kind"];
/** What POST /items answered for one item. */
export type IngestedItem = JsonOf<"ingestItems", 200>["items"][number];
export type UpsertStatus = IngestedItem["status"];

export type SearchPage = JsonOf<"searchItems", 200>;
export type SearchHit = SearchPage["items"][number];
/** GET /items/:id: the item with its links both ways. */
export type Item = JsonOf<"getItem", 200>;

type MemoryBody = JsonOf<"getMemory", 200>;
/** A memory (markdown in `memory`, or `statements` with format json). */
export type MemoryDocument = Exclude<MemoryBody, { empty: true } | { asOf: string }>;
/** The memory as it was at an instant (GET /memory?asOf=). */
export type PastMemory = Extract<MemoryBody, { asOf: string }>;
/** The subject can see no item yet: nothing to remember, no run asked for. */
export type EmptyMemory = Extract<MemoryBody, { empty: true }>;
export type Citation = MemoryDocument["citations"][number];
export type Statement = NonNullable<MemoryDocument["statements"]>[number];
export type Generating = JsonOf<"getMemory", 202>;
export type RefreshAnswer = JsonOf<"refreshMemory", 202>;

export type RunsPage = JsonOf<"listRuns", 200>;
export type Run = RunsPage["runs"][number];
export type VersionsPage = JsonOf<"listVersions", 200>;
export type VersionSummary = VersionsPage["versions"][number];
export type Version = JsonOf<"getVersion", 200>;

/** GET /people: one page of the caller's people. */
export type PeoplePage = JsonOf<"listPeople", 200>;
export type Person = PeoplePage["people"][number];
/** GET /people/:id: every identifier with its names, link and evidence. */
export type PersonDetail = JsonOf<"getPerson", 200>;
export type Suggestions = JsonOf<"peopleSuggestions", 200>;
export type CorrectionsList = JsonOf<"listPeopleCorrections", 200>;
/** A member's people correction (merge, split or distinct). */
export type Correction = JsonOf<"mergePeople", 201>;
export type MembersList = JsonOf<"listMembers", 200>;
export type Member = JsonOf<"addMember", 200>;
export type TeamsList = JsonOf<"listTeams", 200>;
export type Team = JsonOf<"getTeam", 200>;
export type TeamInput = RequestOf<"putTeam">;
export type IngestAddress = JsonOf<"issueIngestAddress", 201>;

export type ErrorBody = components["schemas"]["Error"];

export type AuditPage = JsonOf<"myAudit", 200>;
/** One audit event: who did what to whose memory or items, when, on which channel. */
export type AuditEvent = AuditPage["events"][number];
export type AuditAction = AuditEvent["action"];
/** GET /me/usage: the caller's days with anything on them, oldest first. */
export type Usage = JsonOf<"myUsage", 200>;
export type UsageDay = Usage["days"][number];
/** GET /usage: each subject of the workspace with its totals and days. */
export type WorkspaceUsage = JsonOf<"workspaceUsage", 200>;
export type SubjectUsage = WorkspaceUsage["subjects"][number];

export type VersionDiff = JsonOf<"diffVersion", 200>;
export type Dismissed = JsonOf<"dismissStatement", 201>;
export type DismissalsList = JsonOf<"listDismissals", 200>;
/** A statement the subject dismissed: later runs are told, and a restatement of it is dropped. */
export type Dismissal = DismissalsList["dismissals"][number];

/** POST /webhooks: the URL, the events it receives and an optional description. */
export type WebhookInput = RequestOf<"createWebhook">;
export type WebhookPatch = RequestOf<"updateWebhook">;
/** A webhook endpoint (never its secret): whether it is enabled, and why the service disabled it. */
export type Webhook = JsonOf<"getWebhook", 200>;
export type WebhookEventType = Webhook["events"][number];
/** The registered endpoint with its signing secret, answered this once. */
export type WebhookCreated = JsonOf<"createWebhook", 201>;
export type WebhooksList = JsonOf<"listWebhooks", 200>;
export type WebhookSecretRotated = JsonOf<"rotateWebhookSecret", 200>;
export type WebhookDeliveriesList = JsonOf<"listWebhookDeliveries", 200>;
/** One delivery of an event to the endpoint: status, attempts, the receiver's last answer or the error. */
export type WebhookDelivery = WebhookDeliveriesList["deliveries"][number];
/** An import through the service (POST /imports): its status, how far it got, and its summary. */
export type Import = JsonOf<"getImport", 200>;
export type ImportStatus = Import["status"];
export type ImportsList = JsonOf<"listImports", 200>;
