/**
 * Persons from identifiers: a person is a connected component of identifiers under accepted links, computed
 * as a view from sightings, hard links and members' corrections (nothing is stored that a withdrawn
 * correction would have to undo).
 *
 * Order of acceptance, each union checked against the cannot-link constraints:
 * 1. `merge` corrections (confirmed), 2. hard links (not touching a split identifier), 3. the subject's own
 * keys, 4. scored links at or above the automatic threshold, best first. Cannot-link: a `distinct` pair
 * never ends in one person (it outranks a conflicting merge of other pairs; on the same pair the later
 * correction wins), and a scored link never joins two groups that appear as distinct participants of one
 * item. Scored pairs between the thresholds, still apart at the end, are the suggestions. Pure.
 */
import { textProblem } from "../safe-text";
import { Components } from "./components";
import {
  assignCoItems,
  groupsOf,
  type IdentifierNode as Node,
  neighboursOf,
  workspaceOrganisations,
} from "./groups";
import { DEFAULT_LINK_CONFIG, type LinkConfig } from "./link-config";
import {
  type Correction,
  type HardLink,
  isBotKey,
  isSharedMailbox,
  type LinkKind,
  MAX_PERSON_NAME,
  type Person,
  type PersonIdentifier,
  parseIdentifierKey,
  personId,
  type Sighting,
  type Suggestion,
} from "./model";
import { mergeProfiles, type Profile, profileOf, scorePair } from "./scoring";

export interface ResolveInput {
  sightings: Sighting[];
  hardLinks: HardLink[];
  corrections: Correction[];
  /** The subject's own identifiers (`user:<id>` and her email claim): one person, marked isSelf. */
  selfKeys?: string[];
  config?: LinkConfig;
}

export interface ResolveResult {
  people: Person[];
  suggestions: Suggestion[];
}

const MAX_NAMES_PER_IDENTIFIER = 50;
const LINK_RANK: Record<LinkKind, number> = { self: 0, scored: 1, hard: 2, confirmed: 3 };

