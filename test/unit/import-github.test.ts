import { describe, expect, it } from "vitest";
import { parseGithub } from "../../src/import/github";
import { JsonRecordSplitter, jsonRecordsOfText } from "../../src/import/json-records";
import pages from "../fixtures/import/github/octokit-fixtures-paginate-issues.json?raw";
import webhookObjects from "../fixtures/import/github/octokit-webhooks-issue-and-pull.ndjson?raw";
import { collect } from "../support/import-events";
import { chunks, elapsedMs } from "../support/import-hostile";

const REPO = "octokit-fixture-org/tmp-scenario-paginate-issues-20220719043836917-izyoe";

describe("the GitHub parser", () => {
  it("maps a real list-issues response (octokit/fixtures, five pages) to 13 tasks keyed owner/repo#number", () => {
    const { items, errors } = collect(parseGithub({ path: "issues.json", text: pages }));
    expect(errors).toEqual([]);
    expect(items.map((i) => i.externalId)).toEqual(Array.from({ length: 13 }, (_, i) => `${REPO}#${13 - i}`));
    expect(items[0]).toMatchObject({
      kind: "task",
      title: "Test issue 13",
      body: "",
      author: "octokit-fixture-user-a",
      occurredAt: "2022-07-19T04:39:16.000Z",
      url: `https://github.com/${REPO}/issues/13`,
      metadata: {
        repository: REPO,
        number: 13,
        state: "open",
        labels: [],
        authorLogin: "octokit-fixture-user-a",
      },
    });
  });

  it("maps NDJSON of a real issue and a pulls-endpoint pull request (octokit/webhooks examples)", () => {
    const { items } = collect(parseGithub({ path: "mixed.ndjson", text: webhookObjects }));
    expect(items.map((i) => [i.externalId, i.kind])).toEqual([
      ["Codertocat/Hello-World#1", "task"],
      ["Codertocat/Hello-World#2", "pull_request"],
    ]);
    expect(items[0]).toMatchObject({
      title: "Spelling error in the README file",
      author: "Codertocat",
      metadata: expect.objectContaining({
        state: "open",
        labels: ["bug"],
        milestone: "v1.0",
        assignees: ["Codertocat"],
      }),
      people: [{ role: "author", handles: [{ kind: "github", value: "Codertocat" }] }],
    });
    expect(items[1]).toMatchObject({
      url: "https://github.com/Codertocat/Hello-World/pull/2",
      metadata: expect.objectContaining({
        state: "closed",
        labels: ["bug"],
        closedAt: "2019-05-15T15:21:18Z",
      }),
    });
  });

  it("turns #123, owner/repo#45 and issue URLs into links, outside code, and knows PRs from the issues endpoint", () => {
    const record = {
      number: 7,
      title: "Fix crash (#3)",
      body: "Closes #5, relates to acme/other#45 and https://github.com/acme/widgets/pull/9. Not `#8` nor #7 itself.",
      created_at: "2024-01-02T03:04:05Z",
      repository_url: "https://api.github.com/repos/acme/widgets",
      html_url: "https://github.com/acme/widgets/pull/7",
      pull_request: {
        url: "https://api.github.com/repos/acme/widgets/pulls/7",
        merged_at: "2024-01-03T00:00:00Z",
      },
      user: { login: "octo" },
      labels: [{ name: "bug" }, "p1"],
      state: "closed",
    };
    const { items } = collect(parseGithub({ path: "one.json", text: JSON.stringify([record]) }));
    expect(items[0]).toMatchObject({
      externalId: "acme/widgets#7",
      kind: "pull_request",
      metadata: expect.objectContaining({
        labels: ["bug", "p1"],
        mergedAt: "2024-01-03T00:00:00Z",
        state: "closed",
      }),
      links: [
        { externalId: "acme/widgets#3", kind: "reference" },
        { externalId: "acme/widgets#5", kind: "reference" },
        { externalId: "acme/other#45", kind: "reference" },
        { externalId: "acme/widgets#9", kind: "reference" },
      ],
    });
  });

  it("reports a malformed NDJSON line or record and goes on", () => {
    const text = `${JSON.stringify({ number: 1, title: "ok", created_at: "2024-01-01T00:00:00Z", html_url: "https://github.com/a/b/issues/1" })}\n{broken\n${JSON.stringify({ title: "no number" })}\n`;
    const { items, errors } = collect(parseGithub({ path: "bad.ndjson", text }));
    expect(items.map((i) => i.externalId)).toEqual(["a/b#1"]);
    expect(errors.map((e) => [e.at.position, e.message.split(":")[0]])).toEqual([
      ["line 2", "not valid JSON"],
      ["line 3", "issue has no issue number"],
    ]);
  });

  it("reads paginated output written as concatenated arrays, as `gh api --paginate` prints it", () => {
    const issues = JSON.parse(pages) as unknown[];
    const text = `${JSON.stringify(issues.slice(0, 3), null, 2)}\n${JSON.stringify(issues.slice(3))}`;
    const { items, errors } = collect(parseGithub({ path: "paginated.json", text }));
    expect(errors).toEqual([]);
    expect(items).toHaveLength(13);
  });

  it("streams a file cut short: the records before the cut import, the cut one is an error", () => {
    const issues = JSON.parse(pages) as unknown[];
    const text = `${JSON.stringify(issues.slice(0, 3), null, 2)}\n${JSON.stringify(issues.slice(3))}`;
    const cut = collect(parseGithub({ path: "cut.json", text: text.slice(0, -20) }));
    expect(cut.items).toHaveLength(12);
    expect(cut.errors).toEqual([
      {
        type: "error",
        message: "not valid JSON: the file ends inside this record",
        at: { file: "cut.json", position: "page 2 record 10" },
      },
    ]);
  });

  it("derives the same externalIds when parsed twice", () => {
    const once = collect(parseGithub({ path: "issues.json", text: pages })).items;
    const twice = collect(parseGithub({ path: "issues.json", text: pages })).items;
    expect(twice).toEqual(once);
  });
});

