import { UNTRUSTED_CLOSE, UNTRUSTED_OPEN } from "./wire-format";

/** Tags that structure what the models see; item text must never be able to open or close one. */
const STRUCTURAL_TAG =
  /<\s*(\/?)\s*(untrusted|memory|previous_memory|changes_since_previous|dismissed_statements|item|statement)\b/gi;

/** Cuts text to `max` characters, saying so, so the model knows it did not see everything. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [truncated, ${text.length - max} more characters]`;
}

/** Defuses structural tags inside data: "<untrusted>" becomes "‹untrusted>", so data cannot escape its wrapper. */
export function defuseTags(text: string): string {
  return text.replace(STRUCTURAL_TAG, "‹$1$2");
}

/** Item text as the model sees it: bounded, tags defused, inside <untrusted>...</untrusted>. */
export function untrusted(text: string, max: number): string {
  return `${UNTRUSTED_OPEN}${defuseTags(truncate(text, max))}${UNTRUSTED_CLOSE}`;
}
