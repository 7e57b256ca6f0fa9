import { describe, expect, it } from "vitest";
import { parseGithub } from "../src/import/github";
import pages from "./fixtures/import/github/octokit-fixtures-paginate-issues.json?raw";
import webhookObjects from "./fixtures/import/github/octokit-webhooks-issue-and-pull.ndjson?raw";
import { collect } from "./support/import-events";

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
