/**
 * npm run bench:people [-- --scale 5000]
 *
 * Runs the real importers over the labelled people fixture (test/fixtures/people), turns every item into
 * sightings (sightingsOf) and resolves them (resolvePeople), then prints how the people found compare with
 * the true person of every identifier: pairwise precision and recall of the links made automatically (hard
 * and scored), of the scored ones alone, B-cubed precision, recall and F1, the true and false pairs waiting
 * as suggestions, and whether any trap was merged. Beside it, in the same run, the naive reference the old
 * `top_people` grouping amounts to: identifiers seen under the same normalised name are one person.
 * `--scale N` also times resolvePeople on N synthetic identifiers.
 */
import { parseArgs } from "node:util";
import { DEFAULT_LINK_CONFIG } from "../src/domain/people/link-config";
import type { Sighting } from "../src/domain/people/model";
import { resolvePeople } from "../src/domain/people/resolve";
import { loadPeopleFixture } from "./lib/people-fixture";
import { type ClusterScores, pairsOf, scoreClusters, trapMerged } from "./lib/people-metrics";

const { values } = parseArgs({ options: { scale: { type: "string" } } });

const fixture = await loadPeopleFixture();
const truth = new Map(Object.entries(fixture.truth));
const seen = new Set(fixture.sightings.map((s) => s.key));
const unlabelled = [...seen].filter((k) => !truth.has(k));
if (unlabelled.length > 0) {
  console.error(`identifiers without a true person in truth.json: ${unlabelled.join(", ")}`);
  process.exit(1);
}
const unseen = [...truth.keys()].filter((k) => !seen.has(k));
if (unseen.length > 0) console.warn(`labelled but not seen: ${unseen.join(", ")}`);

const started = performance.now();
const result = resolvePeople({ sightings: fixture.sightings, hardLinks: fixture.hardLinks, corrections: [] });
const elapsed = performance.now() - started;
const predicted = new Map<string, string>();
for (const person of result.people) for (const id of person.identifiers) predicted.set(id.key, person.id);

// Hard links only: the scored links' own contribution is what the full run adds to it.
const hardOnly = resolvePeople({
  sightings: fixture.sightings,
  hardLinks: fixture.hardLinks,
  corrections: [],
  config: { ...DEFAULT_LINK_CONFIG, autoThreshold: Number.POSITIVE_INFINITY },
});
const hardClusters = new Map<string, string>();
for (const person of hardOnly.people)
  for (const id of person.identifiers) hardClusters.set(id.key, person.id);
const hardPairs = pairsOf(hardClusters);
const truePairs = pairsOf(truth);
const scoredPairs = [...pairsOf(predicted)].filter((p) => !hardPairs.has(p));
const scoredCorrect = scoredPairs.filter((p) => truePairs.has(p)).length;

const baseline = nameBaseline(fixture.sightings);

const waiting = result.suggestions.filter((s) => truth.get(s.a) === truth.get(s.b));
const wrongSuggestions = result.suggestions.filter((s) => truth.get(s.a) !== truth.get(s.b));
const pairOf = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
const waitingPairs = new Set<string>();
for (const s of waiting) {
  // A suggestion joins two people: every true pair across them waits on it.
  const pa = result.people.find((p) => p.identifiers.some((i) => i.key === s.a))!;
  const pb = result.people.find((p) => p.identifiers.some((i) => i.key === s.b))!;
  for (const x of pa.identifiers) {
    for (const y of pb.identifiers)
      if (truePairs.has(pairOf(x.key, y.key))) waitingPairs.add(pairOf(x.key, y.key));
  }
}

const fmt = (x: number) => x.toFixed(3);
const row = (label: string, s: ClusterScores) =>
  `| ${label} | ${s.pairs} | ${fmt(s.pairPrecision)} | ${fmt(s.pairRecall)} | ${fmt(s.bcubedPrecision)} | ${fmt(s.bcubedRecall)} | ${fmt(s.bcubedF1)} |`;
const full = scoreClusters(predicted, truth);
const hard = scoreClusters(hardClusters, truth);
const naive = scoreClusters(baseline, truth);

