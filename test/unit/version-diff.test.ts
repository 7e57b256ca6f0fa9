/**
 * A version's diff names what was dismissed from it after it was written: with the dismissal's words and
 * reason while the dismissal stands, without words once it is withdrawn, and never a redacted statement's
 * words.
 */
import { describe, expect, it } from "vitest";
import type { RemovedStatement, Statement } from "../../src/domain/memory";
import type { VersionDetail } from "../../src/memory/memory-reader";
import { diffVersions, type StandingDismissal } from "../../src/memory/version-diff";

const ITEM = "11111111-1111-4111-8111-111111111111";
const at = new Date("2026-12-01T10:00:00Z");

function version(id: string, statements: Statement[], removed: RemovedStatement[] = []): VersionDetail {
  return {
    id,
    createdAt: at,
    runId: null,
    generatorModel: "anthropic:fake-generator",
    judgeModel: "openai:fake-judge",
    statementCount: statements.length,
    redactedAt: removed.length > 0 ? at : null,
    current: true,
    markdown: "",
    statements,
    verdict: { accepted: true, reason: "ok", unsupported: [] },
    citations: [{ id: ITEM, kind: "note", title: "Notes", occurredAt: "2026-11-30T00:00:00.000Z" }],
    generatedAt: at,
    removed,
    run: null,
  };
}

const kept: Statement = { id: "s-kept", section: "Work", text: "Leads payments", itemIds: [ITEM] };
const dismissedAt = "2026-12-02T09:00:00.000Z";
const removedLog: RemovedStatement[] = [
  { id: "s-gone", section: "Work", reason: "dismissed", at: dismissedAt },
  { id: "s-lost", section: "Work", reason: "redacted", at: dismissedAt },
];
const dismissal: StandingDismissal = {
  id: "22222222-2222-4222-8222-222222222222",
  statementId: "s-gone",
  text: "Reviews every pull request",
  reason: "Omar does now",
  at: new Date(dismissedAt),
  citations: [{ id: ITEM, kind: "note", title: "Notes", occurredAt: null }],
};

describe("diffVersions", () => {
  it("lists a statement dismissed from the first version with the dismissal's words and reason", () => {
    const diff = diffVersions(null, version("v1", [kept], removedLog), [dismissal]);
    expect(diff.added.map((s) => s.id)).toEqual(["s-kept"]);
    expect(diff.removed).toEqual([
      {
        statement: {
          id: "s-gone",
          section: "Work",
          text: "Reviews every pull request",
          citations: dismissal.citations,
          since: null,
          firstStated: null,
          people: [],
        },
        reason: "dismissed",
        dismissal: { id: dismissal.id, reason: "Omar does now", at: dismissedAt },
      },
    ]);
  });

  it("keeps it listed without words once the dismissal is withdrawn", () => {
    const diff = diffVersions(null, version("v1", [kept], removedLog), []);
    expect(diff.removed).toEqual([
      {
        statement: expect.objectContaining({ id: "s-gone", text: null, citations: [] }),
        reason: "dismissed",
      },
    ]);
  });

  it("attaches the dismissal to a statement the older version held", () => {
    const gone: Statement = {
      id: "s-gone",
      section: "Work",
      text: "Reviews every pull request",
      itemIds: [ITEM],
    };
    const diff = diffVersions(version("v1", [kept, gone]), version("v2", [kept], removedLog), [dismissal]);
    expect(diff.removed).toEqual([
      {
        statement: expect.objectContaining({ id: "s-gone", text: "Reviews every pull request" }),
        reason: "dismissed",
        dismissal: { id: dismissal.id, reason: "Omar does now", at: dismissedAt },
      },
    ]);
    expect(diff.kept.map((s) => s.id)).toEqual(["s-kept"]);
  });
});
