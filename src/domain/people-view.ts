/**
 * A viewer's people: resolvePeople (domain/people) over the evidence of the items the viewer may see, the
 * workspace's corrections restricted to identifiers the viewer sees, and the subject's own keys. The same
 * view serves the API, search's person filters, the research tools and the memory's statement people. Pure.
 */

import type { PeopleFilter } from "./items";
import { identifier, identifierKey, normaliseKey, type Person, type Suggestion } from "./people/model";
import { peopleById, resolvePeople } from "./people/resolve";
import type { PeopleEvidence, StoredCorrection } from "./people-store";
import { isTeamKey, localName } from "./workspaces";

export interface PeopleView {
  /** Most involved first. */
  people: Person[];
  suggestions: Suggestion[];
  /** The corrections the viewer may see (both identifiers visible to them). */
  corrections: StoredCorrection[];
  /** The identifier keys the viewer sees (from their items, and their own keys). */
  visibleKeys: Set<string>;
  /** Every identifier's person. */
  personOf: Map<string, Person>;
  /** Every person by each id a client may hold (resolve.ts peopleById). */
  byId: Map<string, Person>;
  /** When each item the evidence names occurred (ISO 8601). */
  itemTimes: Map<string, string>;
  /** The evidence was bounded: the oldest items' people were left out. */
  truncated: boolean;
}

/** The user's id in the workspace, or undefined for a team (whose view has no self). */
export const subjectNameOf = (viewerKey: string): string | undefined =>
  isTeamKey(viewerKey) ? undefined : localName(viewerKey);

/** The subject's own identifiers: `user:<id>` and the addresses tied to her (token claim, member record). */
export function selfKeysOf(viewerKey: string, emails: (string | null | undefined)[]): string[] {
  if (isTeamKey(viewerKey)) return [];
  const keys = [identifierKey({ kind: "user", value: localName(viewerKey) })];
  for (const email of emails) {
    const id = email ? identifier("email", email) : null;
    if (id && !keys.includes(identifierKey(id))) keys.push(identifierKey(id));
  }
  return keys;
}

/**
 * The viewer's people. `subjectName` (a user's id in the workspace) also makes hers every handle spelled as
 * that id in some source (`handle:slack/ada` for the user `ada`), as items that name their owner by user id do.
 */
export function peopleView(
  evidence: PeopleEvidence,
  ownKeys: string[],
  options: { subjectName?: string } = {},
): PeopleView {
  const visibleKeys = new Set<string>(ownKeys);
  const itemTimes = new Map<string, string>();
  const selfKeys = [...ownKeys];
  const handleSuffix = options.subjectName ? `/${options.subjectName.toLowerCase()}` : null;
  for (const s of evidence.sightings) {
    if (
      !visibleKeys.has(s.key) &&
      handleSuffix &&
      s.key.startsWith("handle:") &&
      s.key.endsWith(handleSuffix)
    ) {
      selfKeys.push(s.key);
    }
    visibleKeys.add(s.key);
    if (s.at) itemTimes.set(s.itemId, s.at);
  }
  // A correction reveals only that two identifiers the viewer already sees are (or are not) one person.
  const corrections = evidence.corrections.filter(
    (c) => visibleKeys.has(c.a) && (c.b === null || visibleKeys.has(c.b)),
  );
  const { people, suggestions } = resolvePeople({
    sightings: evidence.sightings,
    hardLinks: evidence.hardLinks.filter((l) => visibleKeys.has(l.a) && visibleKeys.has(l.b)),
    corrections,
    selfKeys,
  });
  const personOf = new Map<string, Person>();
  for (const person of people) for (const id of person.identifiers) personOf.set(id.key, person);
  return {
    people,
    suggestions,
    corrections,
    visibleKeys,
    personOf,
    byId: peopleById(people),
    itemTimes,
    truncated: evidence.truncated,
  };
}

/**
 * The person a saved id names now: the person with that id, else the person holding the identifier whose
 * id it was (after a merge or a split the id answers the person its identifier became part of); null when
 * the viewer has no such person.
 */
export function findPerson(view: PeopleView, id: string): Person | null {
  return view.byId.get(id) ?? null;
}

/**
 * What a reference names among the viewer's people: a person id, an identifier key (`email:ada@acme.com`),
 * a bare address, or a name (case-insensitive, a person's name or a name one of its identifiers carried).
 */
export function peopleMatching(view: PeopleView, ref: string): Person[] {
  const text = ref.trim();
  if (!text) return [];
  const byId = findPerson(view, text);
  if (byId) return [byId];
  const key = normaliseKey(text) ?? (identifier("email", text) ? `email:${text.toLowerCase()}` : null);
  if (key) {
    const person = view.personOf.get(key);
    if (person) return [person];
  }
  const lower = text.toLowerCase();
  return view.people.filter(
    (p) =>
      p.name.toLowerCase() === lower ||
      p.identifiers.some((i) => i.value === lower || i.names.some((n) => n.toLowerCase() === lower)),
  );
}

/** The most recent of a person's items, by when they occurred, newest first. */
export function recentItemsOf(view: PeopleView, person: Person, limit: number): string[] {
  return [...person.items]
    .sort(
      (x, y) =>
        (view.itemTimes.get(y) ?? "").localeCompare(view.itemTimes.get(x) ?? "") || y.localeCompare(x),
    )
    .slice(0, limit);
}

/**
 * The viewer's key people: never the viewer herself, a shared mailbox or a bot; most items first (ties keep
 * the view's order, the more involved overall first). With `since` (ISO 8601), counting only the items that
 * occurred from then on, and leaving out those with none.
 */
export function keyPeopleOf(
  view: PeopleView,
  options: { since?: string; limit: number },
): { person: Person; items: number }[] {
  const { since } = options;
  return view.people
    .filter((p) => !p.isSelf && p.kind === "person")
    .map((person) => ({
      person,
      items: since
        ? person.items.filter((id) => (view.itemTimes.get(id) ?? "") >= since).length
        : person.items.length,
    }))
    .filter((x) => x.items > 0)
    .sort((x, y) => y.items - x.items)
    .slice(0, options.limit);
}

/**
 * A search's people filter through the viewer's people (SearchQuery.involving): the identifier
 * keys of `people` and of everyone the `names` name (a name, an identifier or an id, as peopleMatching reads
 * them), and the names that name none of the viewer's people, which stay a case-insensitive match on the
 * items' author and participant text.
 */
export function peopleFilter(view: PeopleView, people: Person[], names: string[]): PeopleFilter {
  const found = new Set(people);
  const unmatched: string[] = [];
  for (const name of names) {
    const matched = peopleMatching(view, name);
    if (matched.length === 0) unmatched.push(name);
    for (const person of matched) found.add(person);
  }
  const identifiers = new Set([...found].flatMap((p) => p.identifiers.map((i) => i.key)));
  return { identifiers: [...identifiers], people: unmatched };
}
