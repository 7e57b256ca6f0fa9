import { describe, expect, it } from "vitest";
import { parseMarkdownFolder } from "../../src/import/markdown";
import { collect, filesUnder } from "../support/import-events";
import { elapsedMs } from "../support/import-hostile";

const FILE_TIME = "2024-02-02T00:00:00.000Z";
const withTime = (files: { path: string; text: string }[]) =>
  files.map((f) => ({ ...f, fileTime: FILE_TIME }));
const vault = withTime(
  filesUnder(
    import.meta.glob("../fixtures/import/markdown/kepano-vault/**/*.md", {
      query: "?raw",
      import: "default",
      eager: true,
    }) as Record<string, string>,
    "fixtures/import/markdown/kepano-vault/",
  ),
);
const notion = withTime(
  filesUnder(
    import.meta.glob("../fixtures/import/markdown/notion-enhancer/**/*", {
      query: "?raw",
      import: "default",
      eager: true,
    }) as Record<string, string>,
    "fixtures/import/markdown/notion-enhancer/",
  ),
);

describe("the Markdown parser on a real Obsidian vault (kepano/kepano-obsidian)", () => {
  const { items, skipped, errors } = collect(parseMarkdownFolder(vault));
  const byId = new Map(items.map((i) => [i.externalId, i]));

  it("yields one doc per note", () => {
    expect(items).toHaveLength(51);
    expect(skipped).toEqual([]);
    expect(errors).toEqual([]);
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(["doc"]));
  });

  it("keeps front-matter fields, takes the date from them, and links their wikilinks to the notes they name", () => {
    expect(byId.get("Notes/2023-09-12 Meeting with Steph.md")).toMatchObject({
      title: "2023-09-12 Meeting with Steph",
      occurredAt: "2023-09-12T00:00:00.000Z",
      body: "- Discussed the book [[Out of Control]] on the topic of [[Emergence]]",
      metadata: {
        frontMatter: expect.objectContaining({
          categories: ["[[Meetings]]"],
          people: ["[[Steph Ango]]"],
          loc: ["Remote"],
        }),
      },
      links: [
        { externalId: "Categories/Meetings.md", kind: "property" },
        { externalId: "References/Obsidian.md", kind: "property" },
        { externalId: "References/Steph Ango.md", kind: "property" },
        { externalId: "Emergence.md", kind: "property" },
        { externalId: "References/Out of Control.md", kind: "link" },
      ],
    });
  });

  it("resolves most wikilinks to notes in the vault and dates undated notes by their file time", () => {
    const links = items.flatMap((i) => i.links ?? []);
    const resolved = links.filter((l) => byId.has(l.externalId));
    expect([links.length, resolved.length]).toEqual([92, 54]);
    expect(byId.get("Readme.md")?.occurredAt).toBe(FILE_TIME);
  });

  it("derives the same externalIds when parsed twice", () => {
    expect(collect(parseMarkdownFolder(vault)).items.map((i) => i.externalId)).toEqual(
      items.map((i) => i.externalId),
    );
  });
});

describe("the Markdown parser on a Notion export (Cobertos/notion_export_enhancer's test files)", () => {
  const { items, skipped } = collect(parseMarkdownFolder(notion));
  const byId = new Map(items.map((i) => [i.externalId, i]));

  it("drops Notion's 32-hex ids from paths and titles, and skips files that are not Markdown", () => {
    expect([...byId.keys()].sort()).toEqual(["beep.md", "beep/types.md", "device.md"]);
    expect(byId.get("beep.md")?.title).toBe("Beep");
    expect(byId.get("beep/types.md")?.title).toBe("Types of beeps");
    expect(byId.get("device.md")?.title).toBe("device");
    expect(skipped).toEqual([expect.objectContaining({ reason: "not a Markdown file" })]);
  });

  it("turns percent-encoded relative links into links between the imported notes", () => {
    expect(byId.get("beep.md")?.links).toEqual([{ externalId: "beep/types.md", kind: "link" }]);
    expect(byId.get("beep/types.md")?.links).toEqual([{ externalId: "device.md", kind: "link" }]);
    expect(byId.get("device.md")?.links).toEqual([{ externalId: "beep.md", kind: "link" }]);
  });
});

