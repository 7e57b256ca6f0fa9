/**
 * The share of drafted statements that did not survive: those the deterministic checks or the judge made
 * the generator drop or rewrite. Drafts are the generator's final answers during a run (the first and,
 * after feedback, the revision); a statement survives when the accepted memory has the same text.
 */
import { extractMemoryBlock, parseMemory } from "../../src/agent/parse-memory";
import type { ObservedStatement } from "./observation";

export interface DraftOutcome {
  drafted: number;
  dropped: number;
  /** Texts of the dropped statements. */
  droppedTexts: string[];
}

export function draftOutcome(drafts: string[], accepted: ObservedStatement[] | null): DraftOutcome {
  const drafted = new Map<string, string>();
  for (const draft of drafts) {
    const block = extractMemoryBlock(draft);
    if (!block.ok) continue;
    for (const s of parseMemory(block.block).statements) drafted.set(normalize(s.text), s.text);
  }
  const kept = new Set((accepted ?? []).map((s) => normalize(s.text)));
  const droppedTexts = [...drafted].filter(([key]) => !kept.has(key)).map(([, text]) => text);
  return { drafted: drafted.size, dropped: droppedTexts.length, droppedTexts };
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();
