/**
 * Reading the caller's workspace over MCP: `search_items`, `get_item` and the `item://{id}` resource. Same
 * store, same access rule and the same request schema as GET /items: another user's item is "not found".
 */
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";
import { searchSchema } from "../app/item-input";
import { getItem, searchItems, statementsCiting } from "../app/items";
import * as op from "../contract/operations";
import { fromVerifiedOf } from "../domain/email-authentication";
import type { Item, ItemLink, SearchHit } from "../domain/items";
import { PAGE_LIMIT } from "../domain/pages";
import type { McpContext } from "./deps";
import { needsScope } from "./scopes";
import { subjectOf, teamArgument } from "./subject";
import { toolInput, validArguments } from "./tool-input";
import { audited, guarded, jsonSafe, orToolError, resourceError, toolSuccess } from "./tool-result";

const shape = searchSchema.shape;

/** GET /items's query schema, field by field (so validation cannot drift), with names a model reads well. */
const searchInput = z.object({
  query: shape.q.describe(
    "What to look for: words, or a question in your own words; omit to list the most recent items",
  ),
  mode: shape.mode.describe(
    "hybrid: by words and by meaning, fused (the default when the service has an embedding model); " +
      "keyword: by words only (the default without one); semantic: by meaning only (an error without one)",
  ),
  kinds: shape.kinds.optional().describe("Only these kinds of item"),
  since: shape.since.describe("Only items that occurred at or after this date (YYYY-MM-DD or ISO 8601)"),
  until: shape.until.describe("Only items that occurred before this date"),
  people: shape.people
    .optional()
    .describe("Only items whose author or participants match these names, or naming a person by these names"),
  person: shape.person.optional().describe("Only items naming one of these people (ids from find_people)"),
  limit: shape.limit.describe(`How many results (1-${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default})`),
  cursor: shape.cursor.describe("nextCursor of the previous page"),
  team: teamArgument,
});

/** The answers of GET /items and GET /items/:id, which these tools mirror. */
const searchOutput = op.searchItems.answers[200].schema;
const itemOutput = op.getItem.answers[200].schema;

export function registerItemReadTools(server: McpServer, context: McpContext): void {
  const { services, caller } = context;
  const canRead = needsScope(caller, "memory:read");
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  server.registerTool(
    "search_items",
    {
      title: "Search the user's items",
      description:
        "Searches everything the user can see (emails, messages, tasks, docs, calls, events, files, pull " +
        "requests, contacts, notes) when the memory does not answer a question or you need the source of a " +
        "statement. Returns ranked results with a snippet; read one in full with get_item. With team: only the " +
        "items shared with that team (what its memory is made of), never a member's private items.",
      inputSchema: toolInput(searchInput),
      outputSchema: orToolError(searchOutput),
      annotations: readOnly,
      scopeChallenge: canRead,
    },
    (args) =>
      guarded(context, async () => {
        const { team, ...input } = validArguments(args);
        const page = await searchItems(
          services,
          await subjectOf(context, team),
          {
            ...input,
            q: input.query,
            kinds: input.kinds ?? [],
            people: input.people ?? [],
            person: input.person ?? [],
          },
          team ? undefined : caller.email,
        );
        const text =
          page.items.length === 0
            ? "No items match."
            : page.items.map(hitLine).join("\n") +
              (page.nextCursor ? `\n(more: cursor ${page.nextCursor})` : "");
        return toolSuccess(jsonSafe(page), text);
      }),
  );

  server.registerTool(
    "get_item",
    {
      title: "Read one item",
      description:
        "Reads one of the user's items in full (body, people, date, URL) with its links both ways (replies, " +
        "mentions, references) and the statements of the user's current memory citing it (citedBy). Use the ids " +
        "that search_items or the memory's citations give.",
      inputSchema: toolInput(z.object({ id: z.string().min(1).max(100).describe("The item's id") })),
      outputSchema: orToolError(itemOutput),
      annotations: readOnly,
      scopeChallenge: canRead,
    },
    (args) =>
      guarded(context, async () => {
        const { id } = validArguments(args);
        const item = await getItem(services, caller.subjectKey, id);
        const citedBy = await statementsCiting(services, caller.subjectKey, item.id);
        return toolSuccess(jsonSafe({ ...item, citedBy }), itemText(item));
      }),
  );

  server.registerResource(
    "item",
    new ResourceTemplate("item://{id}", { list: undefined }),
    {
      title: "One of the user's items",
      description: "An item the user can see, as text with its links",
      mimeType: "text/plain",
      scopeChallenge: canRead,
    },
    async (uri, variables) => {
      const id = String(variables.id ?? "");
      const item = await audited(context, () => getItem(services, caller.subjectKey, id)).catch(
        (err: unknown) => {
          throw resourceError(context, uri, err);
        },
      );
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: itemText(item) }] };
    },
  );
}

function hitLine(hit: SearchHit): string {
  const date = hit.occurredAt.toISOString().slice(0, 10);
  return `- ${hit.id} · ${hit.kind} · ${date} · ${hit.title ?? "(untitled)"}: ${hit.snippet}`;
}

function itemText(item: Item & { links: ItemLink[] }): string {
  const lines = [
    `${item.kind} ${item.id} (${item.source}:${item.externalId})`,
    `Title: ${item.title ?? "(untitled)"}`,
    `Date: ${item.occurredAt.toISOString()}`,
  ];
  if (item.author) lines.push(`Author: ${item.author}`);
  const verified = fromVerifiedOf(item.metadata);
  if (verified !== undefined) lines.push(`From verified: ${verified ? "yes" : "no"}`);
  if (item.participants.length > 0) lines.push(`Participants: ${item.participants.join("; ")}`);
  if (item.url) lines.push(`URL: ${item.url}`);
  lines.push("", item.body);
  if (item.links.length > 0) {
    lines.push("", "Links:");
    for (const link of item.links) {
      const arrow = link.direction === "outgoing" ? "→" : "←";
      lines.push(`${arrow} ${link.kind} ${link.item.id} · ${link.item.title ?? "(untitled)"}`);
    }
  }
  return lines.join("\n");
}
