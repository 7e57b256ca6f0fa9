import type { Statement } from "./memory";

/**
 * Renders statements as the served markdown: one "## Section" per section (in first-seen order), one
 * bullet per statement, citations as [n] where n is the 1-based position of the item in `citedIds`.
 * The same function renders a fresh memory and a redacted one, so both read alike.
 */
export function renderMemory(statements: Statement[]): { markdown: string; citedIds: string[] } {
  const citedIds: string[] = [];
  const position = new Map<string, number>();
  const sections = new Map<string, string[]>();
  for (const statement of statements) {
    const marks = statement.itemIds.map((id) => {
      let n = position.get(id);
      if (n === undefined) {
        citedIds.push(id);
        n = citedIds.length;
        position.set(id, n);
      }
      return `[${n}]`;
    });
    const lines = sections.get(statement.section) ?? [];
    lines.push(`- ${statement.text} ${marks.join("")}`.trimEnd());
    sections.set(statement.section, lines);
  }
  const markdown = [...sections.entries()]
    .map(([title, lines]) => `## ${title}\n${lines.join("\n")}`)
    .join("\n\n");
  return { markdown, citedIds };
}

/** Statements without any that cite one of `removedIds`. */
export function withoutCitationsOf(statements: Statement[], removedIds: ReadonlySet<string>): Statement[] {
  return statements.filter((s) => !s.itemIds.some((id) => removedIds.has(id)));
}
