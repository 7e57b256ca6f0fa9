/**
 * The people operations: the caller's people (identifiers resolved into persons from the items the caller
 * may see), one person, the suggestions waiting for a member, and the members' corrections (merge, split,
 * distinct; listed and withdrawable). Part of the operation table (operations.ts); docs/people.md.
 */
import { z } from "zod";
import { MAX_CORRECTIONS_LISTED, PEOPLE_PAGE_LIMIT } from "../app/people";
import { IDENTIFIER_KINDS } from "../domain/people/model";
import { MAX_EVIDENCE_SIGHTINGS } from "../domain/people-store";
import { textProblem } from "../domain/safe-text";
import { errorBody } from "./answers";
import { type Answer, operation } from "./operation";

const refusal = (description: string): Answer => ({ description, schema: errorBody });
const MAX_CORRECTION_BODY_BYTES = 4 * 1024;
const dateTime = z.iso.datetime({ offset: true });

const REF_MESSAGE =
  "must be a person id (p_…) or an identifier such as email:ada@example.com, at most 700 characters";
const ref = z
  .string(REF_MESSAGE)
  .min(1, REF_MESSAGE)
  .max(700, REF_MESSAGE)
  .refine((v) => textProblem(v) === null, REF_MESSAGE);
const LIMIT_MESSAGE = `must be a whole number from 1 to ${PEOPLE_PAGE_LIMIT.max}`;

export const peopleQuery = z.object({
  q: z
    .string()
    .max(200, "must be at most 200 characters")
    .refine((v) => textProblem(v) === null, "must be valid text")
    .optional(),
  limit: z.coerce
    .number(LIMIT_MESSAGE)
    .int(LIMIT_MESSAGE)
    .min(1, LIMIT_MESSAGE)
    .max(PEOPLE_PAGE_LIMIT.max, LIMIT_MESSAGE)
    .default(PEOPLE_PAGE_LIMIT.default),
  cursor: z.string().max(20).optional(),
});

const identifierKind = z.enum(IDENTIFIER_KINDS);
const linkKind = z
  .enum(["hard", "scored", "confirmed", "self"])
  .describe(
    "How the identifier is tied into its person: confirmed by a member's merge, hard (one source record ties " +
      "it), scored (by names, addresses and co-occurrence; confidence below 1), or self (alone, or one of the " +
      "caller's own)",
  );

const personSummary = z.object({
  id: z.string().describe("Stable id of the person (p_ and 16 hex digits), from its first identifier"),
  name: z.string(),
  kind: z
    .enum(["person", "mailbox", "bot"])
    .describe("mailbox: a shared address (team@, support@); bot: automated"),
  self: z.boolean().describe("The caller herself (holds user:<id> or her address)"),
  identifiers: z.array(z.object({ kind: identifierKind, value: z.string() })),
  items: z.number().int().describe("Items the caller may see that name the person"),
  lastSeen: dateTime.nullable(),
});

export const peopleResponse = z.object({
  people: z.array(personSummary),
  nextCursor: z.string().nullable(),
  complete: z
    .boolean()
    .describe(
      `False when the caller's items hold more than ${MAX_EVIDENCE_SIGHTINGS.toLocaleString("en")} sightings of people: the people are then those of their newest items, and someone seen only in older items is not listed`,
    ),
});

export const personResponse = personSummary.extend({
  requestedId: z.string().describe("The id asked for: differs from id when a merge or split moved it"),
  identifiers: z.array(
    z.object({
      key: z.string().describe("kind:value, what corrections name"),
      kind: identifierKind,
      value: z.string(),
      names: z.array(z.string()).describe("Names the identifier carried, most frequent first"),
      link: linkKind,
      confidence: z.number(),
      items: z.array(z.uuid()).describe("Evidence: the items it was seen in (the latest 100)"),
    }),
  ),
  recentItems: z.array(z.uuid()).describe("The person's latest items, newest first"),
});

