import { describe, expect, it } from "vitest";
import { MAX_PARTICIPANTS } from "../../src/domain/item-schema";
import { parseEmail } from "../../src/import/email";
import { boundParticipants, cleanHeaderText, headerDate } from "../../src/import/email-headers";
import { asctimeToIso, type MboxMessage, type MboxPiece, MboxSplitter } from "../../src/import/mbox";
import { htmlToText } from "../../src/import/text";
import { bytes, concatBytes, fixtures, latin1Bytes } from "../support/import-fixtures";
import { chunks, elapsedMs } from "../support/import-hostile";

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

describe("mbox splitting of hostile files, linear and bounded", () => {
  const MB = 1024 * 1024;
  const head = (n: number) =>
    bytes(`From a@b Mon Jan  1 00:00:0${n} 2024\nSubject: m${n}\nMessage-ID: <m${n}@b>\n\n`);

  function feed(splitter: MboxSplitter, parts: Uint8Array[]): MboxPiece[] {
    return [...parts.flatMap((p) => splitter.push(p)), ...splitter.end()];
  }

  it("reads a 16 MB line arriving in 4 KB chunks in well under a second (the unfinished line is not re-copied)", () => {
    const line = new Uint8Array(16 * MB).fill(0x78);
    const parts = [head(1), ...chunks(line, 4096), bytes("\n\n"), head(2), bytes("ok\n")];
    let pieces: MboxPiece[] = [];
    // Before: every chunk copied and rescanned the whole unfinished line, so this took half a minute.
    const ms = elapsedMs(() => {
      pieces = feed(new MboxSplitter(), parts);
    });
    expect(ms).toBeLessThan(3000);
    expect(pieces.map((p) => (p.type === "message" ? p.message.raw.length : p.type))).toEqual([
      "Subject: m1\nMessage-ID: <m1@b>\n\n".length + 16 * MB + 1,
      // The last message's final newline goes, as any message's before a separator.
      "Subject: m2\nMessage-ID: <m2@b>\n\nok".length,
    ]);
  });

  it("skips a message with a line over the size limit and streams on to the next", () => {
    const line = new Uint8Array(4 * MB).fill(0x79);
    const parts = [
      head(1),
      bytes("small\n\n"),
      head(2),
      ...chunks(line, 64 * 1024),
      bytes("\n\n"),
      head(3),
      bytes("end\n"),
    ];
    const pieces = feed(new MboxSplitter({ maxMessageBytes: MB }), parts);
    expect(pieces.map((p) => p.type)).toEqual(["message", "oversized", "message"]);
    expect(pieces[1]).toMatchObject({ type: "oversized", index: 2, bytes: expect.any(Number) });
  });

  it("holds back only short lines that may be separators: a long line starting with From after an empty line is body", () => {
    const long = `From ${"x".repeat(5000)} Mon Jan  1 00:00:00 2024`;
    const data = bytes(`From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\n${long}\n`);
    for (const size of [1, 100, data.length]) {
      const pieces = feed(new MboxSplitter(), chunks(data, size));
      expect(pieces.map((p) => p.type)).toEqual(["message"]);
      expect(text((pieces[0] as { message: MboxMessage }).message.raw)).toBe(`Subject: s\n\n${long}`);
    }
  });

  it("reports non-mbox bytes before the first separator even when there are more of them than the size limit", () => {
    const pieces = feed(new MboxSplitter({ maxMessageBytes: 1000 }), [
      bytes(`${"junk ".repeat(1000)}\n\n`),
      head(1),
    ]);
    expect(pieces.map((p) => p.type)).toEqual(["stray", "message"]);
  });

  it("reads no separator date outside the years 1-9999", () => {
    expect(asctimeToIso("Mon Jan  1 00:00:00 10000")).toBeUndefined();
    expect(asctimeToIso("Mon Jan  1 00:00:00 0000")).toBeUndefined();
    expect(asctimeToIso("Mon Jan  1 00:00:00 0099")).toBe("0099-01-01T00:00:00.000Z");
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
      people: [
        { role: "author", name: "Ada", email: "ada@example.com" },
        { role: "participant", name: "Ben", email: "ben@example.com" },
      ],
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
    expect(event.item.people).toEqual([{ role: "author", name: "André", email: "andre@example.com" }]);
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

describe("email headers that must not fail an import", () => {
  const message = (headers: string, body = "hello") =>
    bytes(`${headers}\nMessage-ID: <h@example.com>\n\n${body}\n`);

  it("keeps 500 recipients as participants and the rest in metadata with their count", async () => {
    const to = Array.from({ length: 720 }, (_, i) => `P${i} <p${i}@example.com>`).join(", ");
    const event = await parseEmail(
      message(`From: a@example.com\nTo: ${to}\nDate: Tue, 5 Mar 2024 10:00:00 +0000`),
      { file: "x", position: "1" },
    );
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    expect(event.item.participants).toHaveLength(MAX_PARTICIPANTS);
    expect(event.item.participants![499]).toBe("P499 <p499@example.com>");
    expect(event.item.metadata).toMatchObject({ participantCount: 720 });
    const more = event.item.metadata?.moreParticipants as string[];
    expect(more).toHaveLength(220);
    expect(more[0]).toBe("P500 <p500@example.com>");
  });

  it("removes NULs from the Subject and the sender's name, raw or encoded", async () => {
    const raw = message(
      "From: =?UTF-8?Q?Ada=00_Lovelace?= <ada@example.com>\nTo: Ben\u0000 Brown <ben@example.com>\nSubject: plan\u0000s =?UTF-8?Q?for=00_Q2?=\nDate: Tue, 5 Mar 2024 10:00:00 +0000",
    );
    const event = await parseEmail(raw, { file: "x", position: "1" });
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    expect(JSON.stringify(event.item)).not.toContain("\\u0000");
    expect(event.item.title).toBe("plans for Q2");
    expect(event.item.author).toBe("Ada Lovelace <ada@example.com>");
    expect(event.item.participants).toEqual(["Ben Brown <ben@example.com>"]);
  });

  it("falls back for a Date outside the years 1-9999 as for an unreadable one", async () => {
    for (const date of ["Mon, 1 Jan 10000 00:00:00 +0000", "Fri, 31 Dec 9999 23:30:00 -0100", "not a date"]) {
      const raw = message(`From: a@example.com\nDate: ${date}`);
      const withFallback = await parseEmail(
        raw,
        { file: "x", position: "1" },
        { fallbackDate: "2024-01-01T00:00:00Z" },
      );
      expect(withFallback.type === "item" && withFallback.item.occurredAt, date).toBe(
        "2024-01-01T00:00:00.000Z",
      );
      const without = await parseEmail(raw, { file: "x", position: "1" });
      expect(without, date).toMatchObject({
        type: "error",
        message: "the message has no usable Date header",
      });
    }
  });

  it("keeps a participant within 500 characters: the bare address when the name would pass it", async () => {
    const raw = message(
      `From: ${"N".repeat(600)} <n@example.com>\nTo: ${"M".repeat(600)} <m@example.com>\nDate: Tue, 5 Mar 2024 10:00:00 +0000`,
    );
    const event = await parseEmail(raw, { file: "x", position: "1" });
    if (event.type !== "item") throw new Error(JSON.stringify(event));
    expect(event.item.author).toBe("n@example.com");
    expect(event.item.participants).toEqual(["m@example.com"]);
  });

  it("offers the same cleaning to other callers (the inbound email handler): text, dates, participants", () => {
    expect(cleanHeaderText(" a\u0000b \ud800")).toBe("ab \ufffd");
    expect(cleanHeaderText(`${"x".repeat(999)}😀`)).toBe("x".repeat(999));
    expect(headerDate("Mon, 1 Jan 10000 00:00:00 +0000")).toBeUndefined();
    expect(headerDate("Tue, 5 Mar 2024 10:00:00 +0100")).toBe("2024-03-05T09:00:00.000Z");
    const bounded = boundParticipants([...Array.from({ length: 501 }, (_, i) => `p${i}`), "p0"]);
    expect(bounded.participants).toHaveLength(500);
    expect(bounded.overflow).toEqual({ participantCount: 501, moreParticipants: ["p500"] });
    // Metadata holds at most 10,000 values: past 5,000 more recipients only their count is kept.
    const many = boundParticipants(Array.from({ length: 20_000 }, (_, i) => `${i}`));
    expect(many.overflow).toMatchObject({ participantCount: 20_000, moreParticipantsOmitted: 14_500 });
    expect(many.overflow?.moreParticipants).toHaveLength(5000);
  });

  it("turns hostile HTML into text in linear time: unclosed tags and scripts, long runs of spaces", () => {
    const cases = [
      "<".repeat(200_000),
      "<script>".repeat(100_000),
      "<li".repeat(100_000),
      `a${" ".repeat(200_000)}b`,
    ];
    for (const html of cases) {
      expect(
        elapsedMs(() => htmlToText(`${html}x`)),
        html.slice(0, 10),
      ).toBeLessThan(2000);
    }
    expect(htmlToText("<p>a &lt; b</p><script>x</script><li>one</li>c <b<i>d</i>")).toBe(
      "a < b\n- one\nc <bd",
    );
  });
});