export function resolvePeople(input: ResolveInput): ResolveResult {
  const config = input.config ?? DEFAULT_LINK_CONFIG;
  const nodes = collectNodes(input.sightings);
  addMemberKeys(nodes, input.hardLinks, input.selfKeys ?? []);
  const components = new Components(nodes.keys());
  const has = (key: string | null): key is string => key !== null && nodes.has(key);

  // Corrections in order, the later word winning: per pair, merge or distinct; a split takes its identifier
  // out of every hard link and of every merge said before it, and out of scoring.
  const pairWord = new Map<string, { correction: Correction; at: number }>();
  const splitAt = new Map<string, number>();
  input.corrections.forEach((c, at) => {
    if (c.kind === "split") {
      if (has(c.a)) splitAt.set(c.a, at);
    } else if (has(c.a) && has(c.b) && c.a !== c.b) {
      pairWord.set(pairKey(c.a, c.b), { correction: c, at });
    }
  });
  const split = new Set(splitAt.keys());
  const wordOn = (a: string, b: string) => pairWord.get(pairKey(a, b))?.correction.kind;
  for (const { correction: c } of pairWord.values())
    if (c.kind === "distinct") components.forbidPair(c.a, c.b!);

  const mark = (key: string, link: LinkKind, confidence: number) => {
    const node = nodes.get(key)!;
    if (LINK_RANK[link] > LINK_RANK[node.link] || (link === node.link && confidence > node.confidence)) {
      node.link = link;
      node.confidence = confidence;
    }
  };
  const accept = (a: string, b: string, link: LinkKind, confidence: number, checkCoItems: boolean) => {
    if (!components.union(a, b, checkCoItems)) return false;
    mark(a, link, confidence);
    mark(b, link, confidence);
    return true;
  };

  const afterSplit = (key: string, at: number) => (splitAt.get(key) ?? -1) < at;
  for (const { correction: c, at } of pairWord.values()) {
    if (c.kind === "merge" && afterSplit(c.a, at) && afterSplit(c.b!, at))
      accept(c.a, c.b!, "confirmed", 1, false);
  }
  for (const link of input.hardLinks) {
    if (has(link.a) && has(link.b) && link.a !== link.b && !split.has(link.a) && !split.has(link.b)) {
      if (wordOn(link.a, link.b) !== "distinct") accept(link.a, link.b, "hard", 1, false);
    }
  }
  const selfKeys = (input.selfKeys ?? []).filter((k) => has(k));
  for (let i = 1; i < selfKeys.length; i++) accept(selfKeys[0]!, selfKeys[i]!, "hard", 1, false);

  // Groups that appeared as distinct participants of one item never join by score.
  assignCoItems(input.sightings, nodes, components);

  // Scored links between the groups the records and members made, compared by blocking keys.
  const groups = groupsOf(nodes, components);
  const teamOrgs = workspaceOrganisations(groups);
  const neighbours = neighboursOf(input.sightings, nodes, components);
  const profiles = new Map<string, Profile>();
  for (const [root, members] of groups) {
    if (members.some((m) => m.bot || isSharedMailbox(m.key) || split.has(m.key))) continue;
    const profile = profileOf(
      root,
      members.map((m) => {
        const team =
          m.kind === "slack" && m.value.includes("/") ? teamOrgs.get(m.value.split("/")[0]!) : undefined;
        return {
          key: m.key,
          kind: m.kind,
          value: m.value,
          names: [...m.names.keys()],
          ...(team ? { org: team } : {}),
          ...(m.firstSeen && m.lastSeen ? { firstSeen: m.firstSeen, lastSeen: m.lastSeen } : {}),
          ...(m.untimed ? { untimed: true } : {}),
        };
      }),
      neighbours.get(root) ?? new Set(),
    );
    if (profile) profiles.set(root, profile);
  }
  const candidates = scoredCandidates([...profiles.values()], config);
  candidates.sort((x, y) => y.score - x.score || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
  for (const c of candidates) {
    if (c.score < config.autoThreshold) break;
    if (wordOn(c.a, c.b) === "distinct") continue;
    const ra = components.find(c.a);
    const rb = components.find(c.b);
    if (ra === rb) continue;
    const pa = profiles.get(ra);
    const pb = profiles.get(rb);
    if (!pa || !pb) continue;
    // Groups already joined by score are compared whole: Ada at Acme, once joined with her chat account,
    // no longer matches Ada at Globex through that account's name alone.
    const now =
      ra === pa.root && rb === pb.root && pa === c.pa && pb === c.pb ? c : scorePair(pa, pb, config);
    if (now.score < config.autoThreshold) continue;
    if (!accept(c.a, c.b, "scored", confidenceOf(now.score), true)) continue;
    const root = components.find(c.a);
    profiles.set(root, { ...mergeProfiles(pa, pb), root });
    profiles.delete(root === ra ? rb : ra);
  }

  const suggestions: Suggestion[] = [];
  const suggested = new Set<string>();
  for (const c of candidates) {
    if (c.score < config.suggestThreshold) break;
    const ra = components.find(c.a);
    const rb = components.find(c.b);
    if (ra === rb || components.forbidden(ra, rb) || components.coParticipants(ra, rb)) continue;
    const pair = pairKey(ra, rb);
    if (suggested.has(pair)) continue;
    suggested.add(pair);
    suggestions.push({ a: c.a, b: c.b, score: round(c.score), reasons: c.reasons });
  }

  return { people: buildPeople(nodes, components, new Set(selfKeys)), suggestions };
}

/**
 * A workspace user (`user:<id>`) is seen in no item: it joins when a member's record links it to an
 * identifier that is seen (her email claim), or when it is one of the subject's own keys beside a seen one.
 */
function addMemberKeys(nodes: Map<string, Node>, hardLinks: HardLink[], selfKeys: string[]): void {
  const addUser = (key: string) => {
    const id = parseIdentifierKey(key);
    if (id?.kind !== "user" || nodes.has(key)) return;
    nodes.set(key, {
      key,
      kind: "user",
      value: id.value,
      names: new Map(),
      items: new Set(),
      firstSeen: undefined,
      lastSeen: undefined,
      untimed: false,
      bot: false,
      link: "self",
      confidence: 1,
    });
  };
  for (const link of hardLinks) {
    if (nodes.has(link.a) && !nodes.has(link.b)) addUser(link.b);
    else if (nodes.has(link.b) && !nodes.has(link.a)) addUser(link.a);
  }
  if (selfKeys.some((k) => nodes.has(k))) for (const key of selfKeys) addUser(key);
}

/**
 * Every person by each id a client may hold: the personId of each of its identifiers. A saved id keeps
 * answering after a merge (the person now holding that identifier) or a split (the person it went to).
 */
export function peopleById(people: Person[]): Map<string, Person> {
  const out = new Map<string, Person>();
  for (const person of people) for (const id of person.identifiers) out.set(personId(id.key), person);
  return out;
}

function collectNodes(sightings: Sighting[]): Map<string, Node> {
  const nodes = new Map<string, Node>();
  for (const s of sightings) {
    let node = nodes.get(s.key);
    if (!node) {
      const id = parseIdentifierKey(s.key);
      if (!id) continue;
      node = {
        key: s.key,
        kind: id.kind,
        value: id.value,
        names: new Map(),
        items: new Set(),
        firstSeen: undefined,
        lastSeen: undefined,
        untimed: false,
        bot: isBotKey(s.key),
        link: "self",
        confidence: 1,
      };
      nodes.set(s.key, node);
    }
    // Names as the item field bounds them; an identifier keeps its first MAX_NAMES_PER_IDENTIFIER distinct ones.
    if (s.name && s.name.length <= MAX_PERSON_NAME && !textProblem(s.name)) {
      const count = node.names.get(s.name);
      if (count !== undefined) node.names.set(s.name, count + 1);
      else if (node.names.size < MAX_NAMES_PER_IDENTIFIER) node.names.set(s.name, 1);
    }
    node.items.add(s.itemId);
    if (s.bot) node.bot = true;
    if (!s.at) node.untimed = true;
    else {
      if (node.firstSeen === undefined || s.at < node.firstSeen) node.firstSeen = s.at;
      if (node.lastSeen === undefined || s.at > node.lastSeen) node.lastSeen = s.at;
    }
  }
  return nodes;
}

interface Candidate {
  a: string;
  b: string;
  score: number;
  reasons: string[];
  pa: Profile;
  pb: Profile;
}

/** Pairs of groups sharing a blocking key (keys held by more than maxBlockSize groups are skipped), scored. */
function scoredCandidates(profiles: Profile[], config: LinkConfig): Candidate[] {
  const blocks = new Map<string, number[]>();
  profiles.forEach((profile, index) => {
    for (const key of profile.blockingKeys) {
      const list = blocks.get(key) ?? [];
      list.push(index);
      blocks.set(key, list);
    }
  });
  const compared = new Set<number>();
  const out: Candidate[] = [];
  const n = profiles.length;
  for (const [key, members] of blocks) {
    if (members.length < 2 || members.length > config.maxBlockSize) continue;
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const x = Math.min(members[i]!, members[j]!);
        const y = Math.max(members[i]!, members[j]!);
        // Two full names sharing a given name: compared on another key they share, if any.
        if (profiles[x]!.givenOnlyKeys.has(key) && profiles[y]!.givenOnlyKeys.has(key)) continue;
        const id = x * n + y;
        if (compared.has(id)) continue;
        compared.add(id);
        const scored = scorePair(profiles[x]!, profiles[y]!, config);
        if (scored.score >= config.suggestThreshold)
          out.push({ ...scored, pa: profiles[x]!, pb: profiles[y]! });
      }
    }
  }
  return out;
}

