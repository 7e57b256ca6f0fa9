/**
 * What the generator and judge models see and must answer, in one place. The agent loop, the prompts,
 * the parsers and the fake LLM's reference policies all follow this.
 *
 * Research tools (all read-only, scoped to the subject in SQL):
 *   search_items({ query, kinds?, since?, until?, people?, limit? })
 *   read_item({ ref })
 *   recent_activity({ since, kinds?, limit? })
 *   linked_items({ ref })
 *   top_people({ since?, limit? })
 * Tool results are JSON text. A list result is `{ "items": [ItemCard, ...] }`; read_item returns one
 * ItemCard plus `"body"`. Item text (title, body, snippet) is untrusted data, wrapped in
 * <untrusted>...</untrusted> inside the JSON string. Errors come back as tool results with is_error set
 * and a JSON body `{ "error": "..." }`.
 *
 * ItemCard: { ref: "E12", kind, title, author, occurredAt (ISO), snippet? }; read_item and recent_activity
 * cards of a message received by email add fromVerified: "yes" | "no" (whether the receiving server's
 * SPF/DKIM/DMARC checks vouch for its author's address).
 * Refs: a kind letter plus a per-run counter; the same item keeps its ref for the whole run.
 *
 * Final answer of the generator: exactly one <memory>...</memory> block. Inside: markdown sections
 * introduced by "## <Section name>", each statement one bullet line "- <text> [E12][M7]" whose
 * citations are at the end of the line.
 *
 * Previous memory (refresh): shown in the system prompt inside <previous_memory>...</previous_memory> in
 * the same bullet format, its citations already mapped to refs of THIS run (the loop registers the
 * previously cited items first), so the model can keep a statement by copying its line.
 * The digest of what changed since then is inside <changes_since_previous>...</changes_since_previous>:
 * counts by kind, busiest threads, most active people, then the changed items by ref (refs of this run),
 * newest first, each "- E4 email[, updated], <date>, <author>: <untrusted>title\ntext start</untrusted>".
 *
 * Judge: one user message holding the draft's statements, numbered from 0, one per line as
 *   <statement index="0" section="Current projects" cites="E12 M7">text</statement>
 * followed by the text of every cited item as
 *   <item ref="E12" kind="email" title="...">text</item>
 * It must call the `submit_verdict` tool with { accepted: boolean, reason: string, unsupported: number[] }.
 */

export const TOOL_NAMES = {
  searchItems: "search_items",
  readItem: "read_item",
  recentActivity: "recent_activity",
  linkedItems: "linked_items",
  topPeople: "top_people",
  person: "person",
} as const;

export const JUDGE_TOOL = "submit_verdict";

export const MEMORY_OPEN = "<memory>";
export const MEMORY_CLOSE = "</memory>";
export const UNTRUSTED_OPEN = "<untrusted>";
export const UNTRUSTED_CLOSE = "</untrusted>";

/** Ref prefix per item kind: E12 is an email, M7 a chat message. */
export const REF_PREFIX = {
  email: "E",
  message: "M",
  task: "T",
  doc: "D",
  call: "C",
  event: "V",
  file: "F",
  pull_request: "P",
  contact: "K",
  note: "N",
} as const;

/** The standard memory sections, in order. Others are allowed. */
export const SECTIONS = [
  "Role and team",
  "Current projects",
  "Key people and relationships",
  "Commitments and deadlines",
  "Decisions",
  "Preferences and working style",
] as const;

/** The standard sections of a team's memory. */
export const TEAM_SECTIONS = [
  "Mission and scope",
  "Current projects and owners",
  "Decisions",
  "Commitments and deadlines",
  "Key people and partners",
  "How the team works",
] as const;
