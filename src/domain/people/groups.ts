/**
 * What resolution knows about groups of identifiers beyond their names: the items where a group appeared
 * beside another (cannot-link), the full names of the people it appears beside (people in common), and the
 * organisation of each chat workspace, inferred from its accounts' linked addresses. Pure.
 */
import type { Components } from "./components";
import type { IdentifierKind, LinkKind, Sighting } from "./model";
import { parseName } from "./names";
import { organisationOf } from "./scoring";

/** One identifier as resolution holds it. */
export interface IdentifierNode {
  key: string;
  kind: IdentifierKind;
  value: string;
  names: Map<string, number>;
  items: Set<string>;
  /** The oldest and newest `at` over its sightings. */
  firstSeen: string | undefined;
  lastSeen: string | undefined;
  /** Seen at least once without a time: its activity is not known. */
  untimed: boolean;
  bot: boolean;
  link: LinkKind;
  confidence: number;
}

/** Items with more identifiers than this do not make co-participants cannot-link (a 10,000-person list). */
export const MAX_COITEM_IDENTIFIERS = 200;

/**
 * Gives each group the items in which it appeared beside another group. A speaker label is not a distinct
 * participant beside the call's attendees (it names one of them), so it only counts against other labels.
 */
export function assignCoItems(
  sightings: Sighting[],
  nodes: Map<string, IdentifierNode>,
  components: Components,
): void {
  const byItem = new Map<string, Set<string>>();
  for (const s of sightings) {
    if (!nodes.has(s.key)) continue;
    const set = byItem.get(s.itemId) ?? new Set<string>();
    set.add(s.key);
    byItem.set(s.itemId, set);
  }
  const perRoot = new Map<string, Set<string>>();
  for (const [itemId, keys] of byItem) {
    if (keys.size < 2 || keys.size > MAX_COITEM_IDENTIFIERS) continue;
    for (const speakers of [true, false]) {
      const roots = new Set<string>();
      for (const key of keys) if (key.startsWith("speaker:") === speakers) roots.add(components.find(key));
      if (roots.size < 2) continue;
      const scope = speakers ? `${itemId}#speakers` : itemId;
      for (const root of roots) {
        const set = perRoot.get(root) ?? new Set<string>();
        set.add(scope);
        perRoot.set(root, set);
      }
    }
  }
  for (const [root, items] of perRoot) components.setItems(root, items);
}

export function groupsOf(
  nodes: Map<string, IdentifierNode>,
  components: Components,
): Map<string, IdentifierNode[]> {
  const groups = new Map<string, IdentifierNode[]>();
  for (const node of nodes.values()) {
    const root = components.find(node.key);
    const list = groups.get(root);
    if (list) list.push(node);
    else groups.set(root, [node]);
  }
  return groups;
}

/**
 * The organisation of each chat workspace (`slack:<team>/...`): the one most of its accounts' linked
 * addresses belong to, when at least two accounts agree and no other organisation comes close.
 */
export function workspaceOrganisations(groups: Map<string, IdentifierNode[]>): Map<string, string> {
  const votes = new Map<string, Map<string, number>>();
  for (const members of groups.values()) {
    const orgs = new Set(members.flatMap((m) => (m.kind === "email" ? (organisationOf(m.value) ?? []) : [])));
    if (orgs.size !== 1) continue;
    const org = [...orgs][0]!;
    for (const m of members) {
      if (m.kind !== "slack" || !m.value.includes("/")) continue;
      const team = m.value.split("/")[0]!;
      const tally = votes.get(team) ?? new Map<string, number>();
      tally.set(org, (tally.get(org) ?? 0) + 1);
      votes.set(team, tally);
    }
  }
  const out = new Map<string, string>();
  for (const [team, tally] of votes) {
    const ranked = [...tally.entries()].sort((x, y) => y[1] - x[1]);
    const [top, second] = ranked;
    if (top && top[1] >= 2 && (!second || top[1] >= 3 * second[1])) out.set(team, top[0]);
  }
  return out;
}

const MAX_NEIGHBOURS = 200;

/** For each group, the full names (two words or more) of the groups it appears beside in items. */
export function neighboursOf(
  sightings: Sighting[],
  nodes: Map<string, IdentifierNode>,
  components: Components,
): Map<string, Set<string>> {
  const byItem = new Map<string, Map<string, Set<string>>>();
  for (const s of sightings) {
    if (!nodes.has(s.key)) continue;
    const root = components.find(s.key);
    const roots = byItem.get(s.itemId) ?? new Map<string, Set<string>>();
    const names = roots.get(root) ?? new Set<string>();
    const parsed = s.name ? parseName(s.name) : null;
    if (parsed?.last) names.add(parsed.full);
    roots.set(root, names);
    byItem.set(s.itemId, roots);
  }
  const out = new Map<string, Set<string>>();
  for (const roots of byItem.values()) {
    if (roots.size < 2 || roots.size > MAX_COITEM_IDENTIFIERS) continue;
    for (const [root] of roots) {
      const set = out.get(root) ?? new Set<string>();
      for (const [other, names] of roots) {
        if (other === root) continue;
        for (const name of names) if (set.size < MAX_NEIGHBOURS) set.add(name);
      }
      out.set(root, set);
    }
  }
  return out;
}
