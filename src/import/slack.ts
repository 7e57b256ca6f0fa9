/**
 * Slack workspace export (the unzipped folder): users.json, channels.json, groups.json, dms.json, mpims.json
 * and one folder per conversation of <YYYY-MM-DD>.json day files. One `message` item per message.
 */
import { type ItemPerson, keepValid, MAX_ITEM_PEOPLE } from "../domain/people/model";
import type { ImportEvent, ImportItem } from "./records";
import { renderSlackText, type SlackDirectory, type SlackPerson } from "./slack-text";
import { boundedText, storableText } from "./text";
import { baseName, dirName, isoFromEpochSeconds, isRecord, normalizePath, str, unique } from "./text-utils";

export interface ExportFile {
  path: string;
  text: string;
}

/** Channel events that are notices, not conversation: skipped and counted. */
const NOTICE_SUBTYPES = new Set([
  "channel_join",
  "channel_leave",
  "group_join",
  "group_leave",
  "channel_topic",
  "channel_purpose",
  "channel_name",
  "channel_archive",
  "channel_unarchive",
  "group_topic",
  "group_purpose",
  "group_name",
  "group_archive",
  "group_unarchive",
  "bot_add",
  "bot_remove",
  "bot_enable",
  "bot_disable",
  "pinned_item",
  "unpinned_item",
  "reminder_add",
  "reminder_delete",
  "channel_convert_to_private",
  "channel_convert_to_public",
  "sh_room_created",
  "huddle_thread",
  "tombstone",
]);

interface Conversation {
  id: string;
  title: string;
  name: string;
  type: "channel" | "private_channel" | "dm" | "group_dm";
  members: string[];
}

interface Located {
  msg: Record<string, unknown>;
  file: string;
  position: string;
}

const LISTS: [string, Conversation["type"]][] = [
  ["channels.json", "channel"],
  ["groups.json", "private_channel"],
  ["dms.json", "dm"],
  ["mpims.json", "group_dm"],
];

function parseJson(file: ExportFile): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(file.text.replace(/^\uFEFF/, "")) };
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${(error as Error).message}` };
  }
}

function readPeople(value: unknown): Map<string, SlackPerson> {
  const people = new Map<string, SlackPerson>();
  if (!Array.isArray(value)) return people;
  for (const u of value) {
    if (!isRecord(u) || typeof u.id !== "string") continue;
    const profile = isRecord(u.profile) ? u.profile : {};
    const name =
      str(u.real_name) ??
      str(profile.real_name) ??
      str(profile.display_name) ??
      str(u.name) ??
      "unknown user";
    const email = str(profile.email);
    const team = str(u.team_id) ?? str(profile.team);
    people.set(u.id, {
      name,
      display: email ? `${name} <${email}>` : name,
      account: team ? `${team}/${u.id}` : u.id,
      ...(email ? { email } : {}),
      ...(u.is_bot === true || u.id === "USLACKBOT" ? { bot: true } : {}),
    });
  }
  return people;
}

function conversationTitle(
  type: Conversation["type"],
  name: string,
  members: string[],
  people: Map<string, SlackPerson>,
) {
  if (type === "channel" || type === "private_channel") return `#${name}`;
  const names = members.map((id) => people.get(id)?.name ?? "unknown user");
  return type === "dm" ? `DM: ${names.join(", ")}` : `Group DM: ${names.join(", ")}`;
}

/** The export's root folder: where channels.json or users.json sits. */
function exportRoot(files: ExportFile[]): string {
  const marker = files.find((f) => ["channels.json", "users.json"].includes(baseName(f.path)));
  return marker ? dirName(marker.path) : "";
}

function relative(path: string, root: string): string {
  const p = normalizePath(path);
  return root && p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p;
}

/** The person or bot who wrote the message, as a display string with no raw ids. */
function authorOf(msg: Record<string, unknown>, people: Map<string, SlackPerson>): string {
  const botName = str(msg.username) ?? (isRecord(msg.bot_profile) ? str(msg.bot_profile.name) : undefined);
  if (msg.subtype === "bot_message" || (msg.bot_id && !msg.user)) return botName ?? "bot";
  const person = typeof msg.user === "string" ? people.get(msg.user) : undefined;
  if (person) return person.display;
  const profile = isRecord(msg.user_profile) ? msg.user_profile : {};
  return str(profile.real_name) ?? str(profile.display_name) ?? botName ?? "unknown user";
}

