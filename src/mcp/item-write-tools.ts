/**
 * Writing to the caller's workspace over MCP (scope `items:write`): `remember` stores a note from the agent
 * (source `mcp`) through the same ingest path and item schema as POST /items, so it reaches the next memory;
 * `forget_item` deletes an item the caller owns with the same redaction as DELETE /items/:id.
 */
import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ingestItems, removeItem } from "../app/items";
import * as op from "../contract/operations";
import { AppError } from "../domain/errors";
import { ITEM_KINDS, itemInputSchema } from "../domain/item-schema";
import type { McpContext } from "./deps";
import { needsScope } from "./scopes";
import { toolInput, validArguments } from "./tool-input";
import { guarded, orToolError, toolSuccess } from "./tool-result";

export const MCP_SOURCE = "mcp";
const MAX_NOTE_CHARS = 50_000;

const rememberInput = z.object({
  text: z.string().trim().min(1).max(MAX_NOTE_CHARS).describe("What to remember, in the user's words"),
  title: z.string().max(200).optional().describe("A short title"),
  kind: z
    .enum(ITEM_KINDS)
    .optional()
    .describe("note (default) for a fact or preference; task for a commitment; doc for longer text"),
  occurredAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("When it happened or was said (ISO 8601 with zone); default now"),
});

export function registerItemWriteTools(server: McpServer, context: McpContext): void {
  const { services, caller } = context;
  const canWrite = needsScope(caller, "items:write");

  server.registerTool(
    "remember",
    {
      title: "Remember something about the user",
      description:
        "Stores a note in the user's workspace when they tell you something worth keeping (\"remember that I " +
        'prefer…", a decision, a commitment, a fact about a colleague). It becomes a source of the next memory ' +
        "refresh. Remembering the same text again updates that note instead of adding another.",
      inputSchema: toolInput(rememberInput),
      outputSchema: orToolError(op.ingestItems.answers[200].schema.shape.items.element),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      scopeChallenge: canWrite,
    },
    (args) =>
      guarded(context, async () => {
        const input = validArguments(args);
        const parsed = itemInputSchema.safeParse({
          source: MCP_SOURCE,
          externalId: await noteKey(input.text),
          kind: input.kind ?? "note",
          title: input.title,
          body: input.text,
          occurredAt: input.occurredAt ?? services.clock.now().toISOString(),
        });
        if (!parsed.success) {
          const problems = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
          throw new AppError("validation_failed", "The note is invalid", { details: { problems } });
        }
        const outcome = (await ingestItems(services, caller.subjectKey, [parsed.data]))[0]!;
        return toolSuccess({ ...outcome }, `Remembered (${outcome.status}) as item ${outcome.id}.`);
      }),
  );

  server.registerTool(
    "forget_item",
    {
      title: "Delete one of the user's items",
      description:
        "Permanently deletes an item the user owns (for example a note stored by remember that is wrong or " +
        "that they ask you to forget); on an item someone shared with the user, removes the user from the " +
        "share instead. Every memory statement citing it that the user can no longer see is removed at once. " +
        "Only when the user asks for it.",
      inputSchema: toolInput(z.object({ id: z.string().min(1).max(100).describe("The item's id") })),
      outputSchema: orToolError(z.object({ id: z.string(), deleted: z.boolean(), left: z.boolean() })),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      scopeChallenge: canWrite,
    },
    (args) =>
      guarded(context, async () => {
        const { id } = validArguments(args);
        const outcome = await removeItem(services, caller.subjectKey, id);
        const deleted = outcome === "deleted";
        return toolSuccess(
          { id, deleted, left: !deleted },
          deleted
            ? `Deleted item ${id}; memory statements citing it are gone.`
            : `Removed the user from the share of item ${id}; their memory no longer cites it.`,
        );
      }),
  );
}

/** Same text, same note: retries and repeats update one item instead of piling up copies. */
async function noteKey(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text.trim()));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `note-${hex.slice(0, 32)}`;
}
