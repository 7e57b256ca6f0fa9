/**
 * The people operations, the same over HTTP and MCP: the caller's people (a view computed from the items
 * they may see, domain/people-view.ts), one person, the suggestions, and the members' corrections (merge,
 * split, distinct; listed and withdrawable; audited). A correction takes effect on the next read everywhere
 * because it changes the fingerprint every read checks (a kept view is resolved again).
 */
import { AppError, notFound } from "../domain/errors";
import type { PeopleFilter } from "../domain/items";
import { isUuid } from "../domain/memory";
import { normaliseKey, type Person, type PersonIdentifier, type Suggestion } from "../domain/people/model";
import type { StoredCorrection } from "../domain/people-store";
import {
  findPerson,
  type PeopleView,
  peopleFilter,
  peopleView,
  recentItemsOf,
  selfKeysOf,
  subjectNameOf,
} from "../domain/people-view";
import { webhookPayload } from "../domain/webhook-events";
import { localName } from "../domain/workspaces";
import { type Caller, requireScope } from "./caller";
import { PeopleViewCache } from "./people-view-cache";
import type { Services } from "./services";

export const PEOPLE_PAGE_LIMIT = { default: 50, max: 200 } as const;
/** Evidence item ids one identifier shows at most, and a person's recent items. */
export const MAX_EVIDENCE_IDS = 100;
export const RECENT_ITEMS = 10;
export const MAX_CORRECTIONS_LISTED = 500;

type PeopleServices = Pick<Services, "people" | "audit">;

/** Views resolved in this isolate, served again while the viewer's inputs are unchanged. */
const views = new PeopleViewCache();

/**
 * The caller's people as they are now (their token's email claim ties them to that address too). A view
 * kept for the viewer is checked against their fingerprint first (one small statement); only a viewer whose
 * items, corrections or address changed since, or who has none kept, pays for the evidence and the resolution.
 */
export async function viewOf(services: Pick<Services, "people">, viewerKey: string, email?: string) {
  const key = `${viewerKey}\u0000${email ?? ""}`;
  if (views.has(key)) {
    const kept = views.get(key, await services.people.fingerprint(viewerKey));
    if (kept) return kept;
  }
  const evidence = await services.people.evidence(viewerKey);
  const view = peopleView(evidence, selfKeysOf(viewerKey, [email, evidence.memberEmail]), {
    subjectName: subjectNameOf(viewerKey),
  });
  if (evidence.fingerprint !== undefined) {
    views.set(key, evidence.fingerprint, view, evidence.sightings.length);
  }
  return view;
}

const callerView = (services: Pick<Services, "people">, caller: Caller) =>
  viewOf(services, caller.subjectKey, caller.email);

/** One person as the list shows them. */
export function personSummary(person: Person) {
  return {
    id: person.id,
    name: person.name,
    kind: person.kind,
    self: person.isSelf,
    identifiers: person.identifiers.map((i) => ({ kind: i.kind, value: i.value })),
    items: person.items.length,
    lastSeen: person.lastSeen ?? null,
  };
}

const identifierDetail = (i: PersonIdentifier) => ({
  key: i.key,
  kind: i.kind,
  value: i.value,
  names: i.names,
  link: i.link,
  confidence: i.confidence,
  items: i.items.slice(-MAX_EVIDENCE_IDS),
});

/** GET /people: the caller's people, most involved first; `q` matches names and identifiers. */
export async function listPeople(
  services: PeopleServices,
  caller: Caller,
  query: { q?: string; limit: number; cursor?: string },
) {
  services.audit.begin("people.read", caller.subjectKey);
  const offset = query.cursor === undefined ? 0 : decodePeopleCursor(query.cursor);
  const view = await callerView(services, caller);
  const q = query.q?.trim().toLowerCase();
  const matching = q
    ? view.people.filter(
        (p) =>
          p.name.toLowerCase().includes(q) ||
          p.identifiers.some(
            (i) => i.value.toLowerCase().includes(q) || i.names.some((n) => n.toLowerCase().includes(q)),
          ),
      )
    : view.people;
  const page = matching.slice(offset, offset + query.limit);
  const next = offset + page.length;
  return {
    people: page.map(personSummary),
    nextCursor: next < matching.length ? encodePeopleCursor(next) : null,
    complete: !view.truncated,
  };
}

/** GET /people/:id: the person (or the person a saved id's identifier belongs to now); not_found otherwise. */
export async function getPerson(services: PeopleServices, caller: Caller, id: string) {
  const event = services.audit.begin("people.read", caller.subjectKey);
  const view = await callerView(services, caller);
  const person = findPerson(view, id);
  if (!person) throw notFound("Person");
  const recent = recentItemsOf(view, person, RECENT_ITEMS);
  event.itemIds = recent;
  return {
    ...personSummary(person),
    requestedId: id,
    identifiers: person.identifiers.map(identifierDetail),
    recentItems: recent,
  };
}

/** GET /people/suggestions: pairs waiting for a member, best first, with the people they would join. */
export async function listSuggestions(services: PeopleServices, caller: Caller) {
  services.audit.begin("people.read", caller.subjectKey);
  const view = await callerView(services, caller);
  return { suggestions: view.suggestions.map((s) => suggestionJson(view, s)) };
}

function suggestionJson(view: PeopleView, s: Suggestion) {
  const side = (key: string) => {
    const person = view.personOf.get(key);
    return { identifier: key, person: person ? { id: person.id, name: person.name } : null };
  };
  return { a: side(s.a), b: side(s.b), score: s.score, reasons: s.reasons };
}

