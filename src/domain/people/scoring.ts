/**
 * Fellegi-Sunter scoring of two groups of identifiers (each group what records and members already tied):
 * the features they show, each adding its weight from link-config.ts, with the reasons in words. Blocking
 * keys say which groups are compared at all (name tokens, their nickname canons, handles and local parts).
 * Pure.
 */
import type { LinkConfig } from "./link-config";
import type { IdentifierKind } from "./model";
import { handleForm, handlesOfName, isInitial, type ParsedName, parseName } from "./names";
import { areNicknames, canonicalNames } from "./nicknames";

export interface ProfileMember {
  key: string;
  kind: IdentifierKind;
  value: string;
  names: string[];
  /** The organisation of a chat account, inferred from its workspace's members' addresses. */
  org?: string;
}

export interface Profile {
  root: string;
  /** Names with the identifier they came from; `derived` when it is the login or label itself. */
  names: { key: string; name: ParsedName; derived: boolean }[];
  /** Local parts, logins and handle names as letters and digits, with the identifier each came from. */
  handles: { key: string; handle: string }[];
  /** Organisation names of the addresses (acme for ada@eng.acme.com), free-mail providers left out. */
  orgs: Set<string>;
  kinds: Set<IdentifierKind>;
  /** Full names of the people it appears beside in items. */
  neighbours: Set<string>;
  blockingKeys: Set<string>;
}

const MAX_NAMES = 20;
const MAX_HANDLES = 20;
const FREE_MAIL =
  /^(?:g(?:oogle)?mail|yahoo|ymail|hotmail|outlook|live|msn|icloud|me|mac|aol|proton(?:mail)?|pm|gmx|fastmail|hey|mail|yandex|zoho|tutanota|qq|163|web|posteo|example)$/;

/** The organisation an address belongs to (`acme` for eng.acme.co.uk), or null for free-mail providers. */
export function organisationOf(address: string): string | null {
  const domain = address.slice(address.lastIndexOf("@") + 1);
  if (domain.endsWith("users.noreply.github.com")) return null;
  const labels = domain.split(".");
  const suffixLength = labels.length >= 3 && /^(?:co|com|org|net|ac|gov|edu)$/.test(labels.at(-2)!) ? 2 : 1;
  const org = labels.at(-1 - suffixLength);
  if (!org || FREE_MAIL.test(org)) return null;
  return org;
}

/** The handle an address or login shows (`ada` for ada@acme.com and 123+ada@users.noreply.github.com). */
function handleOf(kind: IdentifierKind, value: string): string | null {
  if (kind === "email") {
    let local = value.slice(0, value.lastIndexOf("@"));
    if (value.endsWith("@users.noreply.github.com") && local.includes("+")) local = local.split("+")[1]!;
    return handleForm(local) || null;
  }
  if (kind === "github") return handleForm(value.replace(/\[bot\]$/, "")) || null;
  return null;
}

