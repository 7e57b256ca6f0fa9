import { describe, expect, it } from "vitest";
import { parseSlackExport } from "../../src/import/slack";
import { collect, filesUnder } from "../support/import-events";

const ROOT = "fixtures/import/slack/hfaran-testarchive/";
const archive = filesUnder(
  import.meta.glob("../fixtures/import/slack/hfaran-testarchive/**/*.json", {
    query: "?raw",
    import: "default",
    eager: true,
  }) as Record<string, string>,
  ROOT,
);

/** A small export written for these tests: threads across day files, a broadcast, an edit, a DM, a bot, a file. */
const users = [
  { id: "U01ALICE", name: "alice", real_name: "Alice Adams", profile: { email: "alice@example.com" } },
  { id: "U02BOB", name: "bob", profile: { real_name: "Bob Brown", display_name: "bobby" } },
];
const made = [
  { path: "export/users.json", text: JSON.stringify(users) },
  {
    path: "export/channels.json",
    text: JSON.stringify([{ id: "C01GEN", name: "general", members: ["U01ALICE", "U02BOB"] }]),
  },
  { path: "export/dms.json", text: JSON.stringify([{ id: "D01AB", members: ["U01ALICE", "U02BOB"] }]) },
  {
    path: "export/general/2024-03-01.json",
    text: JSON.stringify([
      {
        type: "message",
        subtype: "channel_join",
        user: "U02BOB",
        text: "<@U02BOB> has joined the channel",
        ts: "1709251200.000100",
      },
      {
        type: "message",
        user: "U01ALICE",
        text: "Ship it <@U02BOB>? See <#C01GEN|general>, <https://example.com/a?b=1&amp;c=2|the plan> &amp; <!here>",
        ts: "1709251300.000200",
        thread_ts: "1709251300.000200",
        reply_count: 2,
        edited: { user: "U01ALICE", ts: "1709251400.000000" },
      },
      {
        type: "message",
        user: "U02BOB",
        text: "first reply",
        ts: "1709251350.000300",
        thread_ts: "1709251300.000200",
      },
      {
        type: "message",
        subtype: "bot_message",
        bot_id: "B01",
        username: "deploybot",
        text: "Deployed v1",
        ts: "1709251360.000400",
      },
      { type: "message", user: "U02BOB", text: "no ts here" },
    ]),
  },
  {
    path: "export/general/2024-03-02.json",
    text: JSON.stringify([
      {
        type: "message",
        subtype: "thread_broadcast",
        user: "U01ALICE",
        text: "late reply, also sent to channel",
        ts: "1709337600.000500",
        thread_ts: "1709251300.000200",
      },
      {
        type: "message",
        subtype: "thread_broadcast",
        user: "U01ALICE",
        text: "late reply, also sent to channel",
        ts: "1709337600.000500",
        thread_ts: "1709251300.000200",
      },
      {
        type: "message",
        subtype: "message_changed",
        ts: "1709337700.000600",
        message: {
          type: "message",
          user: "U02BOB",
          text: "first reply (edited)",
          ts: "1709251350.000300",
          edited: { ts: "1709337700.000600" },
        },
      },
      {
        type: "message",
        user: "U02BOB",
        text: "the spec",
        ts: "1709337800.000700",
        files: [
          {
            name: "spec.pdf",
            mimetype: "application/pdf",
            size: 1234,
            url_private: "https://files.slack.com/spec.pdf",
          },
        ],
      },
    ]),
  },
  { path: "export/general/2024-03-03.json", text: "[ not json" },
  {
    path: "export/D01AB/2024-03-01.json",
    text: JSON.stringify([
      { type: "message", user: "U02BOB", text: "psst <@U01ALICE>", ts: "1709251500.000800" },
    ]),
  },
];

