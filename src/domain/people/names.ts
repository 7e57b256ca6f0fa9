/**
 * Names made comparable: lower case, accents folded, punctuation and honorifics dropped, "Lovelace, Ada"
 * turned round; and the handles a name is commonly spelt as in an address or a login (ada.lovelace,
 * alovelace, adal). Pure.
 */

export interface ParsedName {
  /** Normalised tokens in given-name-first order. */
  tokens: string[];
  first: string;
  /** The last token; empty for a one-token name. */
  last: string;
  full: string;
  /** A generational suffix (jr, sr, ii, iii, iv): John Doe Sr. and John Doe III are two people. */
  suffix?: string;
}

const HONORIFICS = new Set([
  "mr",
  "mrs",
  "ms",
  "miss",
  "dr",
  "prof",
  "sir",
  "dame",
  "jr",
  "sr",
  "ii",
  "iii",
  "phd",
]);
const MAX_TOKENS = 6;

/**
 * Names parsed, by their raw text: a view names the same few thousand people in tens of thousands of
 * sightings, and parsing (Unicode folding, regular expressions) is most of what reading them costs. Cleared
 * when full. The parsed names are shared, so they are never changed by their users.
 */
const PARSED = new Map<string, ParsedName | null>();
const MAX_PARSED = 20_000;

/** A name's comparable form, or null when nothing name-like is left (digits, punctuation, empty). */
export function parseName(raw: string): ParsedName | null {
  const known = PARSED.get(raw);
  if (known !== undefined) return known;
  if (PARSED.size >= MAX_PARSED) PARSED.clear();
  const parsed = parseFresh(raw);
  PARSED.set(raw, parsed);
  return parsed;
}

function parseFresh(raw: string): ParsedName | null {
  let text = raw.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  // "Lovelace, Ada" → "Ada Lovelace": one comma after a single word ("Richter, James Doe" stays as written).
  const comma = text.split(",");
  if (comma.length === 2 && comma[1]!.trim() && /^\s*[\p{L}'-]+\s*$/u.test(comma[0]!)) {
    text = `${comma[1]} ${comma[0]}`;
  }
  const suffix = /\b(jr|sr|ii|iii|iv)\b\.?\s*$/.exec(text.replace(/[.,\s]+$/, ""))?.[1];
  text = text.replace(/\(.*?\)|\[.*?\]/g, " ");
  const tokens = text
    .split(/[^\p{L}\p{N}']+/u)
    .map((t) => t.replace(/'/g, ""))
    .filter((t) => t && !HONORIFICS.has(t) && /\p{L}/u.test(t))
    .slice(0, MAX_TOKENS);
  if (tokens.length === 0) return null;
  return {
    tokens,
    ...(suffix ? { suffix } : {}),
    first: tokens[0]!,
    last: tokens.length > 1 ? tokens[tokens.length - 1]! : "",
    full: tokens.join(" "),
  };
}

/** A handle or local part as letters and digits only ("Ada.Lovelace+x" → "adalovelace"). */
export function handleForm(raw: string): string {
  return raw
    .split("+")[0]!
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** The handles a two-token name is commonly written as: adalovelace, alovelace, adal, lovelaceada, lovelacea. */
export function handlesOfName(name: ParsedName): string[] {
  if (!name.last) return [];
  const cached = FORMS.get(name);
  if (cached) return cached;
  const f = name.first;
  const l = name.last;
  const forms = [`${f}${l}`, `${f[0]}${l}`, `${f}${l[0]}`, `${l}${f}`, `${l}${f[0]}`];
  FORMS.set(name, forms);
  return forms;
}
const FORMS = new WeakMap<ParsedName, string[]>();

/** A one-letter token or a token written as an initial ("A." parses to "a"). */
export const isInitial = (token: string): boolean => token.length === 1;