/** The item's structured people: the author and the mentioned users by their Slack accounts. */
function peopleOf(
  msg: Record<string, unknown>,
  author: string,
  mentioned: string[],
  people: Map<string, SlackPerson>,
): ItemPerson[] {
  const entry = (role: ItemPerson["role"], person: SlackPerson): ItemPerson => ({
    role,
    name: storableText(person.name, 500) ?? "unknown user",
    ...(person.email && person.email.length <= 320 ? { email: person.email } : {}),
    ...(person.account ? { handles: [{ kind: "slack", value: person.account }] } : {}),
    ...(person.bot ? { bot: true } : {}),
  });
  const out: ItemPerson[] = [];
  const botId = str(msg.bot_id);
  const userId = typeof msg.user === "string" ? msg.user : undefined;
  const person = userId ? people.get(userId) : undefined;
  if (msg.subtype === "bot_message" || (botId && !userId)) {
    out.push({
      role: "author",
      name: author,
      bot: true,
      ...(botId ? { handles: [{ kind: "slack", value: botId }] } : {}),
    });
  } else if (person) {
    out.push(entry("author", person));
  } else if (userId) {
    out.push({ role: "author", name: author, handles: [{ kind: "slack", value: userId }] });
  }
  for (const id of new Set(mentioned)) {
    const m = people.get(id);
    if (m && id !== userId) out.push(entry("mentioned", m));
  }
  return out.flatMap((p) => keepValid(p) ?? []).slice(0, MAX_ITEM_PEOPLE);
}

function filesOf(
  msg: Record<string, unknown>,
): { name: string; type?: string; size?: number; url?: string }[] {
  const list = Array.isArray(msg.files) ? msg.files : isRecord(msg.file) ? [msg.file] : [];
  return list.filter(isRecord).map((f) => ({
    name: str(f.name) ?? str(f.title) ?? "file",
    ...(str(f.mimetype) ? { type: str(f.mimetype) } : {}),
    ...(typeof f.size === "number" ? { size: f.size } : {}),
    ...((str(f.url_private) ?? str(f.permalink)) ? { url: str(f.url_private) ?? str(f.permalink) } : {}),
  }));
}

function attachmentText(msg: Record<string, unknown>): string[] {
  if (!Array.isArray(msg.attachments)) return [];
  return msg.attachments.filter(isRecord).flatMap((a) => {
    const lines = [str(a.pretext), str(a.title), str(a.text) ?? str(a.fallback)].filter(
      (line): line is string => line !== undefined,
    );
    return lines.length > 0 ? [lines.join("\n")] : [];
  });
}

/** Reads every conversation's day files, then yields one event per message in time order. */
export function* parseSlackExport(files: ExportFile[]): Iterable<ImportEvent> {
  const root = exportRoot(files);
  const byName = new Map(files.map((f) => [relative(f.path, root), f]));
  const usersFile = byName.get("users.json");
  let people = new Map<string, SlackPerson>();
  if (usersFile) {
    const parsed = parseJson(usersFile);
    if (parsed.ok) people = readPeople(parsed.value);
    else
      yield {
        type: "error",
        message: `users.json ${parsed.message}`,
        at: { file: usersFile.path, position: "file" },
      };
  } else {
    yield {
      type: "error",
      message: "users.json is missing: authors cannot be named",
      at: { file: root || ".", position: "export" },
    };
  }

  const conversations = new Map<string, Conversation>();
  for (const [list, type] of LISTS) {
    const file = byName.get(list);
    if (!file) continue;
    const parsed = parseJson(file);
    if (!parsed.ok || !Array.isArray(parsed.value)) {
      const message = parsed.ok ? "is not a JSON array" : parsed.message;
      yield { type: "error", message: `${list} ${message}`, at: { file: file.path, position: "file" } };
      continue;
    }
    for (const c of parsed.value) {
      if (!isRecord(c) || typeof c.id !== "string") continue;
      const members = Array.isArray(c.members)
        ? c.members.filter((m): m is string => typeof m === "string")
        : [];
      const name = str(c.name) ?? c.id;
      const conversation = {
        id: c.id,
        name,
        type,
        members,
        title: conversationTitle(type, name, members, people),
      };
      // Day files sit in a folder named after the channel (public/private/group DM) or the DM's id.
      conversations.set(type === "dm" ? c.id : name, conversation);
    }
  }
  const directory: SlackDirectory = {
    user: (id) => people.get(id),
    channelName: (id) => [...conversations.values()].find((c) => c.id === id)?.name,
  };

  const dayFiles = [...byName.entries()]
    .filter(([rel]) => /^[^/]+\/\d{4}-\d{2}-\d{2}\.json$/.test(rel))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const byFolder = new Map<string, ExportFile[]>();
  for (const [rel, file] of dayFiles) {
    const folder = rel.split("/")[0]!;
    const list = byFolder.get(folder);
    if (list) list.push(file);
    else byFolder.set(folder, [file]);
  }
  // One conversation at a time (edits, deletions and threads never cross conversations): only its
  // messages are held parsed, not the whole export's.
  for (const [folder, days] of byFolder) {
    const located: Located[] = [];
    for (const file of days) {
      const parsed = parseJson(file);
      if (!parsed.ok || !Array.isArray(parsed.value)) {
        const message = parsed.ok ? "is not a JSON array of messages" : parsed.message;
        yield { type: "error", message: `day file ${message}`, at: { file: file.path, position: "file" } };
        continue;
      }
      parsed.value.forEach((msg, i) => {
        located.push({
          msg: isRecord(msg) ? msg : { invalid: msg },
          file: file.path,
          position: `message ${i + 1}`,
        });
      });
    }
    const conversation =
      conversations.get(folder) ??
      ({
        id: folder,
        name: folder,
        type: "channel",
        members: [],
        title: `#${folder}`,
      } satisfies Conversation);
    yield* conversationEvents(conversation, located, people, directory);
  }
}

