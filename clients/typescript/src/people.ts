/** The caller's people (every address and account one human uses) and the members' people corrections. */
import { request } from "./operations.js";
import { Paginator } from "./pages.js";
import type { Transport } from "./transport.js";
import type { Correction, CorrectionsList, PeoplePage, Person, PersonDetail, Suggestions } from "./types.js";

export class PeopleApi {
  constructor(private readonly transport: Transport) {}

  /** The caller's people, most involved first (`q` matches names and identifiers), across pages. */
  list(options: { q?: string; limit?: number } = {}): Paginator<Person, PeoplePage> {
    return new Paginator<Person, PeoplePage>(
      (cursor) =>
        this.transport.json<PeoplePage>(
          request("listPeople", { query: { q: options.q, limit: options.limit, cursor } }),
        ),
      (page) => ({ entries: page.people, nextCursor: page.nextCursor }),
    );
  }

  /** One person; a saved id answers the person its identifier belongs to now (404 not_found otherwise). */
  get(id: string): Promise<PersonDetail> {
    return this.transport.json(request("getPerson", { params: { id } }));
  }

  /** Pairs that may be one person: accept with `merge`, reject with `distinct`. */
  suggestions(): Promise<Suggestions> {
    return this.transport.json(request("peopleSuggestions"));
  }

  /** Two identifiers (`email:ada@acme.com`) or person ids are one person. */
  merge(a: string, b: string): Promise<Correction> {
    return this.transport.json(request("mergePeople", { body: { a, b } }));
  }

  /** Takes an identifier out of its person. */
  split(identifier: string): Promise<Correction> {
    return this.transport.json(request("splitPerson", { body: { identifier } }));
  }

  /** Two identifiers or person ids are never one person. */
  distinct(a: string, b: string): Promise<Correction> {
    return this.transport.json(request("distinctPeople", { body: { a, b } }));
  }

  /** The workspace's corrections about identifiers the caller sees, newest first. */
  corrections(): Promise<CorrectionsList> {
    return this.transport.json(request("listPeopleCorrections"));
  }

  /** Withdraws a correction: people are resolved without it from the next read on. */
  withdraw(id: string): Promise<Correction> {
    return this.transport.json(request("withdrawPeopleCorrection", { params: { id } }));
  }
}
