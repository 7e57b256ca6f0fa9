import type { PreviousMemory } from "../domain/generation";
import type { ItemStore } from "../domain/items";
import type { RefTable } from "./refs";

/** A statement as the model sees it in this run: citations are this run's refs. */
export interface RefStatement {
  section: string;
  text: string;
  refs: string[];
}

export interface PreparedPrevious {
  generatedAt: Date;
  statements: RefStatement[];
  /** Statements left out because they cite an item the subject can no longer see. */
  dropped: number;
}

/**
 * Registers the previous memory's cited items first, so its lines can be shown with this run's refs and
 * kept by copying. A statement citing any item the subject can no longer see (deleted or unshared) is
 * dropped, as redaction does for stored versions: what it said may have come from that item.
 */
export async function preparePrevious(
  items: ItemStore,
  subjectKey: string,
  previous: PreviousMemory,
  refs: RefTable,
): Promise<PreparedPrevious> {
  const cited = [...new Set(previous.statements.flatMap((s) => s.itemIds))];
  const visible = new Map((await items.getMany(subjectKey, cited)).map((item) => [item.id, item]));
  for (const id of cited) {
    const item = visible.get(id);
    if (item) refs.register(item);
  }
  const statements: RefStatement[] = [];
  for (const statement of previous.statements) {
    if (statement.itemIds.length === 0 || !statement.itemIds.every((id) => visible.has(id))) continue;
    statements.push({
      section: statement.section,
      text: statement.text,
      refs: statement.itemIds.map((id) => refs.refOf(id)!),
    });
  }
  return {
    generatedAt: previous.generatedAt,
    statements,
    dropped: previous.statements.length - statements.length,
  };
}