describe("the Markdown parser on notes written for these tests", () => {
  const files = [
    {
      path: "Projects/Alpha.md",
      text: "---\ntitle: Project Alpha\ndate: 2024-04-05T10:00:00+02:00\ntags: [work, q2]\naliases: [Alpha]\n---\n# Ignored heading\nSee [[Beta|the beta]], [[Beta#Risks]], ![[diagram.png]] and [notes](../Notes/meeting%20notes.md#top).\nTagged #urgent and #project/alpha, not #123.\n```\n[[Not a link]] #not-a-tag\n```\n",
    },
    {
      path: "Beta.md",
      text: "# Beta plan\nBack to [[Projects/Alpha]] and [[Missing note]].",
      fileTime: "2024-01-01T00:00:00Z",
    },
    { path: "Notes/meeting notes.md", text: "---\ncreated: 2024-03-01\n---\nplain", fileTime: FILE_TIME },
    { path: "broken.md", text: "---\ntitle: [unclosed\n---\nstill kept", fileTime: FILE_TIME },
    { path: "undated.md", text: "no date anywhere" },
  ];
  const { items, errors } = collect(parseMarkdownFolder(files));
  const byId = new Map(items.map((i) => [i.externalId, i]));

  it("takes the title from front matter, then the first heading, and tags from front matter and the text", () => {
    expect(byId.get("Projects/Alpha.md")).toMatchObject({
      title: "Project Alpha",
      occurredAt: "2024-04-05T08:00:00.000Z",
      metadata: expect.objectContaining({
        tags: ["work", "q2", "urgent", "project/alpha"],
        aliases: ["Alpha"],
      }),
    });
    expect(byId.get("Beta.md")?.title).toBe("Beta plan");
  });

  it("links wikilinks with aliases and headings, and relative links, but not attachments or code", () => {
    expect(byId.get("Projects/Alpha.md")?.links).toEqual([
      { externalId: "Beta.md", kind: "link" },
      { externalId: "Notes/meeting notes.md", kind: "link" },
    ]);
    expect(byId.get("Beta.md")?.links).toEqual([
      { externalId: "Projects/Alpha.md", kind: "link" },
      { externalId: "Missing note.md", kind: "link" },
    ]);
  });

  it("keeps a note whose front matter is broken, noting the problem, and reports a note with no date", () => {
    expect(byId.get("broken.md")?.metadata?.frontMatterProblem).toMatch(/not valid YAML/);
    expect(errors).toEqual([expect.objectContaining({ at: { file: "undated.md", position: "file" } })]);
  });
});

describe("hostile notes, read in linear time", () => {
  const note = (text: string) => [{ path: "hostile.md", text, fileTime: FILE_TIME }];

  it.each([
    ["30,000 unclosed fences", "```a\n".repeat(30_000)],
    ["a line of 40,000 [[", "[[".repeat(40_000)],
    ["50,000 unfinished Markdown links", "[a](x".repeat(50_000)],
    ["a heading ending in 50,000 #", `# a${" #".repeat(50_000)} x`],
    ["50,000 unfinished <targets", "[a](<".repeat(50_000)],
  ])("imports a note of %s in well under a second", (_, text) => {
    let events: ReturnType<typeof collect> | undefined;
    expect(elapsedMs(() => (events = collect(parseMarkdownFolder(note(text)))))).toBeLessThan(2000);
    expect(events!.items).toHaveLength(1);
  });

  it("treats an unclosed fence as code to the end, as CommonMark and Obsidian do, and a longer fence as closing", () => {
    const [item] = collect(
      parseMarkdownFolder(
        note("See [[A]] #one\n````js\n[[B]] #two\n```\n[[C]]\n````\n[[D]]\n~~~\n[[E]] #three\n"),
      ),
    ).items;
    expect(item!.links?.map((l) => l.externalId)).toEqual(["A.md", "D.md"]);
    expect(item!.metadata?.tags).toEqual(["one"]);
  });

  it("keeps a note's body within the item limit, saying it was cut", () => {
    const [item] = collect(parseMarkdownFolder(note(`# Big\n${"word ".repeat(300_000)}`))).items;
    expect(item!.body.length).toBe(1_000_000);
    expect(item!.metadata?.truncated).toBe(true);
  });
});
