import { describe, expect, it } from "vitest";
import { parseSrt, parseVtt } from "../../src/import/transcript";
import einsteinSrt from "../fixtures/import/transcript/pycaption-example.srt?raw";
import basicVtt from "../fixtures/import/transcript/transcript-cleanup-basic.vtt?raw";
import teamsVtt from "../fixtures/import/transcript/transcript-cleanup-teams.vtt?raw";
import voiceVtt from "../fixtures/import/transcript/vttjs-voice-with-subclass.vtt?raw";
import bomVtt from "../fixtures/import/transcript/vttjs-webvtt-with-bom.vtt?raw";
import { collect } from "../support/import-events";
import { elapsedMs } from "../support/import-hostile";

/** Zoom's style, written for these tests: a header block, CRLF, "Name: text" cues and unpadded timestamps. */
const zoom = [
  "\uFEFFWEBVTT",
  "Kind: captions",
  "Language: en",
  "",
  "NOTE exported by the meeting app",
  "",
  "1",
  "0:0:0.570 --> 0:0:3.100",
  "Jane Doe: Good morning, everyone.",
  "",
  "2",
  "0:0:3.200 --> 0:0:5.000",
  "Jane Doe: Let's start with the roadmap.",
  "",
  "3",
  "0:1:2.5 --> 0:1:4.0",
  "Omar Farouk: Sounds good &amp; I have notes.",
  "",
  "4",
  "00:01:05.000 --> garbage",
  "Omar Farouk: lost",
  "",
].join("\r\n");

describe("the VTT parser", () => {
  it("merges a real Teams transcript's <v> cues into one speaker turn", () => {
    const { items, errors } = collect(
      parseVtt({ path: "calls/teams.vtt", text: teamsVtt }, { date: "2025-03-04" }),
    );
    expect(errors).toEqual([]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      externalId: "calls/teams.vtt",
      kind: "call",
      title: "teams",
      participants: ["Jean Lescure"],
      occurredAt: "2025-03-04T00:00:00.000Z",
      metadata: { format: "vtt", cues: 4, turns: 1, durationSeconds: 27, speakers: ["Jean Lescure"] },
      people: [
        { role: "participant", name: "Jean Lescure", handles: [{ kind: "speaker", value: "Jean Lescure" }] },
      ],
    });
    expect(items[0]!.body).toMatch(
      /^Jean Lescure \[00:00:04\]: Y vamos a compartir la pantalla acá ay, yo ya detecté\. Hm,/,
    );
    expect(items[0]!.body).not.toMatch(/<v|<\/v>|-->/);
  });

  it("reads Zoom-style speakers, header blocks, CRLF, a BOM and unpadded timestamps, reporting the bad cue", () => {
    const { items, errors } = collect(
      parseVtt({ path: "GMT20240124-202901_Recording.transcript.vtt", text: zoom }),
    );
    expect(items[0]).toMatchObject({
      title: "GMT20240124-202901_Recording",
      participants: ["Jane Doe", "Omar Farouk"],
      occurredAt: "2024-01-24T20:29:01.000Z",
      body: "Jane Doe [00:00:00]: Good morning, everyone. Let's start with the roadmap.\n\nOmar Farouk [00:01:02]: Sounds good & I have notes.",
    });
    expect(errors).toEqual([
      {
        type: "error",
        message: 'unreadable cue timing "00:01:05.000 --> garbage"',
        at: expect.objectContaining({ position: "cue 4" }),
      },
    ]);
  });

  it("takes the date from --date, then the file name, then the file's time, and reports a call with none", () => {
    const file = { path: "standup 2024-05-06 09.30.vtt", text: basicVtt };
    expect(collect(parseVtt(file, { date: "2024-06-01T10:00:00+02:00" })).items[0]!.occurredAt).toBe(
      "2024-06-01T08:00:00.000Z",
    );
    expect(collect(parseVtt(file, { fileTime: "2020-01-01T00:00:00Z" })).items[0]!.occurredAt).toBe(
      "2024-05-06T09:30:00.000Z",
    );
    const unnamed = { path: "basic.vtt", text: basicVtt };
    expect(collect(parseVtt(unnamed, { fileTime: "2020-01-01T00:00:00.000Z" })).items[0]!.occurredAt).toBe(
      "2020-01-01T00:00:00.000Z",
    );
    expect(collect(parseVtt(unnamed)).errors[0]!.message).toMatch(/no date for the call/);
  });

  it("reads the WebVTT test suite's voice-with-class and BOM files (mozilla/vtt.js)", () => {
    expect(
      collect(parseVtt({ path: "voice.vtt", text: voiceVtt }, { date: "2024-01-01" })).items[0],
    ).toMatchObject({
      participants: ["Joe"],
      body: "Joe [00:00:00]: That's awesome!",
    });
    expect(collect(parseVtt({ path: "bom.vtt", text: bomVtt }, { date: "2024-01-01" })).items[0]!.body).toBe(
      "[00:00:00]: text",
    );
  });

  it("reports a file without cues instead of an empty call", () => {
    expect(
      collect(parseVtt({ path: "empty.vtt", text: "WEBVTT\n\n" }, { date: "2024-01-01" })),
    ).toMatchObject({
      items: [],
      errors: [{ message: "no VTT cues in the file" }],
    });
  });
});

