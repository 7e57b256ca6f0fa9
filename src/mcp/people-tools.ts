/**
 * The caller's people over MCP: `find_people` (GET /people) and `get_person` (GET /people/:id), the same
 * operations and answers: a person is every address and account one human uses, as far as the items the
 * caller may see and the workspace's corrections tell.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { getPerson, listPeople } from "../app/people";
import * as op from "../contract/people-operations";
import type { McpContext } from "./deps";
import { needsScope } from "./scopes";
import { toolInput, validArguments } from "./tool-input";
import { guarded, jsonSafe, orToolError, toolSuccess } from "./tool-result";

const query = op.peopleQuery.shape;
const findInput = z.object({
  query: query.q.describe(
    "A name, an address or an account (any part, any case); omit to list the most involved",
  ),
  limit: query.limit.describe("How many people"),
  cursor: query.cursor.describe("nextCursor of the previous page"),
});
const getInput = z.object({ id: z.string().min(1).max(100).describe("A person id from find_people") });

export function registerPeopleTools(server: McpServer, context: McpContext): void {
  const { services, caller } = context;
  const canRead = needsScope(caller, "memory:read");
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  server.registerTool(
    "find_people",
    {
      title: "Find the user's people",
      description:
        "The people in the user's workspace, most involved first: each person once, with every address and " +
        "account they use (email, Slack, GitHub, phone), how many items name them and when they were last " +
        "seen. The user herself is marked self. Use an id with get_person, or with search_items' person.",
      inputSchema: toolInput(findInput),
      outputSchema: orToolError(op.listPeople.answers[200].schema),
      annotations: readOnly,
      scopeChallenge: canRead,
    },
    (args) =>
      guarded(context, async () => {
        const input = validArguments(args);
        const page = await listPeople(services, caller, {
          q: input.query,
          limit: input.limit,
          cursor: input.cursor,
        });
        const text =
          page.people.length === 0
            ? "No people match."
            : page.people
                .map(
                  (p) =>
                    `${p.id} ${p.name}${p.self ? " (you)" : ""}: ${p.items} items; ${p.identifiers.map((i) => `${i.kind}:${i.value}`).join(", ")}`,
                )
                .join("\n") +
              (page.nextCursor ? `\n(more: cursor ${page.nextCursor})` : "") +
              (page.complete ? "" : "\n(the people of your newest items: older items were not read)");
        return toolSuccess(jsonSafe(page), text);
      }),
  );

  server.registerTool(
    "get_person",
    {
      title: "One person",
      description:
        "One person: every identifier with the names it carried, how it is linked (hard: one record ties it; " +
        "scored: by names and addresses, with a confidence; confirmed: by a member), its evidence items and " +
        "the person's recent items (read them with get_item). A saved id answers the person it became part of.",
      inputSchema: toolInput(getInput),
      outputSchema: orToolError(op.getPerson.answers[200].schema),
      annotations: readOnly,
      scopeChallenge: canRead,
    },
    (args) =>
      guarded(context, async () => {
        const { id } = validArguments(args);
        const person = await getPerson(services, caller, id);
        const text = [
          `${person.name} (${person.id}), ${person.items} items`,
          ...person.identifiers.map(
            (i) =>
              `- ${i.key} ${i.link}${i.link === "scored" ? ` ${i.confidence}` : ""}${i.names.length ? `: ${i.names.join(", ")}` : ""}`,
          ),
          `recent items: ${person.recentItems.join(", ")}`,
        ].join("\n");
        return toolSuccess(jsonSafe(person), text);
      }),
  );
}
