/**
 * The labelled people fixture (test/fixtures/people): the real export files the importer tests use plus the
 * cross-channel additions written for it, run through the real importers, each item turned into sightings.
 * `truth.json` names the true person of every identifier they yield. Node (reads files); used by
 * bench/people.ts and test/unit/people-fixture.test.ts.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { HardLink, ItemPeopleInput, Sighting } from "../../src/domain/people/model";
import { sightingsOf } from "../../src/domain/people/sightings";
import { parseEmail } from "../../src/import/email";
import { parseGithub } from "../../src/import/github";
import { parseIcs } from "../../src/import/ics";
import type { ImportEvent, ImportItem } from "../../src/import/records";
import { parseSlackExport } from "../../src/import/slack";
import { parseSrt, parseVtt } from "../../src/import/transcript";
import { parseVcf } from "../../src/import/vcf";

const ROOT = join(import.meta.dirname, "../../test/fixtures");
export const PEOPLE_FIXTURE = join(ROOT, "people");

export interface FixtureItem extends ItemPeopleInput {
  kind: string;
}

export interface PeopleFixture {
  items: FixtureItem[];
  sightings: Sighting[];
  hardLinks: HardLink[];
  /** identifier key → the true person's label. */
  truth: Record<string, string>;
  /** Labels of persons that are traps, with the keys that must not end in one person. */
  traps: { name: string; keys: string[][] }[];
}

/** Every file under a folder, with its path relative to `base`. */
function filesUnder(dir: string, base: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full, base));
    else out.push({ path: relative(base, full), text: readFileSync(full, "utf8") });
  }
  return out;
}

/** The input files: [source, format, path relative to test/fixtures]. */
const INPUTS: [string, "slack" | "eml" | "ics" | "vcf" | "github" | "vtt" | "srt", string][] = [
  ["slack", "slack", "import/slack/hfaran-testarchive"],
  ["mail", "eml", "import/eml"],
  ["contacts", "vcf", "import/vcf"],
  ["github", "github", "import/github"],
  ["calls", "vtt", "import/transcript/transcript-cleanup-teams.vtt"],
  ["calls", "vtt", "import/transcript/vttjs-voice-with-subclass.vtt"],
  ["acme-slack", "slack", "people/slack"],
  ["mail", "eml", "people/mail"],
  ["calendar", "ics", "people/calendar"],
  ["contacts", "vcf", "people/contacts"],
  ["github", "github", "people/github"],
  ["calls", "vtt", "people/calls"],
];

const FALLBACK_DATE = "2026-01-01T00:00:00.000Z";

async function itemsOf(format: string, path: string): Promise<ImportItem[]> {
  const full = join(ROOT, path);
  const events: ImportEvent[] = [];
  const files = statSync(full).isDirectory()
    ? filesUnder(full, full)
    : [{ path: path.split("/").pop()!, text: readFileSync(full, "utf8") }];
  if (format === "slack") events.push(...parseSlackExport(files));
  for (const file of format === "slack" ? [] : files) {
    const abs = statSync(full).isDirectory() ? join(full, file.path) : full;
    if (format === "eml") {
      events.push(
        await parseEmail(
          readFileSync(abs),
          { file: file.path, position: "1" },
          { fallbackDate: FALLBACK_DATE },
        ),
      );
    } else if (format === "ics") events.push(...parseIcs(file));
    else if (format === "vcf") {
      events.push(
        ...parseVcf({ path: file.path, bytes: readFileSync(abs) }, { fallbackDate: FALLBACK_DATE }),
      );
    } else if (format === "github") events.push(...parseGithub(file));
    else if (format === "vtt") events.push(...parseVtt(file, { date: "2026-01-15" }));
    else if (format === "srt") events.push(...parseSrt(file, { date: "2026-01-15" }));
  }
  return events.flatMap((e) => (e.type === "item" ? [e.item] : []));
}

export async function loadPeopleFixture(): Promise<PeopleFixture> {
  const items: FixtureItem[] = [];
  for (const [source, format, path] of INPUTS) {
    for (const item of await itemsOf(format, path)) {
      items.push({
        id: `${source}:${item.externalId}`,
        source,
        kind: item.kind,
        author: item.author ?? null,
        participants: item.participants ?? [],
        ...(item.people ? { people: item.people } : {}),
        occurredAt: item.occurredAt,
      });
    }
  }
  const sightings: Sighting[] = [];
  const hardLinks: HardLink[] = [];
  for (const item of items) {
    const found = sightingsOf(item);
    sightings.push(...found.sightings);
    hardLinks.push(...found.hardLinks);
  }
  const labels = JSON.parse(readFileSync(join(PEOPLE_FIXTURE, "truth.json"), "utf8")) as {
    people: Record<string, string[]>;
    traps: { name: string; keys: string[][] }[];
  };
  const truth: Record<string, string> = {};
  for (const [person, keys] of Object.entries(labels.people)) for (const key of keys) truth[key] = person;
  return { items, sightings, hardLinks, truth, traps: labels.traps };
}