console.log(
  `fixture: ${fixture.items.length} items, ${seen.size} identifiers, ${new Set(truth.values()).size} true people, ${truePairs.size} true pairs, ${fixture.hardLinks.length} hard links from records`,
);
console.log("");
console.log(
  "| clustering | pairs linked | pair precision | pair recall | B3 precision | B3 recall | B3 F1 |",
);
console.log("|---|---|---|---|---|---|---|");
console.log(row("resolvePeople (hard + scored links)", full));
console.log(row("hard links only", hard));
console.log(row("reference: same normalised name = same person", naive));
console.log("");
console.log(
  `scored links: ${scoredPairs.length} pairs added beyond hard links, ${scoredCorrect} true: precision ${fmt(scoredPairs.length ? scoredCorrect / scoredPairs.length : 1)}`,
);
console.log(
  `suggestions: ${result.suggestions.length} (${waiting.length} right, ${wrongSuggestions.length} wrong); true pairs waiting as suggestions: ${waitingPairs.size}`,
);
for (const s of result.suggestions) {
  const verdict = truth.get(s.a) === truth.get(s.b) ? "right" : "wrong";
  console.log(`  ${verdict} ${s.score} ${s.a} ~ ${s.b}: ${s.reasons.join("; ")}`);
}
console.log("");
console.log("| trap | merged by resolvePeople | merged by the reference |");
console.log("|---|---|---|");
for (const trap of fixture.traps) {
  console.log(
    `| ${trap.name} | ${trapMerged(trap.keys, predicted) ? "MERGED" : "no"} | ${trapMerged(trap.keys, baseline) ? "merged" : "no"} |`,
  );
}
const wrongPairs = [...pairsOf(predicted)].filter((p) => !truePairs.has(p));
if (wrongPairs.length > 0) {
  console.log("");
  console.log("pairs linked wrongly:");
  for (const p of wrongPairs) console.log(`  ${p.replace("\u0000", " ~ ")}`);
}
console.log("");
console.log(
  `resolvePeople: ${elapsed.toFixed(1)} ms on ${seen.size} identifiers, ${fixture.sightings.length} sightings`,
);

if (values.scale) timeAtScale(Number(values.scale));

/** The reference: identifiers that carried the same name (trimmed, lower case) are one person. */
function nameBaseline(sightings: Sighting[]): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let r = k;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(k, r);
    return r;
  };
  const byName = new Map<string, string>();
  for (const s of sightings) {
    if (!parent.has(s.key)) parent.set(s.key, s.key);
    const name = s.name?.trim().toLowerCase();
    if (!name) continue;
    const other = byName.get(name);
    if (other) parent.set(find(s.key), find(other));
    else byName.set(name, s.key);
  }
  return new Map([...parent.keys()].map((k) => [k, find(k)]));
}

/**
 * resolvePeople on n synthetic identifiers: people with a work address, a chat account and a login, each
 * seen once on its own day over two years.
 */
function timeAtScale(n: number): void {
  const first = [
    "ada",
    "bob",
    "carol",
    "dan",
    "eve",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "mallory",
    "niaj",
  ];
  const sightings: Sighting[] = [];
  const hardLinks: { a: string; b: string; itemId: string }[] = [];
  const people = Math.ceil(n / 3);
  for (let i = 0; i < people; i++) {
    const given = first[i % first.length]!;
    const surname = `surname${Math.floor(i / first.length)}`;
    const name = `${given[0]!.toUpperCase()}${given.slice(1)} ${surname}`;
    const item = `item-${i}`;
    const email = `email:${given}.${surname}@org${i % 40}.example`;
    const slack = `slack:T0/U${String(i).padStart(8, "0")}`;
    const login = `github:${given}${surname}`;
    // Seen over two years, so activity is compared too: each identifier on its own day.
    const at = (offset: number) => new Date(Date.UTC(2024, 0, 1 + ((i * 7) % 730) + offset)).toISOString();
    sightings.push({ key: email, name, role: "author", itemId: item, at: at(0) });
    sightings.push({ key: slack, name, role: "author", itemId: `chat-${i}`, at: at(1) });
    sightings.push({ key: login, name: null, role: "author", itemId: `pr-${i}`, at: at(2) });
    if (i % 2 === 0) hardLinks.push({ a: slack, b: email, itemId: `chat-${i}` });
  }
  // Five runs after one warm-up (the machine may be shared): the fastest and the median.
  const input = { sightings: sightings.slice(0, n), hardLinks, corrections: [] };
  let out = resolvePeople(input);
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now();
    out = resolvePeople(input);
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  console.log(
    `scale: resolvePeople on ${Math.min(n, sightings.length)} identifiers (${people} people): fastest ${times[0]!.toFixed(0)} ms, median ${times[2]!.toFixed(0)} ms of 5 runs; ${out.people.length} people, ${out.suggestions.length} suggestions`,
  );
}