const side = z.object({
  identifier: z.string(),
  person: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export const suggestionsResponse = z.object({
  suggestions: z.array(
    z.object({
      a: side,
      b: side,
      score: z.number().describe("Sum of the matching features' weights (docs/people.md)"),
      reasons: z.array(z.string()),
    }),
  ),
});

export const correctionResponse = z.object({
  id: z.uuid(),
  kind: z.enum(["merge", "split", "distinct"]),
  a: z.string(),
  b: z.string().nullable(),
  author: z.string().describe("The member who made it"),
  createdAt: dateTime,
  withdrawnAt: dateTime.nullable(),
});
export const correctionsResponse = z.object({ corrections: z.array(correctionResponse) });

const pairBody = z.strictObject({ a: ref, b: ref });
const splitBody = z.strictObject({ identifier: ref });

export const listPeople = operation({
  id: "listPeople",
  method: "GET",
  path: "/people",
  access: "memory:read",
  summary: "The caller's people, most involved first",
  description:
    "Computed on each request from the items the caller may see and the workspace's corrections: an item " +
    "the caller loses access to takes what it alone said about people with it.",
  query: peopleQuery,
  docs: {
    q: "Only people whose name, a name of an identifier, or an identifier contains this (any case)",
    limit: "Page size",
    cursor: "nextCursor of the previous page",
  },
  answers: {
    200: { description: "One page of people", schema: peopleResponse },
    400: refusal("Bad parameter"),
  },
  audit: ["people.read"],
});

export const peopleSuggestions = operation({
  id: "peopleSuggestions",
  method: "GET",
  path: "/people/suggestions",
  access: "memory:read",
  summary:
    "Pairs of identifiers that may be one person, waiting for a member (accept: merge; reject: distinct)",
  answers: { 200: { description: "The suggestions, best first", schema: suggestionsResponse } },
  audit: ["people.read"],
});

export const listPeopleCorrections = operation({
  id: "listPeopleCorrections",
  method: "GET",
  path: "/people/corrections",
  access: "memory:read",
  summary: `The workspace's people corrections about identifiers the caller sees, newest first (at most ${MAX_CORRECTIONS_LISTED})`,
  answers: { 200: { description: "The corrections, withdrawn ones included", schema: correctionsResponse } },
  audit: ["people.read"],
});

export const getPerson = operation({
  id: "getPerson",
  method: "GET",
  path: "/people/{id}",
  access: "memory:read",
  summary: "One person: every identifier, its names, how it is linked, its evidence, and recent items",
  description:
    "A saved id keeps working: after a merge or split it answers the person its identifier belongs to now " +
    "(`id` then differs from `requestedId`).",
  params: z.object({ id: z.string().max(100) }),
  docs: { id: "Person id" },
  answers: {
    200: { description: "The person", schema: personResponse },
    404: refusal("No such person among the caller's people"),
  },
  audit: ["people.read"],
});

const correctionAnswers = (what: string) => ({
  201: { description: `The ${what}, stored and applied from the next read on`, schema: correctionResponse },
  400: refusal("Not a person id or identifier, or the same identifier twice"),
  403: refusal("The token lacks the items:write scope"),
  404: refusal("A person or identifier the caller does not see"),
});

export const mergePeople = operation({
  id: "mergePeople",
  method: "POST",
  path: "/people/merge",
  access: "items:write",
  scopeCheckedByOperation: true,
  summary: "Assert that two identifiers (or people) are one person; accepting a suggestion is this",
  body: { schema: pairBody, required: true, maxBytes: MAX_CORRECTION_BODY_BYTES },
  answers: correctionAnswers("merge"),
  audit: ["person.merge"],
});

export const splitPerson = operation({
  id: "splitPerson",
  method: "POST",
  path: "/people/split",
  access: "items:write",
  scopeCheckedByOperation: true,
  summary: "Take an identifier out of its person (it keeps only links members confirmed)",
  body: { schema: splitBody, required: true, maxBytes: MAX_CORRECTION_BODY_BYTES },
  answers: correctionAnswers("split"),
  audit: ["person.split"],
});

export const distinctPeople = operation({
  id: "distinctPeople",
  method: "POST",
  path: "/people/distinct",
  access: "items:write",
  scopeCheckedByOperation: true,
  summary: "Assert that two identifiers (or people) are never one person; rejecting a suggestion is this",
  body: { schema: pairBody, required: true, maxBytes: MAX_CORRECTION_BODY_BYTES },
  answers: correctionAnswers("distinct"),
  audit: ["person.distinct"],
});

export const withdrawPeopleCorrection = operation({
  id: "withdrawPeopleCorrection",
  method: "DELETE",
  path: "/people/corrections/{id}",
  access: "items:write",
  scopeCheckedByOperation: true,
  summary: "Withdraw a correction: people are resolved without it from the next read on",
  params: z.object({ id: z.string().max(100) }),
  docs: { id: "Correction id" },
  answers: {
    200: { description: "The withdrawn correction", schema: correctionResponse },
    403: refusal("The token lacks the items:write scope"),
    404: refusal("No such active correction about identifiers the caller sees"),
  },
  audit: ["person.correction.withdraw"],
});

/** In the order the document lists them (the fixed paths before /people/{id}). */
export const peopleOperations = [
  listPeople,
  peopleSuggestions,
  listPeopleCorrections,
  getPerson,
  mergePeople,
  splitPerson,
  distinctPeople,
  withdrawPeopleCorrection,
] as const;
