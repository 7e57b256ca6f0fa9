import { z } from "zod";
import { fromVerifiedOf } from "../domain/email-authentication";
import { ITEM_KINDS } from "../domain/item-schema";
import { type Item, type ItemLink, type ItemStore, type ItemSummary, whileSearching } from "../domain/items";
import { type ContentBlock, INVALID_TOOL_INPUT, type ToolDefinition } from "../domain/llm";
import type { Person } from "../domain/people/model";
import {
  keyPeopleOf,
  type PeopleView,
  peopleFilter,
  peopleMatching,
  recentItemsOf,
} from "../domain/people-view";
import { REF_SHAPE, type RefTable } from "./refs";
import { truncate, untrusted } from "./untrusted";
import { TOOL_NAMES } from "./wire-format";

/** Bounds on what one tool result can put in front of the model. */
export const TOOL_LIMITS = {
  snippetChars: 300,
  bodyChars: 4000,
  titleChars: 200,
  nameChars: 120,
  defaultLimit: 10,
  maxLimit: 25,
  errorChars: 500,
} as const;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

const isoDate = z
  .string()
  .trim()
  .refine((v) => ISO_DATE.test(v) && !Number.isNaN(Date.parse(v)), {
    message: "must be an ISO 8601 date or date-time, e.g. 2025-03-01 or 2025-03-01T09:00:00Z",
  })
  .describe("ISO 8601 date or date-time, e.g. 2025-03-01 or 2025-03-01T09:00:00Z");

const ref = z
  .string()
  .trim()
  .refine((v) => REF_SHAPE.test(v.toUpperCase()), { message: "must be a ref from a tool result, e.g. E12" })
  .describe("An item ref from an earlier tool result, e.g. E12");

const kinds = z.array(z.enum(ITEM_KINDS)).min(1).max(ITEM_KINDS.length).describe("Only these item kinds");
const limit = z.number().int().min(1).max(TOOL_LIMITS.maxLimit).default(TOOL_LIMITS.defaultLimit);

/**
 * One zod schema per tool: it is both the JSON schema the model sees and the validation of its input.
 * None of them takes a user: every handler is bound to the subject when the tool set is built.
 */
export const TOOL_SCHEMAS = {
  [TOOL_NAMES.searchItems]: z.strictObject({
    query: z.string().trim().min(1).max(300).describe("Full-text query over titles and bodies"),
    kinds: kinds.optional(),
    since: isoDate.optional(),
    until: isoDate.optional(),
    people: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(10)
      .optional()
      .describe("Author or participant"),
    person: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "Only items naming this person in any channel: a person id from top_people or person, or a name",
      ),
    limit,
  }),
  [TOOL_NAMES.readItem]: z.strictObject({ ref }),
  [TOOL_NAMES.recentActivity]: z.strictObject({ since: isoDate, kinds: kinds.optional(), limit }),
  [TOOL_NAMES.linkedItems]: z.strictObject({ ref }),
  [TOOL_NAMES.topPeople]: z.strictObject({ since: isoDate.optional(), limit }),
  [TOOL_NAMES.person]: z.strictObject({
    ref: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe("A person id from top_people, a name, or an identifier such as email:ada@example.com"),
  }),
} as const;

export type ToolName = keyof typeof TOOL_SCHEMAS;

const DESCRIPTIONS: Record<ToolName, string> = {
  [TOOL_NAMES.searchItems]:
    "Search over the subject's workspace (emails, messages, tasks, docs, calls, events, files, pull requests, contacts, notes) by words and by meaning (hybrid when the service has an embedding model): a question or a paraphrase finds items too. Returns item cards with refs and snippets.",
  [TOOL_NAMES.readItem]: "Reads one item in full (body bounded) by its ref.",
  [TOOL_NAMES.recentActivity]: "Items that occurred or changed since a date, newest first.",
  [TOOL_NAMES.linkedItems]: "Items linked to an item (@-mentions, replies, references), in both directions.",
  [TOOL_NAMES.topPeople]:
    "The people the subject deals with most (never the subject herself), optionally since a date: each person once, however many addresses and accounts they use, with their id, how many identifiers and how many items.",
  [TOOL_NAMES.person]:
    "One person: their identifiers (addresses, chat and code accounts) with the names each carried, and their most recent items.",
};