describe("the SRT parser", () => {
  const file = { path: "einstein.srt", text: einsteinSrt };

  it("turns a real 1,847-cue SRT (pbs/pycaption's example) into one call with named speakers", () => {
    const { items, errors } = collect(parseSrt(file, { date: "2024-02-03" }));
    expect(errors).toEqual([]);
    expect(items).toHaveLength(1);
    const call = items[0]!;
    expect(call.metadata).toMatchObject({ format: "srt", cues: 1847, turns: 95, durationSeconds: 6538 });
    expect(call.participants).toHaveLength(24);
    expect(call.participants?.slice(0, 3)).toEqual(["MAN", "MAN 2", "ACTOR AS EINSTEIN"]);
    expect(call.body.split("\n\n").slice(0, 2)).toEqual([
      "[00:00:09]: ( clock ticking )",
      "MAN [00:00:14]: When we think of E equals m c-squared, we have this vision of Einstein as an old, wrinkly man with white hair.",
    ]);
  });

  it("derives the same externalId and body when parsed twice", () => {
    const a = collect(parseSrt(file, { date: "2024-02-03" })).items[0]!;
    const b = collect(parseSrt(file, { date: "2024-02-03" })).items[0]!;
    expect(b.externalId).toBe("einstein.srt");
    expect(b).toEqual(a);
  });
});

describe("hostile transcripts", () => {
  const cue = (text: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${text}\n`;

  it.each([
    ["50,000 unclosed voice tags", "<v a".repeat(50_000)],
    ["200,000 unclosed <", "<".repeat(200_000)],
  ])("reads a cue of %s in well under a second", (_, text) => {
    let events: ReturnType<typeof collect> | undefined;
    expect(
      elapsedMs(
        () => (events = collect(parseVtt({ path: "x.vtt", text: cue(text) }, { date: "2024-01-01" }))),
      ),
    ).toBeLessThan(2000);
    expect(events!.items).toHaveLength(1);
  });

  it("reads a transcript of 200,000 cues (Math.max over them all used to overflow the stack)", () => {
    const text = `WEBVTT\n\n${Array.from({ length: 200_000 }, (_, i) => `00:00:01.000 --> 00:00:0${(i % 9) + 1}.000\nA: w${i}\n`).join("\n")}`;
    const { items, errors } = collect(parseVtt({ path: "long.vtt", text }, { date: "2024-01-01" }));
    expect(errors).toEqual([]);
    expect(items[0]!.metadata).toMatchObject({ cues: 200_000, durationSeconds: 9 });
    expect(items[0]!.body.length).toBeLessThanOrEqual(1_000_000);
    expect(items[0]!.metadata?.truncated).toBe(true);
  });
});
