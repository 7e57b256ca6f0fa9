import { describe, expect, it } from "vitest";
import { parseIcs } from "../../src/import/ics";
import type { ImportEvent, ImportItem } from "../../src/import/records";
import { parseVcf } from "../../src/import/vcf";
import { bytes, fixtures, latin1Bytes } from "../support/import-fixtures";
import { elapsedMs } from "../support/import-hostile";

const ics = (name: string) => [...parseIcs({ path: name, text: fixtures.ics[name]! })];
const vcf = (name: string, data = bytes(fixtures.vcf[name]!)) => [
  ...parseVcf({ path: name, bytes: data }, { fallbackDate: "2024-01-01T00:00:00.000Z" }),
];
const items = (events: ImportEvent[]): ImportItem[] =>
  events.flatMap((e) => (e.type === "item" ? [e.item] : []));

describe("iCalendar import (node-ical's real-world fixtures)", () => {
  it("imports every event of each sample file", () => {
    const counts = Object.keys(fixtures.ics).map((name) => [name, items(ics(name)).length]);
    expect(Object.fromEntries(counts)).toEqual({
      "Office-2012-owa.ics": 4,
      "badRRULE.ics": 3,
      "daily-count-exdate-recurrence-id.ics": 2,
      "exchange_whole_day_moved_recurrence.ics": 2,
      "large-file-with-late-error.ics": 401,
      "ms_timezones.ics": 3,
      "windows-quoted-tz-rrule.ics": 1,
    });
  });

  it("reports one malformed event and still imports the others of its file", () => {
    const events = ics("ms_timezones.ics");
    expect(events.map((e) => e.type)).toEqual(["item", "error", "item", "item"]);
    const error = events[1]!;
    expect(error.type === "error" && error.message).toMatch(/malformed event/);
    expect(error.at).toEqual({ file: "ms_timezones.ics", position: "event 2" });
  });

  it("resolves Windows zone names to the right instant, daylight saving included", () => {
    const [first, pacific] = items(ics("ms_timezones.ics"));
    expect(first!.metadata?.timeZone).toBe("W. Europe Standard Time");
    expect(first!.occurredAt).toBe("2020-09-10T07:00:00.000Z"); // 09:00 CEST
    expect(pacific!.occurredAt).toBe("2020-09-15T15:30:00.000Z"); // 08:30 PDT
  });

  it("resolves Outlook display-name zones and states the recurrence rule in the body", () => {
    const [event] = items(ics("windows-quoted-tz-rrule.ics"));
    expect(event).toMatchObject({
      externalId: "0000001",
      title: "Treasure Hunting",
      occurredAt: "2015-07-06T16:00:00.000Z",
    });
    expect(event!.body).toContain("Repeats: daily, 10 times (FREQ=DAILY;COUNT=10)");
    expect(event!.metadata?.exdates).toHaveLength(2);
  });

  it("imports a moved instance (RECURRENCE-ID) as its own item linked to its series", () => {
    const [series, moved] = items(ics("exchange_whole_day_moved_recurrence.ics"));
    expect(series!.externalId).toBe("exchange-moved-recurrence");
    expect(moved!.externalId).toMatch(/^exchange-moved-recurrence#\d{4}-/);
    expect(moved!.links).toEqual([{ externalId: "exchange-moved-recurrence", kind: "instance_of" }]);
  });

  it("maps the organizer to the author and attendees to participants", () => {
    const text = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:review-1",
      "SUMMARY:Design review",
      "DTSTART;TZID=Pacific Standard Time:20240311T090000",
      "ORGANIZER;CN=Ada Lovelace:mailto:ada@example.com",
      "ATTENDEE;CN=Ben;PARTSTAT=ACCEPTED:mailto:ben@example.com",
      "ATTENDEE:mailto:cy@example.com",
      "END:VEVENT",
      "END:VCALENDAR",
      "",
    ].join("\r\n");
    const [event] = items([...parseIcs({ path: "inline.ics", text })]);
    expect(event).toMatchObject({
      author: "Ada Lovelace <ada@example.com>",
      participants: ["Ben <ben@example.com>", "cy@example.com"],
      occurredAt: "2024-03-11T16:00:00.000Z",
      people: [
        { role: "organizer", name: "Ada Lovelace", email: "ada@example.com" },
        { role: "attendee", name: "Ben", email: "ben@example.com" },
        { role: "attendee", email: "cy@example.com" },
      ],
    });
  });
});

