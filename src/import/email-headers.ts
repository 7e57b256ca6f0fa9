/**
 * Mail header values made storable, for every path that turns a message into an item (the mbox and eml
 * importers, the Worker's inbound email handler): NULs removed, well-formed Unicode, lengths within the
 * item's limits, dates within the years the service stores, recipient lists within the participants cap
 * (the rest kept in metadata with their count). Pure.
 */
import { isStorableInstant } from "../domain/instants";
import { MAX_PARTICIPANTS } from "../domain/item-schema";
import { storableText } from "./text";

/** POST /items takes participants of at most this many characters. */
export const MAX_PARTICIPANT_CHARS = 500;
/** Recipients past MAX_PARTICIPANTS go in metadata up to this much text and this many entries (metadata
 * is capped at 256 KB and 10,000 values). */
export const MAX_OVERFLOW_CHARS = 96 * 1024;
export const MAX_OVERFLOW_ENTRIES = 5000;

/** An instant as ISO 8601, or undefined when it is not one or falls outside the years the service stores. */
export function storableIso(ms: number): string | undefined {
  const date = new Date(ms);
  return isStorableInstant(date) ? date.toISOString() : undefined;
}

/** A Date header (or any date text `Date.parse` reads) as a storable ISO 8601 instant, else undefined. */
export function headerDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return storableIso(Date.parse(value));
}

/** A header's text as Postgres and the API take it: no NUL, well-formed, trimmed, at most `max` long. */
export function cleanHeaderText(value: string | undefined, max = 1000): string | undefined {
  return storableText(value, max);
}

/**
 * `Name <address>`, or the bare address when the name is empty, the same, or would make it too long for a
 * participant; undefined when nothing is left.
 */
export function mailboxText(name: string, address: string): string | undefined {
  const n = cleanHeaderText(name, MAX_PARTICIPANT_CHARS) ?? "";
  const addr = cleanHeaderText(address, MAX_PARTICIPANT_CHARS) ?? "";
  if (!addr) return n || undefined;
  const full = n && n !== addr ? `${n} <${addr}>` : addr;
  return full.length <= MAX_PARTICIPANT_CHARS ? full : addr;
}

export interface BoundedParticipants {
  /** At most MAX_PARTICIPANTS distinct mailboxes, in order. */
  participants: string[];
  /** Metadata for the rest, when there were more: their total count and as many of them as fit. */
  overflow?: { participantCount: number; moreParticipants: string[]; moreParticipantsOmitted?: number };
}

/** Distinct mailboxes within the participants cap; the ones past it kept (bounded) for metadata. */
export function boundParticipants(mailboxes: string[]): BoundedParticipants {
  const distinct = [...new Set(mailboxes)];
  if (distinct.length <= MAX_PARTICIPANTS) return { participants: distinct };
  const rest = distinct.slice(MAX_PARTICIPANTS);
  const kept: string[] = [];
  let chars = 0;
  for (const mailbox of rest) {
    chars += mailbox.length + 3;
    if (chars > MAX_OVERFLOW_CHARS || kept.length >= MAX_OVERFLOW_ENTRIES) break;
    kept.push(mailbox);
  }
  return {
    participants: distinct.slice(0, MAX_PARTICIPANTS),
    overflow: {
      participantCount: distinct.length,
      moreParticipants: kept,
      ...(kept.length < rest.length ? { moreParticipantsOmitted: rest.length - kept.length } : {}),
    },
  };
}
