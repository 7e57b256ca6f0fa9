/** Redaction: what a memory version becomes once its subject can no longer see some of the items it cites. */
import type { Statement } from "../domain/memory";
import { renderMemory, withoutCitationsOf } from "../domain/memory-render";
import type { RedactedVersion } from "./erasure-store";

export interface CitingVersion {
  id: string;
  subjectKey: string;
  statements: Statement[];
}

/**
 * Every statement that cites a removed item is dropped (the whole statement: its other citations do not
 * vouch for what the removed item said); the markdown and the citation list are re-rendered from what is
 * left, so [n] marks stay consistent.
 */
export function redactVersion(version: CitingVersion, removedIds: ReadonlySet<string>): RedactedVersion {
  const statements = withoutCitationsOf(version.statements, removedIds);
  const { markdown, citedIds } = renderMemory(statements);
  return { id: version.id, subjectKey: version.subjectKey, markdown, statements, citedItemIds: citedIds };
}