/** The tool definitions offered to the generator model, derived from the schemas. */
export const RESEARCH_TOOL_DEFINITIONS: ToolDefinition[] = Object.entries(TOOL_SCHEMAS).map(
  ([name, schema]) => {
    const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(schema, { io: "input" }) as Record<
      string,
      unknown
    >;
    return { name, description: DESCRIPTIONS[name as ToolName], inputSchema };
  },
);

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type ToolResult = Extract<ContentBlock, { type: "tool_result" }>;

export interface ResearchTools {
  definitions: ToolDefinition[];
  /** Never throws: bad input, unknown refs and store failures come back as is_error results. */
  execute(call: ToolCall): Promise<ToolResult>;
}

/** Thrown by handlers for problems the model should see and can fix. */
class ToolInputError extends Error {}

/** Builds the research tools for one run, bound to the subject: no tool can name another user. */
export function createResearchTools(deps: {
  subjectKey: string;
  items: ItemStore;
  refs: RefTable;
  /** The subject's people (resolved once a run); without it top_people groups author and participant strings. */
  people?: () => Promise<PeopleView>;
}): ResearchTools {
  const { subjectKey, items, refs, people } = deps;
  const personNamed = async (ref: string): Promise<{ view: PeopleView; person: Person }> => {
    if (!people) throw new ToolInputError("people are not available in this run; use people names instead");
    const view = await people();
    const found = peopleMatching(view, ref);
    if (found.length === 0)
      throw new ToolInputError(`no person matches ${truncate(ref, 100)}; use top_people`);
    return { view, person: found[0]! };
  };

  const card = (item: ItemSummary) => ({
    ref: refs.register(item),
    kind: item.kind,
    title: item.title === null ? null : untrusted(item.title, TOOL_LIMITS.titleChars),
    author: item.author === null ? null : truncate(item.author, TOOL_LIMITS.nameChars),
    occurredAt: item.occurredAt.toISOString(),
  });
  const withSnippet = (item: ItemSummary, text: string) => ({
    ...card(item),
    snippet: untrusted(text, TOOL_LIMITS.snippetChars),
  });
  const linkCard = (link: ItemLink) => ({ ...card(link.item), direction: link.direction, link: link.kind });
  // A message received by email says whether the receiving server's checks verified its From (its author).
  const fromMarker = (item: Item) => {
    const verified = fromVerifiedOf(item.metadata);
    return verified === undefined ? {} : { fromVerified: verified ? "yes" : "no" };
  };

  const resolve = (value: string) => {
    const entry = refs.resolve(value);
    if (!entry) throw new ToolInputError(`unknown ref ${value}: use a ref from an earlier tool result`);
    return entry;
  };

  /** A person and people names through the subject's people (without them, names stay a text match). */
  const byPeople = async (person: string | undefined, names: string[] | undefined) => {
    const named = person ? [(await personNamed(person)).person] : [];
    if (!people || (named.length === 0 && !names?.length)) return undefined;
    return peopleFilter(await people(), named, names ?? []);
  };

  const handlers: { [K in ToolName]: (input: z.output<(typeof TOOL_SCHEMAS)[K]>) => Promise<unknown> } = {
    search_items: async (input) => {
      const page = await items.search(subjectKey, {
        q: input.query,
        mode: "hybrid",
        kinds: input.kinds,
        since: input.since ? new Date(input.since) : undefined,
        until: input.until ? new Date(input.until) : undefined,
        people: input.people,
        involving: whileSearching(byPeople(input.person, input.people)),
        limit: input.limit,
      });
      return { items: page.items.map((hit) => withSnippet(hit, hit.snippet)) };
    },
    read_item: async (input) => {
      const entry = resolve(input.ref);
      const item = await items.get(subjectKey, entry.id);
      if (!item) throw new ToolInputError(`item ${entry.ref} is no longer available`);
      return {
        ...card(item),
        ...fromMarker(item),
        participants: item.participants.slice(0, 20).map((p) => truncate(p, TOOL_LIMITS.nameChars)),
        body: untrusted(item.body, TOOL_LIMITS.bodyChars),
        links: item.links.slice(0, TOOL_LIMITS.maxLimit).map(linkCard),
      };
    },
    recent_activity: async (input) => {
      const found = await items.recent(subjectKey, {
        since: new Date(input.since),
        kinds: input.kinds,
        limit: input.limit,
      });
      return { items: found.map((item: Item) => ({ ...withSnippet(item, item.body), ...fromMarker(item) })) };
    },
    linked_items: async (input) => {
      const entry = resolve(input.ref);
      const links = await items.linked(subjectKey, entry.id);
      return { items: links.slice(0, TOOL_LIMITS.maxLimit).map(linkCard) };
    },
    top_people: async (input) => {
      if (people) return { people: topPeopleOf(await people(), input) };
      const found = await items.topPeople(subjectKey, {
        since: input.since ? new Date(input.since) : undefined,
        limit: input.limit,
      });
      return {
        people: found.map((p) => ({ person: truncate(p.person, TOOL_LIMITS.nameChars), items: p.items })),
      };
    },
    person: async (input) => {
      const { view, person } = await personNamed(input.ref);
      const recent = await items.getMany(subjectKey, recentItemsOf(view, person, TOOL_LIMITS.defaultLimit));
      recent.sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime());
      return {
        id: person.id,
        name: truncate(person.name, TOOL_LIMITS.nameChars),
        self: person.isSelf,
        identifiers: person.identifiers.slice(0, TOOL_LIMITS.maxLimit).map((i) => ({
          kind: i.kind,
          value: truncate(i.value, TOOL_LIMITS.nameChars),
          names: i.names.slice(0, 5).map((n) => truncate(n, TOOL_LIMITS.nameChars)),
        })),
        items: person.items.length,
        recentItems: recent.map((item) => withSnippet(item, item.body)),
      };
    },
  };

  const failure = (call: ToolCall, message: string): ToolResult => ({
    type: "tool_result",
    toolCallId: call.id,
    content: JSON.stringify({ error: truncate(message, TOOL_LIMITS.errorChars) }),
    isError: true,
  });

  return {
    definitions: RESEARCH_TOOL_DEFINITIONS,
    async execute(call) {
      if (!Object.hasOwn(TOOL_SCHEMAS, call.name)) {
        return failure(call, `unknown tool ${call.name}; available: ${Object.keys(TOOL_SCHEMAS).join(", ")}`);
      }
      const name = call.name as ToolName;
      if (isInvalidInput(call.input)) {
        return failure(
          call,
          `the arguments for ${name} are not a JSON object: ${String(call.input[INVALID_TOOL_INPUT]).slice(0, 200)}`,
        );
      }
      const parsed = TOOL_SCHEMAS[name].safeParse(call.input);
      if (!parsed.success)
        return failure(call, `invalid input for ${name}: ${z.prettifyError(parsed.error)}`);
      try {
        // The handler matches the schema by name; TypeScript cannot correlate the two through the index.
        const handler = handlers[name] as (input: unknown) => Promise<unknown>;
        const result = await handler(parsed.data);
        return { type: "tool_result", toolCallId: call.id, content: JSON.stringify(result) };
      } catch (error) {
        if (error instanceof ToolInputError) return failure(call, error.message);
        return failure(call, `${name} failed; try again or continue with what you have`);
      }
    },
  };
}

/** The subject's key people as top_people answers them (domain/people-view.ts keyPeopleOf). */
function topPeopleOf(view: PeopleView, input: { since?: string; limit: number }) {
  const since = input.since ? new Date(input.since).toISOString() : undefined;
  return keyPeopleOf(view, { limit: input.limit, ...(since ? { since } : {}) }).map(({ person, items }) => ({
    id: person.id,
    person: truncate(person.name, TOOL_LIMITS.nameChars),
    identifiers: person.identifiers.length,
    items,
  }));
}

/** Adapters mark a call whose arguments were not a JSON object (see INVALID_TOOL_INPUT). */
function isInvalidInput(input: unknown): input is Record<typeof INVALID_TOOL_INPUT, unknown> {
  return typeof input === "object" && input !== null && Object.hasOwn(input, INVALID_TOOL_INPUT);
}