describe("vCard import (ez-vcard's real-world fixtures)", () => {
  it("reads cards from Android (2.1), Outlook (2.1), iPhone (3.0, LF-only), Evolution (3.0), Gmail and RFC 6350 (4.0)", () => {
    const titles = Object.fromEntries(
      Object.keys(fixtures.vcf).map((name) => [name, items(vcf(name)).map((i) => i.title)]),
    );
    expect(titles).toEqual({
      "John_Doe_ANDROID.vcf": [
        "john.doe@company.com",
        "jane.doe@company.com",
        "Ñ Ñ Ñ Ñ Ñ",
        "Ñ Ñ Ñ Ñ Ñ Ñ Ñ Ñ Ñ Ñ Ñ",
        "Ñ Ñ Ñ Ñ",
        "ÑÑÑÑ",
      ],
      "John_Doe_EVOLUTION.vcf": ["Mr. John Richter, James Doe Sr."],
      "John_Doe_IPHONE.vcf": ["Mr. John Richter James Doe Sr."],
      "John_Doe_MS_OUTLOOK.vcf": ["Mr. John Richter James Doe Sr."],
      "gmail-list.vcf": ["Arnold Smith", "Chris Beatle", "Doug White"],
      "outlook-2003.vcf": ["John Doe III"],
      "rfc6350-example.vcf": ["Simon Perreault"],
    });
  });

  it("maps emails, phones and organization, and uses UID as the id when there is one", () => {
    const [card] = items(vcf("rfc6350-example.vcf"));
    expect(card!.kind).toBe("contact");
    expect(card!.participants).toContain("simon.perreault@viagenie.ca");
    expect(card!.body).toMatch(/Phone.*\+1-418-656-9254/);
    expect(card!.metadata?.organization).toBe("Viagenie");
    expect(card!.people).toEqual([
      {
        role: "contact",
        name: "Simon Perreault",
        email: "simon.perreault@viagenie.ca",
        handles: [
          { kind: "phone", value: "+1-418-656-9254;ext=102" },
          { kind: "phone", value: "+1-418-262-6501" },
        ],
      },
    ]);
  });

  it("gives one card's addresses, phones, social profiles and nicknames as one person", () => {
    const card = [
      "BEGIN:VCARD",
      "VERSION:3.0",
      "FN:Ada Lovelace",
      "NICKNAME:Ada,Countess",
      "EMAIL;TYPE=work:Ada@Acme.com",
      "EMAIL;TYPE=home:ada.lovelace@gmail.com",
      "TEL;TYPE=cell:+44 20 7946 0001",
      "X-SOCIALPROFILE;TYPE=github:https://github.com/adalovelace",
      "X-SOCIALPROFILE;TYPE=twitter:https://twitter.com/ada",
      "IMPP:xmpp:ada@jabber.example",
      "END:VCARD",
      "",
    ].join("\r\n");
    const [item] = items(vcf("ada.vcf", new TextEncoder().encode(card)));
    expect(item!.people).toEqual([
      {
        role: "contact",
        name: "Ada Lovelace",
        email: "ada@acme.com",
        handles: [
          { kind: "email", value: "ada.lovelace@gmail.com" },
          { kind: "phone", value: "+44 20 7946 0001" },
          { kind: "github", value: "adalovelace" },
          { kind: "handle", value: "twitter/ada" },
          { kind: "handle", value: "xmpp/ada@jabber.example" },
        ],
        aliases: ["Ada", "Countess"],
      },
    ]);
  });

  it("bounds a card of 1,000 addresses to 50 handles of one person", () => {
    const lines = ["BEGIN:VCARD", "VERSION:3.0", "FN:Many Addresses"];
    for (let i = 0; i < 1000; i++) lines.push(`EMAIL:a${i}@acme.com`);
    const [item] = items(vcf("many.vcf", new TextEncoder().encode([...lines, "END:VCARD", ""].join("\r\n"))));
    const [person] = item!.people!;
    expect(person!.email).toBe("a0@acme.com");
    expect(person!.handles).toHaveLength(49);
  });

  it("decodes quoted-printable values in a declared charset, with soft line breaks", () => {
    const card =
      "BEGIN:VCARD\nVERSION:2.1\nFN;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:J=F6rg M=\n=FCller\nTEL;WORK;VOICE:+49 30 1234\nEND:VCARD\n";
    const [item] = items(vcf("latin1.vcf", latin1Bytes(card)));
    expect(item!.title).toBe("Jörg Müller");
    expect(item!.body).toBe("Phone (work): +49 30 1234");
  });

  it("derives the same id on every run for a card without UID", () => {
    const first = items(vcf("gmail-list.vcf")).map((i) => i.externalId);
    expect(items(vcf("gmail-list.vcf")).map((i) => i.externalId)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
  });
});

describe("hostile calendars", () => {
  it("splits a broken file of 30,000 unterminated events in well under a second, reporting the unterminated one", () => {
    const text = `BEGIN:VCALENDAR\r\n${"BEGIN:VEVENT\r\n".repeat(30_000)}END:VCALENDAR\r\n`;
    let events: ImportEvent[] = [];
    expect(elapsedMs(() => (events = ics2(text)))).toBeLessThan(2000);
    expect(events).toEqual([
      { type: "error", message: "event without END:VEVENT", at: { file: "broken.ics", position: "event 1" } },
    ]);
  });

  it("imports the good events of a file that does not parse whole, each block found once", () => {
    const event = (uid: string) =>
      `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART:20240101T100000Z\r\nSUMMARY:${uid}\r\nEND:VEVENT\r\n`;
    const text = `BEGIN:VCALENDAR\r\n${event("a")}BEGIN:VEVENT\r\nDTSTART:garbage\r\nEND:VEVENT\r\n${event("b")}END:VCALENDAR`;
    expect(ics2(text).map((e) => (e.type === "item" ? e.item.externalId : e.type))).toEqual([
      "a",
      "error",
      "b",
    ]);
  });
});

function ics2(text: string): ImportEvent[] {
  return [...parseIcs({ path: "broken.ics", text })];
}
