/**
 * What one item says about people: the identifiers it shows (with the name each carried there and its
 * role) and the hard links its own record makes (a structured person with several handles is one account).
 * Reads `author` and `participants` strings ("Name <addr>", bare addresses, phone numbers, bare names as
 * source-scoped handles) and the optional structured `people` field. Pure; bounded by the caller's limits
 * plus the caps below.
 */
import { textProblem } from "../safe-text";
import {
  type HardLink,
  type IdentifierKind,
  type ItemPeopleInput,
  identifier,
  identifierKey,
  isBotKey,
  MAX_ITEM_PEOPLE,
  MAX_PERSON_ALIASES,
  MAX_PERSON_HANDLES,
  MAX_PERSON_NAME,
  type Sighting,
} from "./model";

/** Strings read per item from author + participants, and characters per string. */
export const MAX_ITEM_STRINGS = 1000;
const MAX_STRING_CHARS = 1000;

export interface ItemSightings {
  sightings: Sighting[];
  hardLinks: HardLink[];
}

/** A display name made comparable to the eye: trimmed, inner spacing collapsed, quotes removed; null if empty. */
export function cleanName(raw: string | undefined | null): string | null {
  if (raw == null || textProblem(raw)) return null;
  const name = raw
    .replace(/^["'\s]+|["'\s]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (!name || name.length > MAX_PERSON_NAME || name.includes("@")) return null;
  return name;
}

/** Names exporters write when they do not know who it was: never a handle of anyone. */
const PLACEHOLDER_NAMES = new Set([
  "unknown user",
  "unknown",
  "bot",
  "anonymous",
  "user",
  "undisclosed recipients",
]);

/**
 * One author/participant string as an identifier and a name: `Name <addr>`, `addr`, `+44 ...`, or a bare
 * name, which becomes `handle:<source>/<name>` (an account of that source with no id, never a cross-source
 * name match).
 */
export function parsePersonString(text: string, source: string): { key: string; name: string | null } | null {
  if (text.length > MAX_STRING_CHARS || textProblem(text)) return null;
  const trimmed = text.trim();
  if (!trimmed) return null;
  const angle = /^(.*?)\s*<([^<>]+)>\s*$/.exec(trimmed);
  if (angle) {
    const id = identifier("email", angle[2]!);
    if (id) return { key: identifierKey(id), name: cleanName(angle[1]) };
  }
  const bare = identifier("email", trimmed);
  if (bare) return { key: identifierKey(bare), name: null };
  // `ada@acme.com (Ada Lovelace)`, the old RFC 822 comment form.
  const comment = /^(\S+@\S+)\s*\(([^()]*)\)$/.exec(trimmed);
  if (comment) {
    const id = identifier("email", comment[1]!);
    if (id) return { key: identifierKey(id), name: cleanName(comment[2]) };
  }
  if (/^[+(]?\d[\d\s().\-/]{5,}$/.test(trimmed)) {
    const phone = identifier("phone", trimmed);
    if (phone) return { key: identifierKey(phone), name: null };
  }
  const name = cleanName(trimmed);
  if (!name || PLACEHOLDER_NAMES.has(name.toLowerCase())) return null;
  const handle = identifier("handle", `${source}/${name}`);
  return handle ? { key: identifierKey(handle), name } : null;
}

/** The identifier of a structured handle, scoping speaker labels to the item and handles to its source. */
function handleKey(kind: IdentifierKind, value: string, item: ItemPeopleInput): string | null {
  const scoped =
    kind === "speaker"
      ? `${item.id}#${value}`
      : kind === "handle" && !value.includes("/")
        ? `${item.source}/${value}`
        : value;
  const id = identifier(kind, scoped);
  return id ? identifierKey(id) : null;
}

export function sightingsOf(item: ItemPeopleInput): ItemSightings {
  const sightings: Sighting[] = [];
  const hardLinks: HardLink[] = [];
  const seen = new Set<string>();
  const at = item.occurredAt ? { at: item.occurredAt } : {};
  const add = (key: string, name: string | null, role: string, bot: boolean) => {
    const marker = `${key}\u0001${name ?? ""}\u0001${role}`;
    if (seen.has(marker)) return;
    seen.add(marker);
    sightings.push({
      key,
      name,
      role,
      itemId: item.id,
      ...at,
      ...(bot || isBotKey(key) ? { bot: true as const } : {}),
    });
  };

  const structured = (item.people ?? []).slice(0, MAX_ITEM_PEOPLE);
  for (const person of structured) {
    const name = cleanName(person.name);
    const keys: string[] = [];
    const email = person.email ? identifier("email", person.email) : null;
    if (email) keys.push(identifierKey(email));
    for (const handle of (person.handles ?? []).slice(0, MAX_PERSON_HANDLES)) {
      const key = handleKey(handle.kind, handle.value, item);
      if (key && !keys.includes(key)) keys.push(key);
    }
    if (keys.length === 0 && name && !PLACEHOLDER_NAMES.has(name.toLowerCase())) {
      const handle = identifier("handle", `${item.source}/${name}`);
      if (handle) keys.push(identifierKey(handle));
    }
    for (const key of keys) add(key, name, person.role, person.bot === true);
    // Aliases are sightings of role `alias`: the same account seen under another name in this record.
    for (const alias of (person.aliases ?? []).slice(0, MAX_PERSON_ALIASES)) {
      const other = cleanName(alias);
      if (other && other !== name) for (const key of keys) add(key, other, "alias", person.bot === true);
    }
    for (let i = 1; i < keys.length; i++) hardLinks.push({ a: keys[0]!, b: keys[i]!, itemId: item.id });
  }

  // The strings: skipped when the structured field already named that identifier, so a name is not counted twice.
  const structuredKeys = new Set(sightings.map((s) => s.key));
  // A bare name or login the structured field already gave (its name, an alias or a handle's value).
  const structuredNames = new Set<string>();
  for (const person of structured) {
    for (const label of [
      person.name,
      ...(person.aliases ?? []),
      ...(person.handles ?? []).map((h) => h.value),
    ]) {
      const name = cleanName(label);
      if (name) structuredNames.add(name.toLowerCase());
    }
  }
  const strings: [string, string][] = [];
  if (item.author) strings.push([item.author, "author"]);
  for (const p of item.participants.slice(0, MAX_ITEM_STRINGS)) strings.push([p, "participant"]);
  for (const [text, role] of strings) {
    const parsed = parsePersonString(text, item.source);
    if (!parsed) continue;
    if (structuredKeys.has(parsed.key)) continue;
    if (parsed.key.startsWith("handle:") && structuredNames.has(parsed.name?.toLowerCase() ?? "")) continue;
    add(parsed.key, parsed.name, role, false);
  }
  return { sightings, hardLinks };
}
