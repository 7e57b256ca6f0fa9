/**
 * Correcting a memory over MCP, as the HTTP statement routes do: `dismiss_statement` takes one statement the
 * user knows is wrong out of their (or a team's) memory at once, and later runs do not state it again
 * (items:write); `list_dismissals` shows what was dismissed (memory:read); `withdraw_dismissal` lets a
 * dismissed statement return at the next run (items:write).
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  dismissStatement,
  listDismissals,
  MAX_DISMISSAL_REASON_CHARS,
  withdrawDismissal,
} from "../app/statements";
import * as op from "../contract/operations";
import type { McpContext } from "./deps";
import { needsScope } from "./scopes";
import { subjectOf, teamArgument } from "./subject";
import { toolInput, validArguments } from "./tool-input";
import { guarded, jsonSafe, orToolError, toolSuccess } from "./tool-result";

export function registerDismissalTools(server: McpServer, context: McpContext): void {
  const { services, caller } = context;
  const canWrite = needsScope(caller, "items:write");

  server.registerTool(
    "dismiss_statement",
    {
      title: "Dismiss a wrong statement from the memory",
      description:
        "Removes one statement of the user's memory that the user says is wrong or out of date (its id is in " +
        "get_memory with format json), at once, and records the dismissal so later refreshes do not state " +
        "it again; the items it cites stay. With team: a statement of a team's memory the user belongs to. " +
        "Only when the user asks for it.",
      inputSchema: toolInput(
        z.object({
          id: z
            .string()
            .min(1)
            .max(200)
            .describe("The statement's id (statements[].id of get_memory, format json)"),
          reason: z
            .string()
            .max(MAX_DISMISSAL_REASON_CHARS)
            .optional()
            .describe("Why it is wrong, in the user's words"),
          team: teamArgument,
        }),
      ),
      outputSchema: orToolError(op.ownMemory.dismissStatement.answers[201].schema),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
      scopeChallenge: canWrite,
    },
    (args) =>
      guarded(context, async () => {
        const { id, reason, team } = validArguments(args);
        const subject = await subjectOf(context, team);
        const result = await dismissStatement(services, subject, id, reason?.trim() || null);
        return toolSuccess(
          jsonSafe(result),
          `Dismissed "${result.dismissal.text}" (dismissal ${result.dismissal.id}); later runs will not state it again.`,
        );
      }),
  );

  server.registerTool(
    "list_dismissals",
    {
      title: "List the statements dismissed from the memory",
      description:
        "The statements the user (or, with team, a member of the team) dismissed as wrong, newest first, " +
        "each with its reason; withdraw_dismissal takes a dismissal's id.",
      inputSchema: toolInput(z.object({ team: teamArgument })),
      outputSchema: orToolError(op.ownMemory.listDismissals.answers[200].schema),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      scopeChallenge: needsScope(caller, "memory:read"),
    },
    (args) =>
      guarded(context, async () => {
        const { team } = validArguments(args);
        const result = await listDismissals(services, await subjectOf(context, team));
        const lines = result.dismissals.map(
          (d) => `- ${d.id}: "${d.text}"${d.reason ? ` (${d.reason})` : ""}, ${d.at}`,
        );
        return toolSuccess(
          jsonSafe(result),
          lines.length > 0 ? lines.join("\n") : "No statement of this memory is dismissed.",
        );
      }),
  );

  server.registerTool(
    "withdraw_dismissal",
    {
      title: "Withdraw a dismissal",
      description:
        "Withdraws a dismissal (its id from list_dismissals) when the user says the statement was right after " +
        "all: the next refresh may state it again. With team: a dismissal of a team's memory.",
      inputSchema: toolInput(
        z.object({
          id: z.string().min(1).max(100).describe("The dismissal's id (list_dismissals)"),
          team: teamArgument,
        }),
      ),
      outputSchema: orToolError(z.object({ id: z.string(), withdrawn: z.literal(true) })),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      scopeChallenge: canWrite,
    },
    (args) =>
      guarded(context, async () => {
        const { id, team } = validArguments(args);
        await withdrawDismissal(services, await subjectOf(context, team), id);
        return toolSuccess(
          { id, withdrawn: true as const },
          `Withdrew dismissal ${id}; the next refresh may state it again.`,
        );
      }),
  );
}