function buildPeople(nodes: Map<string, Node>, components: Components, selfKeys: Set<string>): Person[] {
  const byRoot = groupsOf(nodes, components);
  const people: Person[] = [];
  for (const members of byRoot.values()) {
    members.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    const single = members.length === 1;
    const identifiers: PersonIdentifier[] = members.map((m) => ({
      key: m.key,
      kind: m.kind,
      value: m.value,
      names: [...m.names.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([n]) => n),
      link: single ? "self" : m.link,
      confidence: single ? 1 : m.confidence,
      items: [...m.items].sort(),
    }));
    const items = [...new Set(members.flatMap((m) => [...m.items]))].sort();
    const lastSeen = members.reduce<string | undefined>(
      (best, m) => (m.lastSeen && (!best || m.lastSeen > best) ? m.lastSeen : best),
      undefined,
    );
    const kind = members.some((m) => m.bot)
      ? "bot"
      : members.every((m) => isSharedMailbox(m.key))
        ? "mailbox"
        : "person";
    people.push({
      id: personId(members[0]!.key),
      name: displayName(members),
      kind,
      isSelf: members.some((m) => selfKeys.has(m.key)),
      identifiers,
      items,
      ...(lastSeen ? { lastSeen } : {}),
    });
  }
  people.sort((x, y) => y.items.length - x.items.length || x.id.localeCompare(y.id));
  return people;
}

/** The most frequent name, names of two or more words first; else the canonical identifier's value. */
function displayName(members: Node[]): string {
  const counts = new Map<string, number>();
  for (const m of members) for (const [name, n] of m.names) counts.set(name, (counts.get(name) ?? 0) + n);
  const ranked = [...counts.entries()].sort(
    (x, y) =>
      Number(/\S\s+\S/.test(y[0])) - Number(/\S\s+\S/.test(x[0])) || y[1] - x[1] || x[0].localeCompare(y[0]),
  );
  if (ranked[0]) return ranked[0][0];
  const first = members[0]!;
  return first.kind === "speaker" || first.kind === "handle"
    ? first.value.slice(first.value.search(/[#/]/) + 1)
    : first.value;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
const round = (x: number): number => Math.round(x * 1000) / 1000;
/** The score is a log2 likelihood ratio; its confidence the matching probability, short of certainty. */
const confidenceOf = (score: number): number => Math.min(0.999, round(1 / (1 + 2 ** -score)) || 0);