describe("JSON exports streamed record by record", () => {
  const issue = (number: number, extra: Record<string, unknown> = {}) => ({
    number,
    title: `issue ${number}`,
    created_at: "2024-01-01T00:00:00Z",
    html_url: `https://github.com/a/b/issues/${number}`,
    ...extra,
  });

  it("finds references in a 200 KB body of dots and dashes in well under a second", () => {
    const text = JSON.stringify([issue(1, { body: `${"-.".repeat(100_000)} fixes #2 and a.b/c-d#3` })]);
    let items: ReturnType<typeof collect>["items"] = [];
    expect(elapsedMs(() => (items = collect(parseGithub({ path: "x.json", text })).items))).toBeLessThan(
      2000,
    );
    expect(items[0]!.links?.map((l) => l.externalId)).toEqual(["a/b#2", "a.b/c-d#3"]);
  });

  it("skips a record over the size limit with a reason and parses the ones around it", () => {
    const text = JSON.stringify([issue(1), issue(2, { body: "x".repeat(300_000) }), issue(3)]);
    const records = jsonRecordsOfText(text, {
      maxRecordBytes: 100_000,
      recordLimit: "0.1 MB (--max-record-mb)",
    });
    expect(records.map((r) => [r.type, r.position])).toEqual([
      ["value", "record 1"],
      ["skipped", "record 2"],
      ["value", "record 3"],
    ]);
    expect(records[1]).toMatchObject({ reason: "record over 0.1 MB (--max-record-mb)" });
    const lines = [issue(4), issue(5, { body: "y".repeat(300_000) })]
      .map((r) => JSON.stringify(r))
      .join("\r\n");
    expect(jsonRecordsOfText(lines, { maxRecordBytes: 100_000 }).map((r) => [r.type, r.position])).toEqual([
      ["value", "line 1"],
      ["skipped", "line 2"],
    ]);
  });

  it("gives the same records whatever the chunk size: brackets, commas and escaped quotes in strings, pages, NDJSON", () => {
    const tricky = [
      issue(1, { body: 'a "[quoted], {braces}" \\ and ] more' }),
      "not an object",
      [1, [2]],
      issue(2),
    ];
    const texts = [
      `\uFEFF ${JSON.stringify(tricky, null, 2)}\n${JSON.stringify([issue(3)])}`,
      tricky.map((t) => JSON.stringify(t)).join("\n"),
    ];
    for (const text of texts) {
      const bytes = new TextEncoder().encode(text);
      const whole = jsonRecordsOfText(text);
      expect(whole.filter((r) => r.type === "value")).toHaveLength(text.includes("\n  ") ? 5 : 4);
      for (const size of [1, 3, 17]) {
        const splitter = new JsonRecordSplitter();
        expect([...chunks(bytes, size).flatMap((c) => splitter.push(c)), ...splitter.end()]).toEqual(whole);
      }
    }
  });

  it("reports text where an array should start and reads nothing after it", () => {
    const records = jsonRecordsOfText(`${JSON.stringify([issue(1)])} trailing [${JSON.stringify(issue(2))}]`);
    expect(records.map((r) => r.type)).toEqual(["value", "error"]);
    expect(records[1]).toMatchObject({
      position: "file",
      message: expect.stringMatching(/^not valid JSON: "t" at byte \d+/),
    });
  });
});
