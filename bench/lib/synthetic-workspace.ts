/**
 * A large, deterministic workspace for scale benchmarks: items that look like a real mailbox-plus-tools
 * export. Words follow a Zipf law over a vocabulary whose head is the demo workspace's real English (stop
 * words included) and whose tail is made-up words (project names, jargon), so a query can be chosen by
 * how many items it matches. People follow a Zipf law too: a few colleagues appear in a large share of
 * the items, most people in a handful. Kinds, dates and sizes are spread like a working account's.
 */
import { type ApiItem, DEMO_USER_IDS, demoWorkspace } from "../../fixtures/demo-workspace";
import type { ItemKind } from "../../src/domain/item-schema";

const FIRST_NAMES = [
  "Ada",
  "Ben",
  "Chloe",
  "Dev",
  "Eli",
  "Farah",
  "Greta",
  "Hana",
  "Ivan",
  "Jonas",
  "Kira",
  "Lucia",
  "Mara",
  "Nadia",
  "Omar",
  "Priya",
  "Quentin",
  "Ruth",
  "Samir",
  "Tom",
  "Uma",
  "Viktor",
  "Wen",
  "Xavier",
  "Yusuf",
  "Zoe",
  "Aiko",
  "Bruno",
  "Carmen",
  "Dmitri",
  "Esther",
  "Felix",
  "Gustavo",
  "Helga",
  "Imani",
  "Jakob",
  "Keiko",
  "Leon",
  "Maya",
  "Nikhil",
  "Olga",
  "Pablo",
  "Rosa",
  "Stefan",
  "Tariq",
  "Ursula",
  "Vera",
  "Wade",
  "Yara",
  "Zain",
] as const;
const LAST_NAMES = [
  "Okafor",
  "Castillo",
  "Marchetti",
  "Malhotra",
  "Brandt",
  "Whitaker",
  "Lindqvist",
  "Raman",
  "Nakamura",
  "Haddad",
  "Sato",
  "Ferreira",
  "Iyer",
  "Holm",
  "Kowalski",
  "Petrova",
  "Achebe",
  "Demir",
  "Weber",
  "Delgado",
  "Brooks",
  "Patel",
  "Schmidt",
  "Moreau",
  "Rossi",
  "Kim",
  "Novak",
  "Silva",
  "Jensen",
  "Cohen",
  "Tanaka",
  "Mendes",
  "Dubois",
  "Larsen",
  "Nguyen",
  "Horvat",
  "Quinn",
  "Abbasi",
  "Ortega",
  "Fischer",
] as const;
const DOMAINS = ["northwind.example", "corvidpay.example", "bluefin.example", "kettle.example"] as const;
const KIND_SHARES: [ItemKind, number][] = [
  ["email", 0.45],
  ["message", 0.3],
  ["doc", 0.05],
  ["task", 0.05],
  ["event", 0.05],
  ["call", 0.03],
  ["note", 0.03],
  ["file", 0.02],
  ["pull_request", 0.015],
  ["contact", 0.005],
];
const SOURCE_OF: Record<ItemKind, string> = {
  email: "gmail",
  message: "slack",
  doc: "gdrive",
  task: "linear",
  event: "gcal",
  call: "zoom",
  note: "notes",
  file: "dropbox",
  pull_request: "github",
  contact: "hubspot",
};
const TAIL_WORDS = 30_000;
const SYLLABLES = [
  "ka",
  "ro",
  "bel",
  "mun",
  "tor",
  "vi",
  "sen",
  "dra",
  "pol",
  "quin",
  "zar",
  "lo",
  "nex",
  "fi",
];

export interface SyntheticOptions {
  /** Epoch ms of the newest item; items spread over `years` before it, denser towards it. */
  anchor: number;
  years?: number;
  seed?: number;
}

export interface SyntheticWorkspace {
  /** Item `index` (0-based) of the owner: same index, same item. */
  item(index: number): ApiItem;
  /** The word at Zipf rank `rank` (0 = most frequent), for choosing queries by frequency. */
  word(rank: number): string;
  /** The person at popularity rank `rank` (0 = appears most), as "Name <address>". */
  person(rank: number): { name: string; email: string; display: string };
  vocabularySize: number;
  peopleCount: number;
}