export function profileOf(root: string, members: ProfileMember[], neighbours: Set<string>): Profile | null {
  const names: Profile["names"] = [];
  const handles: Profile["handles"] = [];
  const orgs = new Set<string>();
  const kinds = new Set<IdentifierKind>();
  const seenNames = new Set<string>();
  for (const m of members) {
    kinds.add(m.kind);
    const labels = m.names.map((label) => ({ label, derived: false }));
    // A login, a source handle or a speaker label without a display name is its own name.
    if (labels.length === 0 && (m.kind === "github" || m.kind === "handle" || m.kind === "speaker")) {
      labels.push({
        label: m.value.slice(m.value.search(/[#/]/) + 1).replace(/\[bot\]$/, ""),
        derived: true,
      });
    }
    for (const { label, derived } of labels) {
      const parsed = parseName(label);
      if (!parsed || seenNames.has(parsed.full) || names.length >= MAX_NAMES) continue;
      seenNames.add(parsed.full);
      names.push({ key: m.key, name: parsed, derived });
    }
    if (m.org) orgs.add(m.org);
    const handle = handleOf(m.kind, m.value);
    if (handle && handles.length < MAX_HANDLES) handles.push({ key: m.key, handle });
    if (m.kind === "email") {
      const org = organisationOf(m.value);
      if (org) orgs.add(org);
    }
  }
  if (names.length === 0 && handles.length === 0) return null;
  const blockingKeys = new Set<string>();
  for (const { name } of names) {
    for (const token of name.tokens) {
      if (isInitial(token)) continue;
      for (const canon of canonicalNames(token)) blockingKeys.add(`t:${canon}`);
    }
    for (const h of handlesOfName(name)) blockingKeys.add(`h:${h}`);
    if (!name.last) blockingKeys.add(`h:${name.first}`);
  }
  for (const { handle } of handles) {
    if (handle.length >= 2) {
      blockingKeys.add(`h:${handle}`);
      blockingKeys.add(`t:${handle}`);
    }
  }
  return { root, names, handles, orgs, kinds, neighbours, blockingKeys };
}

/** The profile of two groups joined (bounded like one). */
export function mergeProfiles(p: Profile, q: Profile): Profile {
  const seen = new Set(p.names.map((n) => n.name.full));
  return {
    root: p.root,
    names: [...p.names, ...q.names.filter((n) => !seen.has(n.name.full))].slice(0, MAX_NAMES * 2),
    handles: [...p.handles, ...q.handles].slice(0, MAX_HANDLES * 2),
    orgs: new Set([...p.orgs, ...q.orgs]),
    kinds: new Set([...p.kinds, ...q.kinds]),
    neighbours: new Set([...p.neighbours, ...q.neighbours]),
    blockingKeys: new Set([...p.blockingKeys, ...q.blockingKeys]),
  };
}

interface Feature {
  weight: number;
  reason: string;
  a: string;
  b: string;
}

/** A name made only of initials ("N. N. N.") says too little to compare. */
const onlyInitials = (name: ParsedName): boolean => name.tokens.every(isInitial);

/** How two parsed names compare, as one feature (or none). */
function nameFeature(
  x: ParsedName,
  y: ParsedName,
  xDerived: boolean,
  yDerived: boolean,
  w: LinkConfig["weights"],
): [number, string] | null {
  if (onlyInitials(x) || onlyInitials(y)) return null;
  if (x.suffix && y.suffix && x.suffix !== y.suffix) {
    return [w.suffixDiffers, `generations differ: ${x.suffix} / ${y.suffix}`];
  }
  if (x.last && y.last) {
    const firstSame = x.first === y.first;
    const firstNick = areNicknames(x.first, y.first);
    const firstInitial =
      (isInitial(x.first) && y.first.startsWith(x.first)) ||
      (isInitial(y.first) && x.first.startsWith(y.first));
    const lastSame = x.last === y.last && !isInitial(x.last);
    const lastInitial =
      (isInitial(x.last) && y.last.startsWith(x.last)) || (isInitial(y.last) && x.last.startsWith(y.last));
    if (lastSame && firstSame) return [w.fullName, `same full name "${x.full}"`];
    if (lastSame && firstNick) return [w.nickname, `nickname: ${x.first} / ${y.first} ${x.last}`];
    if (lastSame && firstInitial) return [w.initial, `initial: ${x.full} / ${y.full}`];
    if (lastInitial && (firstSame || firstNick) && !isInitial(x.first)) {
      return [w.initial, `initial: ${x.full} / ${y.full}`];
    }
    if (lastSame) return [w.surnameDiffers, `given names differ: ${x.first} / ${y.first}`];
    return [w.surnameDiffers, `surnames differ: ${x.last} / ${y.last}`];
  }
  const single = x.last ? y : x;
  const other = x.last ? x : y;
  if (!single.last && !other.last) {
    return single.first === other.first ? [w.singleName, `same name "${single.first}"`] : null;
  }
  if (single.first === other.first || areNicknames(single.first, other.first)) {
    return [w.firstNameOnly, `first name only: ${single.first} / ${other.full}`];
  }
  // A login or label that spells the name is scored once, as a handle (scorePair).
  if ((x.last ? yDerived : xDerived) === false) {
    const spelt = spells(single.first, other);
    if (spelt)
      return [
        spelt === "full" ? w.localPartName : w.localPartInitial,
        `${single.first} spells ${other.full}`,
      ];
  }
  return null;
}

/** Whether a handle spells a name: `full` (adalovelace, lovelaceada) or `initial` (alovelace, adal). */
function spells(handle: string, name: ParsedName): "full" | "initial" | null {
  if (!name.last || onlyInitials(name)) return null;
  const forms = handlesOfName(name);
  if (handle === forms[0] || handle === forms[3]) return "full";
  return forms.includes(handle) && handle.length >= 4 ? "initial" : null;
}

function best(features: Feature[]): Feature | null {
  let top: Feature | null = null;
  for (const f of features) if (!top || f.weight > top.weight) top = f;
  return top;
}

export function scorePair(
  p: Profile,
  q: Profile,
  config: LinkConfig,
): { a: string; b: string; score: number; reasons: string[] } {
  const w = config.weights;
  const nameFeatures: Feature[] = [];
  for (const x of p.names) {
    for (const y of q.names) {
      const f = nameFeature(x.name, y.name, x.derived, y.derived, w);
      if (f) nameFeatures.push({ weight: f[0], reason: f[1], a: x.key, b: y.key });
    }
  }
  // The best agreement counts; a disagreement only when nothing agrees.
  const nameBest = best(nameFeatures);

  const handleFeatures: Feature[] = [];
  for (const [x, y, flip] of [
    [p, q, false],
    [q, p, true],
  ] as const) {
    for (const h of x.handles) {
      for (const n of y.names) {
        const spelt = spells(h.handle, n.name);
        if (!spelt) continue;
        const [a, b] = flip ? [n.key, h.key] : [h.key, n.key];
        const weight = spelt === "full" ? w.localPartName : w.localPartInitial;
        handleFeatures.push({ weight, reason: `${h.handle} spells ${n.name.full}`, a, b });
      }
    }
  }
  for (const x of p.handles) {
    for (const y of q.handles) {
      if (x.handle === y.handle && x.handle.length >= 3) {
        handleFeatures.push({ weight: w.sameHandle, reason: `same handle ${x.handle}`, a: x.key, b: y.key });
      }
    }
  }
  const handleBest = best(handleFeatures);

  let score = 0;
  const reasons: string[] = [];
  if (nameBest && handleBest && nameBest.weight > 0) {
    const [strong, weak] =
      nameBest.weight >= handleBest.weight ? [nameBest, handleBest] : [handleBest, nameBest];
    score += strong.weight + w.corroboration;
    reasons.push(strong.reason, `${weak.reason} (agrees)`);
  } else {
    for (const f of [nameBest, handleBest]) {
      if (f) {
        score += f.weight;
        reasons.push(f.reason);
      }
    }
  }
  if (p.orgs.size > 0 && q.orgs.size > 0) {
    const shared = [...p.orgs].find((o) => q.orgs.has(o));
    if (shared) {
      score += w.sameOrganisation;
      reasons.push(`same organisation ${shared}`);
    } else {
      score += w.otherOrganisation;
      reasons.push(`different organisations ${[...p.orgs][0]} / ${[...q.orgs][0]}`);
    }
  }
  if (p.kinds.size === 1 && q.kinds.size === 1 && [...p.kinds][0] === [...q.kinds][0]) {
    score += w.sameKind;
    reasons.push(`both ${[...p.kinds][0]} only`);
  }
  let shared = 0;
  for (const n of p.neighbours) if (q.neighbours.has(n) && ++shared >= w.coOccurrenceCap) break;
  if (shared > 0) {
    score += shared * w.coOccurrence;
    reasons.push(`${shared} people in common`);
  }
  const cite = nameBest && nameBest.weight > 0 ? nameBest : (handleBest ?? nameBest);
  return { a: cite?.a ?? p.root, b: cite?.b ?? q.root, score, reasons };
}
