/**
 * The people a memory's statements are about, resolved by the service from the items each statement cites
 * (never guessed by the model): every person its cited items name, but never the subject herself, a shared
 * mailbox or a bot; those named by more of its items first, then the more involved. Pure.
 */
import type { Statement, StatementPerson } from "../domain/memory";
import type { Person } from "../domain/people/model";
import type { PeopleView } from "../domain/people-view";

/** People one statement carries at most. */
export const MAX_STATEMENT_PEOPLE = 10;

export function withStatementPeople(view: PeopleView, statements: Statement[]): Statement[] {
  const byItem = new Map<string, Person[]>();
  view.people.forEach((person) => {
    if (person.isSelf || person.kind !== "person") return;
    for (const id of person.items) byItem.set(id, [...(byItem.get(id) ?? []), person]);
  });
  const rank = new Map(view.people.map((p, i) => [p.id, i]));
  return statements.map((s) => {
    const counts = new Map<string, { person: Person; n: number }>();
    for (const id of s.itemIds) {
      for (const person of byItem.get(id) ?? []) {
        const entry = counts.get(person.id) ?? { person, n: 0 };
        entry.n += 1;
        counts.set(person.id, entry);
      }
    }
    const people: StatementPerson[] = [...counts.values()]
      .sort((x, y) => y.n - x.n || (rank.get(x.person.id) ?? 0) - (rank.get(y.person.id) ?? 0))
      .slice(0, MAX_STATEMENT_PEOPLE)
      .map(({ person }) => ({ id: person.id, name: person.name }));
    return { ...s, people };
  });
}