export function syntheticWorkspace(options: SyntheticOptions): SyntheticWorkspace {
  const years = options.years ?? 3;
  const seed = options.seed ?? 12;
  const vocabulary = buildVocabulary();
  const words = zipfSampler(vocabulary.length, 1.05);
  const people = buildPeople();
  const peopleRank = zipfSampler(people.length, 1.1);
  const spanMs = years * 365 * 24 * 3600_000;

  const item = (index: number): ApiItem => {
    const rand = mulberry32(hash32(seed, index));
    const kind = pickKind(rand());
    const sentence = (min: number, max: number) => {
      const n = min + Math.floor(rand() * (max - min + 1));
      const out: string[] = [];
      for (let i = 0; i < n; i++) out.push(vocabulary[words(rand())]!);
      return out.join(" ");
    };
    // Bodies: mostly short (chat) to medium (mail); 1% long documents.
    const bodyWords =
      kind === "message" ? 8 + rand() * 40 : rand() < 0.01 ? 2000 + rand() * 4000 : 40 + rand() * 260;
    const sentences: string[] = [];
    for (let w = 0; w < bodyWords; ) {
      const s = sentence(6, 18);
      sentences.push(`${s[0]!.toUpperCase()}${s.slice(1)}.`);
      w += s.split(" ").length;
    }
    const author = people[peopleRank(rand())]!;
    const participantCount =
      kind === "email" || kind === "event" ? 1 + Math.floor(rand() * 6) : Math.floor(rand() * 3);
    const participants = new Set<string>();
    for (let i = 0; i < participantCount; i++) participants.add(people[peopleRank(rand())]!.display);
    // Denser towards the anchor: the square root of a uniform variable puts more mass near 1.
    const age = (1 - Math.sqrt(rand())) * spanMs;
    return {
      source: SOURCE_OF[kind],
      externalId: `syn-${index}`,
      kind,
      title: kind === "message" ? undefined : sentence(3, 9),
      body: sentences.join(" "),
      author: author.display,
      participants: [...participants],
      occurredAt: new Date(options.anchor - Math.floor(age)).toISOString(),
    };
  };

  return {
    item,
    word: (rank) => vocabulary[rank]!,
    person: (rank) => people[rank]!,
    vocabularySize: vocabulary.length,
    peopleCount: people.length,
  };
}

/** The demo workspace's words by descending frequency, then made-up words. */
function buildVocabulary(): string[] {
  const counts = new Map<string, number>();
  const ws = demoWorkspace(new Date("2026-01-01T00:00:00Z"));
  for (const key of DEMO_USER_IDS) {
    for (const it of ws.itemsByOwner[key]) {
      for (const w of `${it.title ?? ""} ${it.body}`.toLowerCase().match(/[a-z]{2,}/g) ?? []) {
        counts.set(w, (counts.get(w) ?? 0) + 1);
      }
    }
  }
  const head = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  const seen = new Set(head);
  const tail: string[] = [];
  const rand = mulberry32(7);
  while (tail.length < TAIL_WORDS) {
    const n = 2 + Math.floor(rand() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      tail.push(w);
    }
  }
  return [...head, ...tail];
}

function buildPeople(): { name: string; email: string; display: string }[] {
  const out: { name: string; email: string; display: string }[] = [];
  const rand = mulberry32(11);
  // Every (first, last) pair once, in a shuffled order: the order is the popularity rank.
  const pairs = FIRST_NAMES.flatMap((f) => LAST_NAMES.map((l) => [f, l] as const));
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
  }
  for (const [first, last] of pairs) {
    const name = `${first} ${last}`;
    const email = `${first.toLowerCase()}.${last.toLowerCase()}@${DOMAINS[Math.floor(rand() * DOMAINS.length)]}`;
    out.push({ name, email, display: `${name} <${email}>` });
  }
  return out;
}

function pickKind(u: number): ItemKind {
  let acc = 0;
  for (const [kind, share] of KIND_SHARES) {
    acc += share;
    if (u < acc) return kind;
  }
  return "email";
}

/** Maps a uniform [0,1) to a Zipf(s)-distributed rank in [0, n) by binary search over the CDF. */
function zipfSampler(n: number, s: number): (u: number) => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += 1 / (k + 1) ** s;
    cdf[k] = total;
  }
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash32(a: number, b: number): number {
  let h = 0x811c9dc5 ^ a;
  h = Math.imul(h ^ b, 0x01000193);
  h = Math.imul(h ^ (b >>> 16), 0x01000193);
  return h >>> 0;
}