export type CorrectionKind = StoredCorrection["kind"];

/**
 * POST /people/merge|split|distinct: a stored, audited assertion over identifiers the caller sees. `a` and
 * `b` are identifier keys or person ids (a person stands for its first identifier). Accepting a suggestion
 * is a merge of its pair; rejecting it is a distinct.
 */
export async function correctPeople(
  services: Pick<Services, "people" | "audit" | "clock" | "webhookEvents">,
  caller: Caller,
  kind: CorrectionKind,
  input: { a: string; b?: string },
) {
  services.audit.begin(`person.${kind}`, caller.subjectKey);
  requireScope(caller, "items:write");
  const view = await callerView(services, caller);
  const a = identifierOf(view, input.a, "a");
  const b = kind === "split" ? null : identifierOf(view, input.b ?? "", "b");
  if (b !== null && a === b) throw new AppError("bad_request", '"a" and "b" are the same identifier');
  const correction: Omit<StoredCorrection, "withdrawnAt"> = {
    id: crypto.randomUUID(),
    kind,
    a,
    b,
    authorKey: caller.subjectKey,
    createdAt: services.clock.now(),
  };
  await services.people.addCorrection(caller.workspaceId, correction);
  await announceCorrection(services, caller, correction, false);
  return correctionJson({ ...correction, withdrawnAt: null });
}

/** An identifier key or person id the viewer sees, as an identifier key; not_found otherwise. */
function identifierOf(view: PeopleView, ref: string, name: string): string {
  const trimmed = ref.trim();
  if (!trimmed) throw new AppError("bad_request", `"${name}" must name an identifier or a person`);
  if (/^p_[0-9a-f]{16}$/.test(trimmed)) {
    const person = findPerson(view, trimmed);
    if (!person) throw notFound("Person");
    return person.identifiers[0]!.key;
  }
  const key = normaliseKey(trimmed);
  if (!key) {
    throw new AppError(
      "bad_request",
      `"${name}" must be a person id (p_…) or an identifier such as email:ada@example.com`,
    );
  }
  if (!view.visibleKeys.has(key)) throw notFound("Identifier");
  return key;
}

export function correctionJson(c: StoredCorrection) {
  return {
    id: c.id,
    kind: c.kind,
    a: c.a,
    b: c.b,
    author: localName(c.authorKey),
    createdAt: c.createdAt.toISOString(),
    withdrawnAt: c.withdrawnAt?.toISOString() ?? null,
  };
}

/** GET /people/corrections: the workspace's corrections about identifiers the caller sees, newest first. */
export async function listCorrections(services: PeopleServices, caller: Caller) {
  services.audit.begin("people.read", caller.subjectKey);
  const [view, all] = await Promise.all([
    callerView(services, caller),
    services.people.corrections(caller.workspaceId, { withdrawn: true, limit: MAX_CORRECTIONS_LISTED }),
  ]);
  const visible = all.filter((c) => view.visibleKeys.has(c.a) && (c.b === null || view.visibleKeys.has(c.b)));
  return { corrections: visible.map(correctionJson) };
}

/** DELETE /people/corrections/:id: withdraws a correction the caller sees; not_found otherwise. */
export async function withdrawCorrection(
  services: Pick<Services, "people" | "audit" | "clock" | "webhookEvents">,
  caller: Caller,
  id: string,
) {
  services.audit.begin("person.correction.withdraw", caller.subjectKey);
  requireScope(caller, "items:write");
  if (!isUuid(id)) throw notFound("Correction");
  const view = await callerView(services, caller);
  const correction = view.corrections.find((c) => c.id === id);
  if (!correction) throw notFound("Correction");
  const withdrawn = await services.people.withdrawCorrection(caller.workspaceId, id, services.clock.now());
  if (!withdrawn) throw notFound("Correction");
  await announceCorrection(services, caller, withdrawn, true);
  return correctionJson(withdrawn);
}

/** `person.corrected` to the workspace's webhooks: the correction's id and kind, never the identifiers. */
function announceCorrection(
  services: Pick<Services, "clock" | "webhookEvents">,
  caller: Caller,
  correction: Pick<StoredCorrection, "id" | "kind">,
  withdrawn: boolean,
) {
  return services.webhookEvents.emit(
    webhookPayload("person.corrected", caller.workspaceId, services.clock.now(), {
      correction: correction.id,
      kind: correction.kind,
      withdrawn,
    }),
  );
}

/**
 * The people a search names, through the caller's people (domain/people-view.ts peopleFilter): `person` ids
 * (each must be one of the caller's people: bad_request otherwise) and `people` names; a name that names
 * none of them stays a text match.
 */
export async function searchIdentifiers(
  services: Pick<Services, "people">,
  viewer: { subjectKey: string; email?: string },
  filter: { person?: string[]; people?: string[] },
): Promise<PeopleFilter | undefined> {
  if (!filter.person?.length && !filter.people?.length) return undefined;
  const view = await viewOf(services, viewer.subjectKey, viewer.email);
  const people = (filter.person ?? []).map((id) => {
    const person = findPerson(view, id);
    if (!person) throw new AppError("bad_request", `person "${id}" is not one of your people`);
    return person;
  });
  return peopleFilter(view, people, filter.people ?? []);
}

const CURSOR_PREFIX = "o";

function encodePeopleCursor(offset: number): string {
  return `${CURSOR_PREFIX}${offset}`;
}

function decodePeopleCursor(cursor: string): number {
  const match = /^o(\d{1,7})$/.exec(cursor);
  if (!match) throw new AppError("bad_request", "cursor is not one this list gave");
  return Number(match[1]);
}