describe("the Slack export parser on a real export (hfaran/slack-export-viewer's test archive)", () => {
  const { items, skipped, errors } = collect(parseSlackExport(archive));

  it("yields one message per message and skips the join and bot-add notices", () => {
    expect(items).toHaveLength(147);
    expect(skipped.map((s) => s.reason).sort()).toEqual([
      ...Array(3).fill("notice: bot_add"),
      ...Array(8).fill("notice: channel_join"),
    ]);
    expect(errors).toEqual([]);
    expect(new Set(items.map((i) => i.kind))).toEqual(new Set(["message"]));
  });

  it("names authors and mentions by real name, leaving no raw user ids or Slack markup", () => {
    const first = items.find((i) => i.externalId === "C0JGLMMNX:1452837352.000006")!;
    expect(first).toMatchObject({
      title: "#enrique",
      body: "@Harry Potter: Created an issue for a setup.py so that it can be installed to a standard place",
      author: "Hamza Faran",
      participants: ["Hamza Faran", "Harry Potter"],
      occurredAt: "2016-01-15T05:55:52.000Z",
    });
    for (const item of items) {
      expect(`${item.author} ${item.participants?.join(" ")}`).not.toMatch(/\bU0[A-Z0-9]{7,}\b/);
      expect(item.body).not.toMatch(/<@U|<#C|<!here|&amp;/);
    }
  });

  it("fills the people field with the author's and mentioned users' Slack accounts", () => {
    const first = items.find((i) => i.externalId === "C0JGLMMNX:1452837352.000006")!;
    expect(first.people).toEqual([
      { role: "author", name: "Hamza Faran", handles: [{ kind: "slack", value: "T0BMHLSRH/U0BMQB6JE" }] },
      { role: "mentioned", name: "Harry Potter", handles: [{ kind: "slack", value: "T0BMHLSRH/U0BMYT2FL" }] },
    ]);
    const bot = items.find((i) => i.metadata?.subtype === "bot_message")!;
    expect(bot.people).toEqual([
      {
        role: "author",
        name: bot.author,
        bot: true,
        handles: [{ kind: "slack", value: expect.stringMatching(/^B0/) }],
      },
    ]);
  });

  it("keeps bot messages under the bot's name and uploaded files as metadata with their URL", () => {
    const bots = items.filter((i) => i.metadata?.subtype === "bot_message");
    expect(bots).toHaveLength(94);
    expect(bots.every((b) => b.author && !/^B0/.test(b.author))).toBe(true);
    const upload = items.find((i) => i.externalId === "C0JL6CGQ2:1459052866.000012")!;
    expect(upload.metadata?.files).toEqual([
      expect.objectContaining({
        name: "100_cities.js",
        url: expect.stringMatching(/^https:\/\/files\.slack\.com\//),
      }),
    ]);
  });

  it("derives the same externalIds when parsed twice", () => {
    const again = collect(parseSlackExport(archive)).items.map((i) => i.externalId);
    expect(again).toEqual(items.map((i) => i.externalId));
    expect(new Set(again).size).toBe(again.length);
  });
});

describe("the Slack export parser on threads, edits, broadcasts and DMs", () => {
  const { items, skipped, errors } = collect(parseSlackExport(made));
  const byId = new Map(items.map((i) => [i.externalId, i]));

  it("renders mentions, channels, link labels, escapes and @here readably", () => {
    expect(byId.get("C01GEN:1709251300.000200")).toMatchObject({
      title: "#general",
      author: "Alice Adams <alice@example.com>",
      participants: ["Alice Adams <alice@example.com>", "Bob Brown"],
      body: "Ship it @Bob Brown? See #general, the plan (https://example.com/a?b=1&c=2) & @here",
      metadata: expect.objectContaining({ edited: true, replyCount: 2, threadTs: "1709251300.000200" }),
    });
  });

  it("links thread replies to their parent, also from a later day file, and keeps the latest edit", () => {
    expect(byId.get("C01GEN:1709251350.000300")).toMatchObject({
      body: "first reply (edited)",
      links: [{ externalId: "C01GEN:1709251300.000200", kind: "reply" }],
    });
    expect(byId.get("C01GEN:1709337600.000500")?.links).toEqual([
      { externalId: "C01GEN:1709251300.000200", kind: "reply" },
    ]);
    expect(byId.get("C01GEN:1709251300.000200")?.links).toBeUndefined();
  });

  it("removes the thread_broadcast duplicate, skips notices and edit events with reasons, and reports bad records", () => {
    expect(skipped.map((s) => s.reason)).toEqual([
      "notice: channel_join",
      "thread_broadcast duplicate",
      "edit event (its latest text is kept on the message)",
    ]);
    expect(errors.map((e) => [e.at.position, e.message.split(":")[0]])).toEqual([
      ["file", "day file not valid JSON"],
      ["message 5", "message has no valid ts"],
    ]);
  });

  it("keeps bots by name, files as metadata and titles DMs by their members", () => {
    expect(byId.get("C01GEN:1709251360.000400")).toMatchObject({ author: "deploybot", body: "Deployed v1" });
    expect(byId.get("C01GEN:1709337800.000700")).toMatchObject({
      body: "the spec\n\n[file: spec.pdf https://files.slack.com/spec.pdf]",
      metadata: expect.objectContaining({
        files: [
          { name: "spec.pdf", type: "application/pdf", size: 1234, url: "https://files.slack.com/spec.pdf" },
        ],
      }),
    });
    expect(byId.get("D01AB:1709251500.000800")).toMatchObject({
      title: "DM: Alice Adams, Bob Brown",
      body: "psst @Alice Adams",
      metadata: expect.objectContaining({ conversationType: "dm" }),
    });
    expect(items).toHaveLength(6);
  });
});
