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
  /** The oldest and newest time it was seen (ISO 8601); `untimed` when a sighting had no time. */
  firstSeen?: string;
  lastSeen?: string;
  untimed?: boolean;
}

/** A group's activity: from its first sighting to its last, in milliseconds since the epoch. */
export interface Activity {
  from: number;
  to: number;
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
  /** Null when a sighting had no time: then activity says nothing. */
  activity: Activity | null;
  blockingKeys: Set<string>;
  /**
   * The blocking keys it holds only as a given name of a full name (`t:ada` of "Ada Lovelace"): two groups
   * whose only shared key is one of these differ in surname (or share a key elsewhere) and never reach a
   * suggestion, so they are not compared on it.
   */
  givenOnlyKeys: Set<string>;
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
  const givenOnlyKeys = new Set<string>();
  const otherKeys = new Set<string>();
  for (const { name } of names) {
    // Given names of a name whose surname is written out; a one-word name or "Ada L." is matched on its first.
    const given = name.last && !isInitial(name.last) ? name.tokens.length - 1 : 0;
    name.tokens.forEach((token, i) => {
      if (isInitial(token)) return;
      for (const canon of canonicalNames(token)) (i < given ? givenOnlyKeys : otherKeys).add(`t:${canon}`);
    });
    for (const h of handlesOfName(name)) blockingKeys.add(`h:${h}`);
    if (!name.last) blockingKeys.add(`h:${name.first}`);
  }
  for (const { handle } of handles) {
    if (handle.length >= 2) {
      blockingKeys.add(`h:${handle}`);
      otherKeys.add(`t:${handle}`);
    }
  }
  for (const key of otherKeys) {
    blockingKeys.add(key);
    givenOnlyKeys.delete(key);
  }
  for (const key of givenOnlyKeys) blockingKeys.add(key);
  const activity = activityOf(members);
  return { root, names, handles, orgs, kinds, neighbours, activity, blockingKeys, givenOnlyKeys };
}

/** The span over the members' sightings; null when one was seen without a time, or none with one. */
function activityOf(members: ProfileMember[]): Activity | null {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const m of members) {
    if (m.untimed) return null;
    if (m.firstSeen === undefined || m.lastSeen === undefined) continue;
    from = Math.min(from, Date.parse(m.firstSeen));
    to = Math.max(to, Date.parse(m.lastSeen));
  }
  return Number.isFinite(from) && Number.isFinite(to) && from <= to ? { from, to } : null;
}

/** The days an activity spans (UTC): `2026-01-05 to 2026-02-06`, or one day. */
function daysOf(a: Activity): string {
  const first = new Date(a.from).toISOString().slice(0, 10);
  const last = new Date(a.to).toISOString().slice(0, 10);
  return first === last ? first : `${first} to ${last}`;
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
    activity:
      p.activity && q.activity
        ? { from: Math.min(p.activity.from, q.activity.from), to: Math.max(p.activity.to, q.activity.to) }
        : null,
    blockingKeys: new Set([...p.blockingKeys, ...q.blockingKeys]),
    // Joined groups are compared whole (scorePair), never through blocks again.
    givenOnlyKeys: new Set(),
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

const DAY_MS = 86_400_000;
const onlyKind = (p: Profile): IdentifierKind | null =>
  p.kinds.size === 1 ? p.kinds.values().next().value! : null;

/**
 * How two groups' activity compares, as one feature (or none): two groups each of one kind, the same, one
 * after the other (a changed address) or side by side; two with no kind in common in one period or apart.
 * Groups sharing some kinds but not all, and groups whose activity is unknown, show none. The reason's
 * words only: scorePair adds the spans to the pairs it counts it for.
 */
function activityFeature(p: Profile, q: Profile, config: LinkConfig): [number, string] | null {
  const x = p.activity;
  const y = q.activity;
  if (!x || !y) return null;
  const w = config.weights;
  const tolerance = config.activityToleranceDays * DAY_MS;
  // Negative when they lie apart: the gap between them.
  const overlap = Math.min(x.to, y.to) - Math.max(x.from, y.from);
  const kind = onlyKind(p);
  if (kind && kind === onlyKind(q)) {
    const ordered = (x.from < y.from && x.to < y.to) || (y.from < x.from && y.to < x.to);
    return ordered && overlap <= tolerance
      ? [w.oneAfterTheOther, "one after the other"]
      : [w.sideBySide, "side by side"];
  }
  for (const k of p.kinds) if (q.kinds.has(k)) return null;
  return overlap >= -tolerance ? [w.samePeriod, "in one period"] : [w.apart, "apart"];
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
  // Activity is weak evidence: it never carries a pair to the automatic threshold by itself.
  const activity = activityFeature(p, q, config);
  if (activity && activity[0] !== 0) {
    const carries =
      activity[0] > 0 && score < config.autoThreshold && score + activity[0] >= config.autoThreshold;
    if (!carries) {
      score += activity[0];
      reasons.push(`active ${activity[1]}: ${daysOf(p.activity!)} / ${daysOf(q.activity!)}`);
    }
  }
  const cite = nameBest && nameBest.weight > 0 ? nameBest : (handleBest ?? nameBest);
  return { a: cite?.a ?? p.root, b: cite?.b ?? q.root, score, reasons };
}
