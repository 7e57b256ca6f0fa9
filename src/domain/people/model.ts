/**
 * People: identifiers apart from persons. An identifier is a typed, normalised value one source system uses
 * for one account (`email:ada@acme.com`, `slack:T024/U024BE7LH`, `github:ada`, `phone:+442071234567`,
 * `speaker:<item id>#Ada L.`, `user:<workspace user id>`, `handle:<source>/<name>`). Names are attributes
 * of identifiers, never identifiers. A person is a connected component of identifiers under accepted links
 * (resolve.ts); items yield sightings of identifiers and hard links between them (sightings.ts). Pure.
 */
import { z } from "zod";
import { textProblem } from "../safe-text";

export const IDENTIFIER_KINDS = ["email", "slack", "github", "phone", "speaker", "user", "handle"] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

/** A normalised identifier; its key is `kind:value`. */
export interface Identifier {
  kind: IdentifierKind;
  value: string;
}

/** How one identifier was seen in one item: its key, the name it carried there (if any) and its role. */
export interface Sighting {
  key: string;
  name: string | null;
  role: string;
  itemId: string;
  /** When the item occurred (ISO 8601), for a person's lastSeen; absent when the caller does not know. */
  at?: string;
  /** The source marked the account as automated (a Slack bot, a GitHub `[bot]` login). */
  bot?: true;
}

/** One source record ties two identifiers to one account (confidence 1, citing that record). */
export interface HardLink {
  a: string;
  b: string;
  itemId: string;
}

/**
 * A member's assertion, by identifier keys: `merge` a and b are one person; `split` takes identifier a out
 * of its person (b is null); `distinct` a and b are never one person. Withdrawing one is resolving without it.
 */
export interface Correction {
  id: string;
  kind: "merge" | "split" | "distinct";
  a: string;
  b: string | null;
}

export type LinkKind = "hard" | "scored" | "confirmed" | "self";

export interface PersonIdentifier {
  key: string;
  kind: IdentifierKind;
  value: string;
  /** Names this identifier carried, most frequent first. */
  names: string[];
  /**
   * How it is tied into its person: its strongest accepted link (`confirmed` by a member's merge, `hard`
   * from one source record, `scored` with `confidence` below 1), or `self` when it is the person's only
   * identifier (or one of the subject's own keys).
   */
  link: LinkKind;
  confidence: number;
  /** Evidence: the ids of the items it was seen in (and of the records that link it). */
  items: string[];
}

export interface Person {
  /** personId() of its canonical identifier (the smallest key). */
  id: string;
  /** The most frequent name over its identifiers, else the canonical identifier's value. */
  name: string;
  /** `mailbox` for shared addresses (team@, support@, noreply@), `bot` for automated accounts. */
  kind: "person" | "mailbox" | "bot";
  /** The subject herself (holds one of the selfKeys). */
  isSelf: boolean;
  identifiers: PersonIdentifier[];
  /** Distinct item ids over its identifiers. */
  items: string[];
  /** The latest `at` over its sightings, when sightings carry one. */
  lastSeen?: string;
}

/** A scored pair between the two thresholds: waits for a member to accept (merge) or reject (distinct). */
export interface Suggestion {
  a: string;
  b: string;
  score: number;
  reasons: string[];
}

// ---------------------------------------------------------------------------------------------------------
// The structured `people` field an item may carry.

/** `contact` is the person a contact card (vCard) describes. */
export const PERSON_ROLES = [
  "author",
  "participant",
  "mentioned",
  "organizer",
  "attendee",
  "contact",
] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];
/** Kinds an item may assert; `user:` comes only from the workspace's own members, never from items. */
export const ITEM_HANDLE_KINDS = ["email", "slack", "github", "phone", "speaker", "handle"] as const;
export const MAX_ITEM_PEOPLE = 1000;
export const MAX_PERSON_HANDLES = 50;
export const MAX_PERSON_NAME = 500;
export const MAX_HANDLE_VALUE = 500;
export const MAX_PERSON_ALIASES = 20;

const boundedText = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((value, ctx) => {
      const problem = textProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });

export const itemPersonSchema = z.strictObject({
  role: z.enum(PERSON_ROLES, { error: `must be one of ${PERSON_ROLES.join(", ")}` }),
  name: boundedText(MAX_PERSON_NAME).optional(),
  email: boundedText(320)
    .refine((v) => identifier("email", v) !== null, "must be an email address (ada@example.com)")
    .optional(),
  handles: z
    .array(
      z
        .strictObject({
          kind: z.enum(ITEM_HANDLE_KINDS, { error: `must be one of ${ITEM_HANDLE_KINDS.join(", ")}` }),
          value: boundedText(MAX_HANDLE_VALUE).min(1, "must not be empty"),
        })
        .superRefine((handle, ctx) => {
          if (!validHandle(handle)) {
            ctx.addIssue({ code: "custom", path: ["value"], message: HANDLE_SHAPES[handle.kind] });
          }
        }),
    )
    .max(MAX_PERSON_HANDLES)
    .optional(),
  /** Other names the person goes by in this record (a vCard's NICKNAME): names, never identifiers. */
  aliases: z
    .array(boundedText(MAX_PERSON_NAME).min(1, "must not be empty"))
    .max(MAX_PERSON_ALIASES)
    .optional(),
  /** The source marks this account as automated. */
  bot: z.boolean().optional(),
});
export const itemPeopleSchema = z.array(itemPersonSchema).max(MAX_ITEM_PEOPLE);
export type ItemPerson = z.infer<typeof itemPersonSchema>;
export type ItemHandle = NonNullable<ItemPerson["handles"]>[number];

const HANDLE_SHAPES: Record<ItemHandle["kind"], string> = {
  email: "must be an email address (ada@example.com)",
  slack: "must be a Slack user id, with its team when known (T024BE7LD/U024BE7LH)",
  github: "must be a GitHub login (octocat)",
  phone: "must be a telephone number (+44 20 7946 0001)",
  speaker: "must be a speaker label",
  handle: "must be a name or handle, with its network when known (twitter/ada)",
};

/** Whether a handle names an identifier of its kind (a speaker label is scoped to the item later). */
export function validHandle(handle: ItemHandle): boolean {
  const scoped =
    handle.kind === "speaker"
      ? `item#${handle.value}`
      : handle.kind === "handle" && !handle.value.includes("/")
        ? `source/${handle.value}`
        : handle.value;
  return identifier(handle.kind, scoped) !== null;
}

/**
 * A person entry as importers emit it: only a valid email and valid handles kept (a source's odd address
 * is left out rather than making the API refuse the whole item); null when nothing is left.
 */
export function keepValid(person: ItemPerson): ItemPerson | null {
  const { email, handles, ...rest } = person;
  const okEmail = email !== undefined && identifier("email", email) !== null ? email : undefined;
  const okHandles = (handles ?? [])
    .filter((h) => !textProblem(h.value) && validHandle(h))
    .slice(0, MAX_PERSON_HANDLES);
  if (!okEmail && okHandles.length === 0 && !rest.name) return null;
  return {
    ...rest,
    ...(okEmail ? { email: okEmail } : {}),
    ...(okHandles.length > 0 ? { handles: okHandles } : {}),
  };
}

