/**
 * The conversations.json of a ChatGPT data export: one `note` per conversation, holding the branch the user last saw
 * (current_node followed up its parents), each message with who said it. Hidden, system, tool and empty messages are left out.
 */
import { type JsonRecord, jsonRecordsOfText } from "./json-records";
import type { ImportEvent, ImportItem } from "./records";
import { boundedText, storableText } from "./text";
import { isoFromEpochSeconds, isRecord, jsonObject, str } from "./text-utils";

export interface ChatgptFile {
  path: string;
  text: string;
}

const SPEAKERS: Record<string, string> = { user: "User", assistant: "ChatGPT" };

/** The text a message shows: string parts, and the text of multimodal parts (images are named, not inlined). */
function textOf(content: unknown): string {
  if (!isRecord(content)) return "";
  if (typeof content.text === "string") return content.text;
  if (!Array.isArray(content.parts)) return "";
  return content.parts
    .map((part) => {
      if (typeof part === "string") return part;
      if (isRecord(part) && typeof part.text === "string") return part.text;
      if (isRecord(part) && part.content_type === "image_asset_pointer") return "[image]";
      return "";
    })
    .filter((p) => p.trim() !== "")
    .join("\n");
}

interface Turn {
  speaker: string;
  text: string;
  at?: string;
}

/** The shown branch, oldest first: current_node up to the root (or the newest leaf when current_node is missing). */
function shownBranch(
  mapping: Record<string, unknown>,
  current: string | undefined,
): Record<string, unknown>[] {
  let id = current && isRecord(mapping[current]) ? current : undefined;
  if (!id) {
    const leaves = Object.entries(mapping).filter(
      ([, n]) => isRecord(n) && (!Array.isArray(n.children) || n.children.length === 0),
    );
    const time = (n: unknown) =>
      isRecord(n) && isRecord(n.message) ? Number(n.message.create_time ?? 0) : 0;
    id = leaves.sort(([, a], [, b]) => time(b) - time(a))[0]?.[0];
  }
  const chain: Record<string, unknown>[] = [];
  const visited = new Set<string>();
  while (id && !visited.has(id)) {
    visited.add(id);
    const node = mapping[id];
    if (!isRecord(node)) break;
    chain.push(node);
    id = str(node.parent);
  }
  return chain.reverse();
}

function turnsOf(branch: Record<string, unknown>[]): Turn[] {
  const turns: Turn[] = [];
  for (const node of branch) {
    const message = node.message;
    if (!isRecord(message)) continue;
    const role = isRecord(message.author) ? str(message.author.role) : undefined;
    const speaker = role ? SPEAKERS[role] : undefined;
    const hidden =
      isRecord(message.metadata) && message.metadata.is_visually_hidden_from_conversation === true;
    const internal = message.recipient !== undefined && message.recipient !== "all"; // a call to a tool
    const text = textOf(message.content).trim();
    if (!speaker || hidden || internal || text === "") continue;
    const at = isoFromEpochSeconds(typeof message.create_time === "number" ? message.create_time : 0);
    turns.push({ speaker, text, ...(at ? { at } : {}) });
  }
  return turns;
}

function toItem(conversation: Record<string, unknown>): ImportItem | { skip: string } | { error: string } {
  const id = str(conversation.conversation_id) ?? str(conversation.id);
  if (!id) return { error: "conversation has no id" };
  if (!isRecord(conversation.mapping)) return { error: "conversation has no message mapping" };
  const turns = turnsOf(shownBranch(conversation.mapping, str(conversation.current_node)));
  if (turns.length === 0) return { skip: "conversation has no visible messages" };
  const created =
    isoFromEpochSeconds(typeof conversation.create_time === "number" ? conversation.create_time : 0) ??
    turns[0]!.at;
  if (!created) return { error: "conversation has no create_time" };
  const title = storableText(str(conversation.title) ?? turns[0]!.text.slice(0, 80), 1000);
  const model = str(conversation.default_model_slug);
  const body = boundedText(turns.map((t) => `${t.speaker}: ${t.text}`).join("\n\n"));
  return {
    externalId: id,
    kind: "note",
    ...(title ? { title } : {}),
    body: body.text,
    author: "User",
    participants: [...new Set(turns.map((t) => t.speaker))],
    occurredAt: created,
    url: `https://chatgpt.com/c/${encodeURIComponent(id)}`,
    metadata: {
      messages: turns.length,
      ...(isoFromEpochSeconds(Number(conversation.update_time ?? 0))
        ? { updatedAt: isoFromEpochSeconds(Number(conversation.update_time)) }
        : {}),
      ...(model ? { model } : {}),
      ...(conversation.is_archived === true ? { archived: true } : {}),
      ...(body.truncated ? { truncated: true } : {}),
    },
  };
}

/** One conversation record (the CLI streams them with JsonRecordSplitter) → its event. */
export function chatgptEvent(record: JsonRecord, path: string): ImportEvent {
  const object = jsonObject(record, path, "conversation");
  if ("type" in object) return object;
  const { at } = object;
  const result = toItem(object.value);
  if ("skip" in result) return { type: "skipped", reason: result.skip, at };
  if ("error" in result) return { type: "error", message: result.error, at };
  return { type: "item", item: result, at };
}

/** A conversations.json held whole as text. */
export function* parseChatgpt(file: ChatgptFile): Iterable<ImportEvent> {
  for (const record of jsonRecordsOfText(file.text)) yield chatgptEvent(record, file.path);
}
