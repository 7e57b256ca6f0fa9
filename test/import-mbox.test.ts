import { describe, expect, it } from "vitest";
import { parseEmail } from "../src/import/email";
import { type MboxMessage, MboxSplitter } from "../src/import/mbox";
import { bytes, concatBytes, fixtures, latin1Bytes } from "./support/import-fixtures";

/** An mbox assembled from postal-mime's real test messages plus the cases mbox writers produce. */
function sampleMbox(eol: "\n" | "\r\n"): Uint8Array {
  const lf = (text: string) => text.replace(/\r?\n/g, eol);
  const parts = [
    bytes(lf(`From MAILER-DAEMON Fri Jul  8 12:08:34 2011\n${fixtures.eml["mixed.eml"]!.trimEnd()}\n\n`)),
    bytes(
      lf(
        `From bounce@example.com Mon Jan 01 00:00:00 +0000 2024\n${fixtures.eml["bounce.eml"]!.trimEnd()}\n\n`,
      ),
    ),
    bytes(
      lf(
        "From ada@example.com Tue Mar  5 09:30:00 2024\nFrom: Ada <ada@example.com>\nTo: Ben <ben@example.com>\n" +
          "Subject: Re: plans\nMessage-ID: <reply-1@example.com>\nIn-Reply-To: <root-1@example.com>\n" +
          "References: <start-0@example.com> <root-1@example.com>\nX-Gmail-Labels: Inbox,Important\n\n" +
          "Quoted:\n>From the archive, mboxrd style\n>>From twice quoted\n\nFrom my phone, unescaped\n\n",
      ),
    ),
    concatBytes([
      bytes(lf("From ben@example.com Wed Mar  6 10:00:00 2024\n")),
      latin1Bytes(
        lf(
          "From: =?ISO-8859-1?Q?Andr=E9?= <andre@example.com>\nSubject: =?ISO-8859-1?Q?caf=E9?=\nContent-Type: text/plain; charset=iso-8859-1\n\n" +
            "Cr\u00e8me br\u00fbl\u00e9e\n",
        ),
      ),
    ]),
  ];
  return concatBytes(parts);
}

function split(data: Uint8Array, chunkSize: number): MboxMessage[] {
  const splitter = new MboxSplitter();
  const pieces = [];
  for (let i = 0; i < data.length; i += chunkSize)
    pieces.push(...splitter.push(data.subarray(i, i + chunkSize)));
  pieces.push(...splitter.end());
  return pieces.map((p) => {
    if (p.type !== "message") throw new Error(`unexpected ${p.type}`);
    return p.message;
  });
}

const text = (raw: Uint8Array) => new TextDecoder().decode(raw);

describe("mbox splitting", () => {
  it("splits on separator lines only, not on body lines that start with From", () => {
    const messages = split(sampleMbox("\n"), 1 << 20);
    expect(messages.map((m) => m.index)).toEqual([1, 2, 3, 4]);
    expect(text(messages[2]!.raw)).toContain("\n\nFrom my phone, unescaped");
  });

  it("removes one level of >From quoting", () => {
    const body = text(split(sampleMbox("\n"), 1 << 20)[2]!.raw);
    expect(body).toContain("\nFrom the archive, mboxrd style\n>From twice quoted\n");
  });

  it("gives the same messages whatever the chunk size, for LF and CRLF files", () => {
    for (const eol of ["\n", "\r\n"] as const) {
      const data = sampleMbox(eol);
      const whole = split(data, data.length).map((m) => text(m.raw));
      expect(split(data, 7).map((m) => text(m.raw))).toEqual(whole);
      expect(split(data, 4096).map((m) => text(m.raw))).toEqual(whole);
    }
  });

  it("reads the separator date, with or without a zone", () => {
    const [first, second] = split(sampleMbox("\n"), 1 << 20);
    expect(first!.separatorDate).toBe("2011-07-08T12:08:34.000Z");
    expect(second!.separatorDate).toBe("2024-01-01T00:00:00.000Z");
  });

  it("reports stray bytes before the first separator instead of inventing a message", () => {
    const splitter = new MboxSplitter();
    const pieces = [...splitter.push(bytes("Subject: not an mbox\n\nhello\n")), ...splitter.end()];
    expect(pieces).toEqual([{ type: "stray", bytes: 28 }]);
  });

  it("skips a message over the size limit and goes on with the next", () => {
    const big = `From a@b Mon Jan  1 00:00:00 2024\nSubject: big\n\n${"x".repeat(5000)}\n\n`;
    const small = "From a@b Mon Jan  1 00:00:00 2024\nSubject: small\nMessage-ID: <s@b>\n\nok\n";
    const splitter = new MboxSplitter({ maxMessageBytes: 1000 });
    const pieces = [...splitter.push(bytes(big + small)), ...splitter.end()];
    expect(pieces.map((p) => p.type)).toEqual(["oversized", "message"]);
  });
});