function* conversationEvents(
  conversation: Conversation,
  located: Located[],
  people: Map<string, SlackPerson>,
  directory: SlackDirectory,
): Iterable<ImportEvent> {
  // First pass: the latest edit and the deletions, which may come in later day files than the message.
  const edits = new Map<string, Record<string, unknown>>();
  const deleted = new Set<string>();
  for (const { msg } of located) {
    if (msg.subtype === "message_changed" && isRecord(msg.message) && typeof msg.message.ts === "string") {
      edits.set(msg.message.ts, msg.message);
    }
    if (msg.subtype === "message_deleted" && typeof msg.deleted_ts === "string") deleted.add(msg.deleted_ts);
  }
  const seen = new Set<string>();
  for (const { msg: raw, file, position } of located) {
    const at = { file, position };
    if (raw.subtype === "message_changed") {
      yield { type: "skipped", reason: "edit event (its latest text is kept on the message)", at };
      continue;
    }
    if (raw.subtype === "message_deleted") {
      yield { type: "skipped", reason: "deletion event", at };
      continue;
    }
    if (typeof raw.ts !== "string" || isoFromEpochSeconds(raw.ts) === null) {
      yield { type: "error", message: "message has no valid ts", at };
      continue;
    }
    if (typeof raw.subtype === "string" && NOTICE_SUBTYPES.has(raw.subtype)) {
      yield { type: "skipped", reason: `notice: ${raw.subtype}`, at };
      continue;
    }
    if (deleted.has(raw.ts)) {
      yield { type: "skipped", reason: "deleted later in the export", at };
      continue;
    }
    if (seen.has(raw.ts)) {
      const reason = raw.subtype === "thread_broadcast" ? "thread_broadcast duplicate" : "duplicate message";
      yield { type: "skipped", reason, at };
      continue;
    }
    seen.add(raw.ts);
    const msg = { ...raw, ...(edits.get(raw.ts) ?? {}) };
    yield { type: "item", item: toItem(conversation, msg, raw.ts, people, directory), at };
  }
}

function toItem(
  conversation: Conversation,
  msg: Record<string, unknown>,
  ts: string,
  people: Map<string, SlackPerson>,
  directory: SlackDirectory,
): ImportItem {
  const rendered = renderSlackText(typeof msg.text === "string" ? msg.text : "", directory);
  const attachments = attachmentText(msg).map((t) => renderSlackText(t, directory));
  const files = filesOf(msg);
  const body = boundedText(
    [
      rendered.text,
      ...attachments.map((a) => a.text),
      ...files.map((f) => `[file: ${f.name}${f.url ? ` ${f.url}` : ""}]`),
    ]
      .filter((part) => part.trim() !== "")
      .join("\n\n"),
  );
  const author = storableText(authorOf(msg, people), 500) ?? "unknown user";
  const mentioned = [...rendered.mentioned, ...attachments.flatMap((a) => a.mentioned)];
  const participants = unique([
    author,
    ...mentioned.flatMap((id) => storableText(people.get(id)?.display ?? "unknown user", 500) ?? []),
  ]).slice(0, 500);
  const itemPeople = peopleOf(msg, author, mentioned, people);
  const threadTs = typeof msg.thread_ts === "string" ? msg.thread_ts : undefined;
  const isReply = threadTs !== undefined && threadTs !== ts;
  const reactions = Array.isArray(msg.reactions)
    ? msg.reactions
        .filter(isRecord)
        .map((r) => ({ name: str(r.name) ?? "", count: typeof r.count === "number" ? r.count : 0 }))
    : [];
  return {
    externalId: `${conversation.id}:${ts}`,
    kind: "message",
    title: storableText(conversation.title, 1000) ?? `#${conversation.id}`,
    body: body.text,
    author,
    participants,
    ...(itemPeople.length > 0 ? { people: itemPeople } : {}),
    occurredAt: isoFromEpochSeconds(ts)!,
    metadata: {
      channel: conversation.name,
      channelId: conversation.id,
      conversationType: conversation.type,
      ts,
      ...(typeof msg.subtype === "string" ? { subtype: msg.subtype } : {}),
      ...(threadTs ? { threadTs } : {}),
      ...(typeof msg.reply_count === "number" ? { replyCount: msg.reply_count } : {}),
      ...(isRecord(msg.edited) ? { edited: true } : {}),
      ...(files.length > 0 ? { files: files.slice(0, 100) } : {}),
      ...(reactions.length > 0 ? { reactions: reactions.slice(0, 100) } : {}),
      ...(body.truncated ? { truncated: true } : {}),
    },
    ...(isReply ? { links: [{ externalId: `${conversation.id}:${threadTs}`, kind: "reply" }] } : {}),
  };
}
