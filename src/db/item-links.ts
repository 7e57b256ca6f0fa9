/**
 * The links an ingested item declares: its explicit `links`, plus @-mentions written in its body.
 *
 * Mention syntax (documented in the README):
 * - `@[source:externalId]` names an item of the owner by source and external id (split at the first colon);
 *   `@[externalId]` names one in the mentioning item's own source. Like explicit links, these are kept
 *   even when the target does not exist yet, and resolve when it is ingested.
 * - A bare `@externalId` (letters, digits and `._-/#:`, not preceded by a letter or digit, so e-mail
 *   addresses do not count) is a mention only if one of the owner's items has that external id at ingest
 *   time (the mentioning item's own source first); otherwise it is ordinary text and is dropped.
 */
import type { ItemInput } from "../domain/item-schema";

export const DEFAULT_LINK_KIND = "reference";
export const MENTION_KIND = "mention";
const MAX_MENTIONS = 100;

/** One link to write: `targetSource` null means a bare mention, resolved by external id alone. */
export interface LinkSpec {
  targetSource: string | null;
  targetExternalId: string;
  kind: string;
}

const BRACKETED = /@\[([^\]\n]{1,600})\]/g;
const BARE = /(?<![\p{L}\p{N}_@.])@([\p{L}\p{N}][\p{L}\p{N}._\-/#:]{0,199})/gu;

export function parseMentions(body: string, ownSource: string): LinkSpec[] {
  const specs: LinkSpec[] = [];
  for (const match of body.matchAll(BRACKETED)) {
    const inner = match[1]!.trim();
    const colon = inner.indexOf(":");
    const [targetSource, targetExternalId] =
      colon > 0 ? [inner.slice(0, colon).trim(), inner.slice(colon + 1).trim()] : [ownSource, inner];
    if (targetExternalId) specs.push({ targetSource, targetExternalId, kind: MENTION_KIND });
  }
  const withoutBracketed = body.replace(BRACKETED, " ");
  for (const match of withoutBracketed.matchAll(BARE)) {
    const token = match[1]!.replace(/[._\-/#:]+$/, "");
    if (token) specs.push({ targetSource: null, targetExternalId: token, kind: MENTION_KIND });
  }
  return dedupe(specs).slice(0, MAX_MENTIONS);
}

/** Explicit links (source defaults to the item's own, kind to "reference") followed by body mentions. */
export function linkSpecs(item: ItemInput): LinkSpec[] {
  const explicit = (item.links ?? []).map((link) => ({
    targetSource: link.source ?? item.source,
    targetExternalId: link.externalId,
    kind: link.kind ?? DEFAULT_LINK_KIND,
  }));
  return dedupe([...explicit, ...parseMentions(item.body, item.source)]).filter(
    (spec) => !(spec.targetSource === item.source && spec.targetExternalId === item.externalId),
  );
}

function dedupe(specs: LinkSpec[]): LinkSpec[] {
  const seen = new Set<string>();
  return specs.filter((spec) => {
    const key = JSON.stringify([spec.targetSource, spec.targetExternalId, spec.kind]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