describe("email mapping", () => {
  it("maps a reply: title, author, participants, reply and thread links, Gmail labels", async () => {
    const message = split(sampleMbox("\n"), 1 << 20)[2]!;
    const event = await parseEmail(
      message.raw,
      { file: "x.mbox", position: "message 3" },
      { fallbackDate: message.separatorDate },
    );
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    expect(event.item).toMatchObject({
      externalId: "reply-1@example.com",
      kind: "email",
      title: "Re: plans",
      author: "Ada <ada@example.com>",
      participants: ["Ben <ben@example.com>"],
      links: [
        { externalId: "root-1@example.com", kind: "reply" },
        { externalId: "start-0@example.com", kind: "thread" },
      ],
      metadata: { gmailLabels: ["Inbox", "Important"] },
    });
  });

  it("decodes Latin-1, falls back to the separator date, and hashes a message without Message-ID", async () => {
    const message = split(sampleMbox("\n"), 1 << 20)[3]!;
    const event = await parseEmail(
      message.raw,
      { file: "x.mbox", position: "4" },
      { fallbackDate: message.separatorDate },
    );
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    expect(event.item.title).toBe("café");
    expect(event.item.author).toBe("André <andre@example.com>");
    expect(event.item.body).toBe("Crème brûlée");
    expect(event.item.occurredAt).toBe("2024-03-06T10:00:00.000Z");
    expect(event.item.externalId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const again = await parseEmail(
      message.raw,
      { file: "x.mbox", position: "4" },
      { fallbackDate: message.separatorDate },
    );
    expect(again.type === "item" && again.item.externalId).toBe(event.item.externalId);
  });

  it("lists attachments by name, type and size without their bytes", async () => {
    const event = await parseEmail(
      bytes(fixtures.eml["mimetorture.eml"]!),
      { file: "mimetorture.eml", position: "message" },
      { fallbackDate: "2024-01-01T00:00:00Z" },
    );
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    const attachments = event.item.metadata?.attachments as { name?: string; type: string; size: number }[];
    expect(attachments.length).toBeGreaterThan(0);
    for (const a of attachments) expect(a.size).toBeGreaterThan(0);
  });

  it("parses every postal-mime fixture into an item with a date and an id", async () => {
    for (const [name, content] of Object.entries(fixtures.eml)) {
      const event = await parseEmail(
        bytes(content),
        { file: name, position: "message" },
        { fallbackDate: "2024-01-01T00:00:00Z" },
      );
      expect(event.type, name).toBe("item");
    }
  });

  it("turns an HTML-only message into readable text", async () => {
    const raw =
      "From: a@b.c\nDate: Tue, 5 Mar 2024 10:00:00 +0100\nContent-Type: text/html\n\n<html><style>p{}</style><p>Hello &amp; welcome</p><p>Line<br>two</p></html>\n";
    const event = await parseEmail(bytes(raw), { file: "x", position: "1" });
    expect(event.type === "item" && event.item.body).toBe("Hello & welcome\nLine\ntwo");
    expect(event.type === "item" && event.item.occurredAt).toBe("2024-03-05T09:00:00.000Z");
  });
});
