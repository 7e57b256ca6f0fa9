/**
 * The conversational set of `npm run bench:retrieval`, generated here (no outside data; deterministic): a
 * group of friends chatting over about eight months, each turn a chat message whose author is its speaker.
 * Some turns state a personal fact (a pet adopted, a trip, a new job...); questions name the person and ask
 * for the fact in other words, the way a user asks an assistant ("What is the name of the dog Maria
 * adopted?"), some with "or" and "and" in them. The facts are spread over the whole period, so most evidence
 * is far older than the newest few hundred turns, and every speaker's name is on a large share of the turns
 * (as author or addressed), with small talk that reuses the facts' words.
 */

export interface ConversationTurn {
  externalId: string;
  kind: "message";
  source: "chat";
  author: string;
  participants: string[];
  body: string;
  occurredAt: string;
}

export interface ConversationQuery {
  kind: "conversation";
  q: string;
  relevant: string[];
}

const SPEAKERS = [
  "Maria Lopez",
  "Ben Carter",
  "Priya Nair",
  "Omar Haddad",
  "Lena Vogel",
  "Jonas Berg",
  "Aiko Tanaka",
  "Samuel Okoye",
  "Chloe Martin",
  "Diego Ruiz",
];

interface Fact {
  statement: (first: string, v: string[]) => string;
  question: (first: string, v: string[]) => string;
  values: string[][];
}

/** Each speaker gets one value tuple of each fact, picked by the speaker's index. */
const FACTS: Fact[] = [
  {
    statement: (_, [animal, name]) =>
      `We finally adopted a ${animal} from the shelter, she's called ${name}!`,
    question: (first, [animal]) => `What is the name of the ${animal} ${first} adopted from the shelter?`,
    values: [
      ["dog", "Biscuit"],
      ["cat", "Miso"],
      ["rabbit", "Clover"],
      ["dog", "Pepper"],
      ["cat", "Juniper"],
    ],
  },
  {
    statement: (_, [city, event]) => `Booked my flights to ${city} for the ${event} next month.`,
    question: (first, [, event]) => `Where did ${first} book flights to for the ${event}?`,
    values: [
      ["Reykjavik", "photography workshop"],
      ["Marrakesh", "wedding"],
      ["Montreal", "jazz festival"],
      ["Kyoto", "marathon"],
      ["Valparaiso", "family reunion"],
    ],
  },
  {
    statement: (_, [role, company]) =>
      `Big news: I accepted an offer as ${role} at ${company}, starting Monday.`,
    question: (first) => `Which offer did ${first} accept, and at which company?`,
    values: [
      ["a data analyst", "Northwind Logistics"],
      ["head of design", "Bluefin Studios"],
      ["a staff nurse", "Riverside Clinic"],
      ["a sous chef", "Osteria Verde"],
      ["a product manager", "Lumen Health"],
    ],
  },
  {
    statement: (_, [hobby]) => `I signed up for ${hobby} lessons on Thursday evenings, first one was great.`,
    question: (first) => `Which lessons did ${first} sign up for, pottery or something else?`,
    values: [["pottery"], ["salsa"], ["bouldering"], ["watercolour"], ["improv theatre"]],
  },
  {
    statement: (_, [book, writer]) => `Currently halfway through ${book} by ${writer}, can't put it down.`,
    question: (first) => `Which book was ${first} halfway through, and who wrote it?`,
    values: [
      ["The Glass Orchard", "Ines Calder"],
      ["Salt Roads", "Marek Hollis"],
      ["Night Ferry", "Ada Brennan"],
      ["Copper Season", "Tomas Reyes"],
      ["The Quiet Harbour", "Elif Arslan"],
    ],
  },
  {
    statement: (_, [food]) => `Turns out I'm allergic to ${food}, the doctor confirmed it after the tests.`,
    question: (first) => `What is ${first} allergic to, according to the doctor?`,
    values: [["shellfish"], ["peanuts"], ["sesame"], ["kiwi"], ["hazelnuts"]],
  },
];

const SMALL_TALK = [
  "How was your weekend?",
  "Did anyone watch the game last night?",
  "Let's grab coffee soon, it's been ages.",
  "I'm so tired today, long week at work.",
  "The weather has been awful, rain all week.",
  "Happy birthday! Hope you have a great day.",
  "Running late, see you in ten minutes.",
  "Has anyone tried the new ramen place downtown?",
  "My neighbour's dog barked all night again.",
  "Work has been busy but good, new project started.",
  "We should plan a trip together this summer.",
  "I need a new book to read, any suggestions?",
  "The doctor's office called to move my appointment.",
  "Thinking about taking some evening classes this year.",
  "My cat knocked a glass off the table this morning.",
  "Anyone up for a hike on Saturday?",
  "Just got back from the gym, feeling great.",
  "Did you see the photos from the party?",
  "I can't believe it's already the end of the month.",
  "Our flight got delayed by three hours, classic.",
  "Cooking dinner for friends tonight, wish me luck.",
  "The new job at the office is keeping everyone busy.",
  "Lessons start again next week after the break.",
  "I found a great recipe for lentil soup.",
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** About `turns` chat turns ending at `now`, and the questions whose evidence they hold. */
export function conversationDataset(
  now: Date,
  turns = 2400,
): { items: ConversationTurn[]; queries: ConversationQuery[] } {
  const rand = random(20261204);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const spanMs = 240 * 86_400_000;
  const start = now.getTime() - spanMs;
  // Each (speaker, fact) statement goes at a random turn position; the rest is small talk.
  const factAt = new Map<number, { speaker: number; fact: number }>();
  SPEAKERS.forEach((_, speaker) => {
    FACTS.forEach((_, fact) => {
      let at = Math.floor(rand() * turns);
      while (factAt.has(at)) at = (at + 1) % turns;
      factAt.set(at, { speaker, fact });
    });
  });
  const items: ConversationTurn[] = [];
  const queries: ConversationQuery[] = [];
  for (let i = 0; i < turns; i++) {
    const planted = factAt.get(i);
    const speaker = planted ? planted.speaker : Math.floor(rand() * SPEAKERS.length);
    let other = Math.floor(rand() * (SPEAKERS.length - 1));
    if (other >= speaker) other++;
    const author = SPEAKERS[speaker]!;
    const addressee = SPEAKERS[other]!;
    const first = author.split(" ")[0]!;
    const otherFirst = addressee.split(" ")[0]!;
    let body: string;
    if (planted) {
      const fact = FACTS[planted.fact]!;
      const values = fact.values[speaker % fact.values.length]!;
      body = `${otherFirst}, ${fact.statement(first, values).replace(/^./, (c) => c.toLowerCase())}`;
      queries.push({ kind: "conversation", q: fact.question(first, values), relevant: [`turn-${i}`] });
    } else {
      const line = pick(SMALL_TALK);
      body = rand() < 0.5 ? `${otherFirst}, ${line.replace(/^./, (c) => c.toLowerCase())}` : line;
    }
    items.push({
      externalId: `turn-${i}`,
      kind: "message",
      source: "chat",
      author,
      participants: [addressee],
      body,
      occurredAt: new Date(start + Math.floor((spanMs * i) / turns)).toISOString(),
    });
  }
  return { items, queries };
}