/** What sightingsOf reads from an item. */
export interface ItemPeopleInput {
  id: string;
  source: string;
  author: string | null;
  participants: string[];
  people?: ItemPerson[];
  /** ISO 8601 instant of the item, carried to its sightings. */
  occurredAt?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Identifiers.

const MAX_KEY_VALUE = 600;
const EMAIL = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$/;

/** The identifier for a kind and raw value, normalised; null when the value is not one of that kind. */
export function identifier(kind: IdentifierKind, raw: string): Identifier | null {
  if (textProblem(raw)) return null;
  const value = normaliseValue(kind, raw.trim());
  if (value === null || value === "" || value.length > MAX_KEY_VALUE) return null;
  return { kind, value };
}

function normaliseValue(kind: IdentifierKind, raw: string): string | null {
  switch (kind) {
    case "email": {
      const address = raw
        .replace(/^mailto:/i, "")
        .replace(/^<|>$/g, "")
        .toLowerCase();
      return EMAIL.test(address) && address.length <= 254 ? address : null;
    }
    case "github":
      return /^[a-z0-9](?:[a-z0-9-]{0,38})(?:\[bot\])?$/i.test(raw.replace(/^@/, ""))
        ? raw.replace(/^@/, "").toLowerCase()
        : null;
    case "slack": {
      // `T024BE7LD/U024BE7LH`, or a bare user id when the export names no team.
      const match = /^(?:([A-Z0-9]{2,20})\/)?([UWB][A-Z0-9]{1,20})$/i.exec(raw);
      if (!match) return null;
      return match[1] ? `${match[1].toUpperCase()}/${match[2]!.toUpperCase()}` : match[2]!.toUpperCase();
    }
    case "phone":
      return normalisePhone(raw);
    case "speaker":
    case "handle": {
      // `<scope>#<label>` / `<source>/<name>`: the scope kept as is, the label in one spacing and case.
      const sep = kind === "speaker" ? raw.indexOf("#") : raw.indexOf("/");
      if (sep <= 0 || sep === raw.length - 1) return null;
      const label = raw
        .slice(sep + 1)
        .trim()
        .replace(/\s+/g, " ")
        .toLowerCase();
      return label ? `${raw.slice(0, sep)}${raw[sep]}${label}` : null;
    }
    case "user":
      return raw;
  }
}

/**
 * A telephone number: E.164 (`+` and 8 to 15 digits) when it has a country code (`+44 20 7123 4567`,
 * `0044...`), else its digits (7 to 15) as a local number that only equals the same digits.
 */
export function normalisePhone(raw: string): string | null {
  const text = raw.replace(/^tel:/i, "").replace(/(?:;|\s*(?:ext|x)\.?\s*\d+$).*/i, "");
  if (/[^\d\s+().\-/]/.test(text)) return null;
  let digits = text.replace(/[^\d+]/g, "");
  if (digits.startsWith("00")) digits = `+${digits.slice(2)}`;
  if (digits.startsWith("+")) {
    const rest = digits.slice(1);
    return /^[1-9]\d{7,14}$/.test(rest) ? `+${rest}` : null;
  }
  return /^\d{7,15}$/.test(digits) ? digits : null;
}

export const identifierKey = (id: Identifier): string => `${id.kind}:${id.value}`;

/** The identifier a key names, or null for a key that is not one (unknown kind, empty value). */
export function parseIdentifierKey(key: string): Identifier | null {
  const colon = key.indexOf(":");
  if (colon <= 0) return null;
  const kind = key.slice(0, colon) as IdentifierKind;
  if (!IDENTIFIER_KINDS.includes(kind)) return null;
  const value = key.slice(colon + 1);
  return value ? { kind, value } : null;
}

/** A key's normalised form (`EMAIL:Ada@Acme.com` → `email:ada@acme.com`), or null. */
export function normaliseKey(key: string): string | null {
  const parsed = parseIdentifierKey(key.trim());
  if (!parsed) {
    const colon = key.indexOf(":");
    const kind = key.slice(0, colon).trim().toLowerCase() as IdentifierKind;
    if (colon <= 0 || !IDENTIFIER_KINDS.includes(kind)) return null;
    const id = identifier(kind, key.slice(colon + 1));
    return id ? identifierKey(id) : null;
  }
  const id = identifier(parsed.kind, parsed.value);
  return id ? identifierKey(id) : null;
}

/**
 * A stable, opaque person id for an identifier key: `p_` and 16 hex digits of a 64-bit FNV-1a hash of the
 * key's UTF-8 bytes. A person's id is that of its canonical identifier, so a saved id keeps resolving to the
 * person holding that identifier after a merge or split.
 */
export function personId(key: string): string {
  const bytes = new TextEncoder().encode(key);
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return `p_${hash.toString(16).padStart(16, "0")}`;
}

const SHARED_LOCAL_PARTS = new Set([
  "team",
  "support",
  "help",
  "info",
  "hello",
  "contact",
  "sales",
  "admin",
  "office",
  "billing",
  "accounts",
  "noreply",
  "no-reply",
  "donotreply",
  "do-not-reply",
  "notifications",
  "notification",
  "mailer-daemon",
  "postmaster",
  "jobs",
  "careers",
  "press",
  "security",
  "abuse",
  "webmaster",
  "hr",
  "finance",
  "ops",
  "dev",
  "all",
  "everyone",
  "staff",
  "newsletter",
  "news",
  "marketing",
  "service",
  "feedback",
]);

/** A shared mailbox (team@, support@, noreply@, ...), which is not a person. */
export function isSharedMailbox(key: string): boolean {
  if (!key.startsWith("email:")) return false;
  const local = key.slice(6, key.lastIndexOf("@"));
  const base = local.split("+")[0]!;
  return (
    SHARED_LOCAL_PARTS.has(base) ||
    /^(?:no-?reply|do-?not-?reply|notifications?|bounces?)(?:[-_.+].*)?$/.test(base) ||
    /(?:^|[-_.])(?:team|support|noreply|no-reply|notifications?|list)$/.test(base)
  );
}

/** An automated account by its identifier alone (`github:dependabot[bot]`). */
export const isBotKey = (key: string): boolean =>
  /^github:.*\[bot\]$/.test(key) || /^github:(?:dependabot|renovate|github-actions)$/.test(key);
