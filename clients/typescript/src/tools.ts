/**
 * unified-memory-client/tools: the memory as tools for a model. Each tool carries one zod schema and
 * both call shapes, so the same object goes to the Vercel AI SDK's `tool()` (`execute`, an object
 * back) and to the Anthropic SDK's `betaZodTool()` / tool runner (`run`, JSON text back). A failure is
 * thrown as a UnifiedMemoryError, which both runners hand to the model as a tool error.
 */
import * as z from "zod/v4";
import type { UnifiedMemory } from "./client.js";
import type { ItemKind } from "./types.js";

const KINDS = [
  "email",
  "message",
  "task",
  "doc",
  "call",
  "event",
  "file",
  "pull_request",
  "contact",
  "note",
] as const satisfies readonly ItemKind[];
/** Fails to compile when the API gains a kind this list lacks. */
const everyKind: Exclude<ItemKind, (typeof KINDS)[number]> extends never ? true : never = true;
void everyKind;

export interface MemoryTool<Input, Output> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** The Vercel AI SDK's call: the result as an object. */
  execute(input: Input): Promise<Output>;
  /** The Anthropic tool runner's call: the result as JSON text. */
  run(input: Input): Promise<string>;
}

export interface MemoryToolsOptions {
  /** Seconds get_memory waits for a memory that is being generated (default 10). */
  wait?: number;
  /** Most hits search_items returns (default 10, at most 50). */
  maxHits?: number;
}

const getMemoryInput = z.object({
  team: z
    .string()
    .min(1)
    .optional()
    .describe("A team id, for the team's shared memory instead of the user's own"),
});

const searchInput = z.object({
  query: z.string().max(500).optional().describe("Words to look for; omit to list the newest items"),
  kinds: z.array(z.enum(KINDS)).max(10).optional().describe("Only these kinds of item"),
  since: z.string().optional().describe("Occurred at or after this ISO 8601 date or date-time"),
  until: z.string().optional().describe("Occurred before this ISO 8601 date or date-time"),
  people: z.array(z.string()).max(20).optional().describe("Authored by or involving these people"),
  limit: z.number().int().min(1).max(50).optional().describe("How many hits (default 10)"),
});

export type GetMemoryInput = z.infer<typeof getMemoryInput>;
export type SearchInput = z.infer<typeof searchInput>;

export type GetMemoryOutput =
  | {
      status: "ready";
      memory: string;
      generatedAt: string;
      stale: boolean;
      citations: {
        n: number;
        id: string;
        kind: string | null;
        title: string | null;
        occurredAt: string | null;
      }[];
    }
  | { status: "empty"; memory: "" }
  | { status: "generating"; retryAfter: number };

export interface SearchOutput {
  hits: {
    id: string;
    kind: string;
    title: string | null;
    author: string | null;
    occurredAt: string;
    snippet: string;
  }[];
}

const tool = <I, O>(spec: Omit<MemoryTool<I, O>, "run">): MemoryTool<I, O> => ({
  ...spec,
  run: async (input) => JSON.stringify(await spec.execute(input)),
});

/** The get_memory and search_items tools, acting as the client's token. */
export function memoryTools(client: UnifiedMemory, options: MemoryToolsOptions = {}) {
  const wait = options.wait ?? 10;
  const maxHits = Math.min(50, options.maxHits ?? 10);
  return {
    getMemory: tool<GetMemoryInput, GetMemoryOutput>({
      name: "get_memory",
      description:
        "The user's memory (or a team's): what matters about their work, people, projects, decisions and " +
        "commitments, as markdown; [n] cites citations[n-1]. Call it before answering about their context.",
      inputSchema: getMemoryInput,
      async execute({ team }) {
        const memory = team ? client.teams.memory(team) : client.memory;
        const result = await memory.get({ wait });
        switch (result.status) {
          case "ready":
            return {
              status: "ready",
              memory: result.memory ?? "",
              generatedAt: result.generatedAt,
              stale: result.stale,
              citations: result.citations.map((c, i) => ({ n: i + 1, ...c })),
            };
          case "empty":
            return { status: "empty", memory: "" };
          case "generating":
            return { status: "generating", retryAfter: result.retryAfter };
          case "not_modified":
          case "past":
            throw new Error("unreachable: get_memory sends no If-None-Match and no asOf");
        }
      },
    }),
    searchItems: tool<SearchInput, SearchOutput>({
      name: "search_items",
      description:
        "Full-text search over the user's emails, messages, documents, tasks, calls, events and notes " +
        "(what they own or what is shared with them), best matches first.",
      inputSchema: searchInput,
      async execute(input) {
        const limit = Math.min(maxHits, input.limit ?? maxHits);
        const hits = await client.items
          .search({
            ...(input.query ? { q: input.query } : {}),
            ...(input.kinds ? { kind: input.kinds } : {}),
            ...(input.since ? { since: input.since } : {}),
            ...(input.until ? { until: input.until } : {}),
            ...(input.people ? { people: input.people } : {}),
            limit,
          })
          .toArray(limit);
        return {
          hits: hits.map(({ id, kind, title, author, occurredAt, snippet }) => ({
            id,
            kind,
            title,
            author,
            occurredAt,
            snippet,
          })),
        };
      },
    }),
  };
}
