/** Keyword matching shared by the deterministic answerer and the scoring of answers. */
import type { Keywords } from "../../fixtures/demo/eval-types";

/** Every keyword (or one of its "|" alternatives) occurs in `text`, case-insensitively. */
export function matchesKeywords(text: string, keywords: Keywords): boolean {
  const lower = text.toLowerCase();
  return (
    keywords.length > 0 &&
    keywords.every((k) =>
      k
        .split("|")
        .map((alt) => alt.trim().toLowerCase())
        .some((alt) => alt !== "" && lower.includes(alt)),
    )
  );
}

/** Any of `words` occurs in `text`, case-insensitively. */
export function mentionsAny(text: string, words: readonly string[] | undefined): boolean {
  const lower = text.toLowerCase();
  return (words ?? []).some((w) => w !== "" && lower.includes(w.toLowerCase()));
}
