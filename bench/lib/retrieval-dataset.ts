/**
 * The labelled retrieval dataset of `npm run bench:retrieval`: workspace items on distinct topics, and
 * queries of four kinds, each naming the items it should find:
 *   - own: words taken from the item itself;
 *   - paraphrase: the same need in other words (few or no shared content words);
 *   - variant: the item's words misspelt, or as another compound/hyphen form;
 *   - question: how a person asks for it.
 * The items are mixed into the demo workspace's items (as distractors) under one user.
 */

export type QueryKind = "own" | "paraphrase" | "variant" | "question";
export const QUERY_KINDS: readonly QueryKind[] = ["own", "paraphrase", "variant", "question"];

export interface LabelledItem {
  externalId: string;
  kind: "email" | "message" | "doc" | "task" | "note" | "call";
  title: string;
  body: string;
}

export interface LabelledQuery {
  kind: QueryKind;
  q: string;
  relevant: string[];
}

export const LABELLED_ITEMS: LabelledItem[] = [
  {
    externalId: "r-cutover",
    kind: "email",
    title: "Ledger cut-over weekend",
    body: "The ledger cut-over happens on Saturday night. Payments are frozen from 22:00 until the new system confirms balances. Ben owns the rollback.",
  },
  {
    externalId: "r-parental",
    kind: "doc",
    title: "Parental leave policy",
    body: "Employees get sixteen weeks of paid parental leave after the birth or adoption of a child, to be taken within the first year.",
  },
  {
    externalId: "r-laptop",
    kind: "message",
    title: "Laptop refresh",
    body: "Engineers can order a new laptop every three years through the IT portal; the old machine goes back to IT for wiping.",
  },
  {
    externalId: "r-outage",
    kind: "doc",
    title: "Postmortem: checkout outage",
    body: "On Tuesday the checkout service was down for forty minutes because an expired TLS certificate broke calls to the card processor.",
  },
  {
    externalId: "r-hiring",
    kind: "note",
    title: "Hiring plan",
    body: "We will recruit two senior backend engineers and one designer this quarter; interviews start after the budget is approved.",
  },
  {
    externalId: "r-offsite",
    kind: "email",
    title: "Team offsite in Lisbon",
    body: "The team offsite is in Lisbon from 12 to 14 May. Flights and the hotel are booked by the office manager; bring walking shoes.",
  },
  {
    externalId: "r-pricing",
    kind: "doc",
    title: "Pricing change",
    body: "From July the Pro plan costs 29 dollars a month instead of 25; existing customers keep the old price for six months.",
  },
  {
    externalId: "r-churn",
    kind: "call",
    title: "Churn review",
    body: "Customers who cancel mostly cite missing integrations and slow support replies; the churn rate rose to four percent.",
  },
  {
    externalId: "r-security",
    kind: "task",
    title: "Rotate database passwords",
    body: "Rotate the production database credentials and store the new secrets in the vault before the audit on Friday.",
  },
  {
    externalId: "r-onboarding",
    kind: "doc",
    title: "Onboarding checklist",
    body: "New starters receive their accounts on day one, meet their buddy, and ship a small change to production in their first week.",
  },
  {
    externalId: "r-expenses",
    kind: "message",
    title: "Expense reports",
    body: "Submit receipts for travel and meals within thirty days; finance reimburses approved claims with the next salary.",
  },
  {
    externalId: "r-roadmap",
    kind: "doc",
    title: "Mobile app roadmap",
    body: "The mobile app gets offline mode in the second quarter and push notifications in the third; the tablet layout is postponed.",
  },
  {
    externalId: "r-vendor",
    kind: "email",
    title: "Warehouse vendor contract",
    body: "The logistics vendor renewed the warehouse contract for two years with a five percent discount on storage fees.",
  },
  {
    externalId: "r-latency",
    kind: "note",
    title: "Search latency",
    body: "The search endpoint answers slowly at peak hours: the ninety-ninth percentile reached two seconds because of a missing index.",
  },
  {
    externalId: "r-remote",
    kind: "doc",
    title: "Remote work guidelines",
    body: "Staff may work from home three days a week; core hours are ten to four so meetings fit every time zone.",
  },
  {
    externalId: "r-backup",
    kind: "task",
    title: "Backup restore drill",
    body: "Restore last night's backup into a scratch environment and time how long it takes to bring the service back.",
  },
  {
    externalId: "r-gdpr",
    kind: "doc",
    title: "Data deletion requests",
    body: "When a customer asks us to erase their personal data we must delete it from every system within thirty days.",
  },
  {
    externalId: "r-conference",
    kind: "email",
    title: "Conference talk accepted",
    body: "Our talk about edge caching was accepted at the developer conference in Berlin; slides are due two weeks before.",
  },
  {
    externalId: "r-printer",
    kind: "message",
    title: "Printer on the third floor",
    body: "The printer on the third floor jams with thick paper; facilities ordered a replacement that arrives next week.",
  },
  {
    externalId: "r-standup",
    kind: "note",
    title: "Standup time moves",
    body: "From Monday the daily standup moves to 9:45 so people dropping off kids at school can join.",
  },
];

export const LABELLED_QUERIES: LabelledQuery[] = [
  // own words
  { kind: "own", q: "ledger cut-over Saturday", relevant: ["r-cutover"] },
  { kind: "own", q: "paid parental leave", relevant: ["r-parental"] },
  { kind: "own", q: "order a new laptop", relevant: ["r-laptop"] },
  { kind: "own", q: "expired TLS certificate checkout", relevant: ["r-outage"] },
  { kind: "own", q: "senior backend engineers designer", relevant: ["r-hiring"] },
  { kind: "own", q: "offsite Lisbon", relevant: ["r-offsite"] },
  { kind: "own", q: "Pro plan price", relevant: ["r-pricing"] },
  { kind: "own", q: "churn rate integrations", relevant: ["r-churn"] },
  { kind: "own", q: "rotate database credentials vault", relevant: ["r-security"] },
  { kind: "own", q: "onboarding buddy first week", relevant: ["r-onboarding"] },
  { kind: "own", q: "submit receipts reimburses", relevant: ["r-expenses"] },
  { kind: "own", q: "mobile app offline mode", relevant: ["r-roadmap"] },
  { kind: "own", q: "warehouse contract storage fees", relevant: ["r-vendor"] },
  { kind: "own", q: "search endpoint percentile index", relevant: ["r-latency"] },
  { kind: "own", q: "work from home core hours", relevant: ["r-remote"] },
  { kind: "own", q: "restore backup scratch environment", relevant: ["r-backup"] },
  { kind: "own", q: "erase personal data", relevant: ["r-gdpr"] },
  { kind: "own", q: "talk edge caching Berlin", relevant: ["r-conference"] },
  { kind: "own", q: "printer third floor jams", relevant: ["r-printer"] },
  { kind: "own", q: "daily standup 9:45", relevant: ["r-standup"] },
  // paraphrases
  { kind: "paraphrase", q: "accounting system switchover over the weekend", relevant: ["r-cutover"] },
  { kind: "paraphrase", q: "time off for new mothers and fathers", relevant: ["r-parental"] },
  { kind: "paraphrase", q: "replacing developers' computers", relevant: ["r-laptop"] },
  { kind: "paraphrase", q: "incident report payment page unavailable", relevant: ["r-outage"] },
  { kind: "paraphrase", q: "recruiting new staff this quarter", relevant: ["r-hiring"] },
  { kind: "paraphrase", q: "company retreat in Portugal", relevant: ["r-offsite"] },
  { kind: "paraphrase", q: "subscription becomes more expensive", relevant: ["r-pricing"] },
  { kind: "paraphrase", q: "why clients leave us", relevant: ["r-churn"] },
  { kind: "paraphrase", q: "change production secrets", relevant: ["r-security"] },
  { kind: "paraphrase", q: "first days of a new hire", relevant: ["r-onboarding"] },
  { kind: "paraphrase", q: "getting money back for business trips", relevant: ["r-expenses"] },
  { kind: "paraphrase", q: "phone application plans", relevant: ["r-roadmap"] },
  { kind: "paraphrase", q: "supplier agreement renewal", relevant: ["r-vendor"] },
  { kind: "paraphrase", q: "queries are too slow", relevant: ["r-latency"] },
  { kind: "paraphrase", q: "telecommuting rules", relevant: ["r-remote"] },
  { kind: "paraphrase", q: "disaster recovery exercise", relevant: ["r-backup"] },
  { kind: "paraphrase", q: "privacy right to be forgotten", relevant: ["r-gdpr"] },
  { kind: "paraphrase", q: "speaking at an event in Germany", relevant: ["r-conference"] },
  { kind: "paraphrase", q: "office copier broken", relevant: ["r-printer"] },
  { kind: "paraphrase", q: "morning meeting rescheduled", relevant: ["r-standup"] },
  // spelling and compound variants
  { kind: "variant", q: "ledger cutover", relevant: ["r-cutover"] },
  { kind: "variant", q: "parental leeve", relevant: ["r-parental"] },
  { kind: "variant", q: "new labtop", relevant: ["r-laptop"] },
  { kind: "variant", q: "post-mortem checkout", relevant: ["r-outage"] },
  { kind: "variant", q: "hirring plan", relevant: ["r-hiring"] },
  { kind: "variant", q: "off-site Lisboa", relevant: ["r-offsite"] },
  { kind: "variant", q: "pricng change", relevant: ["r-pricing"] },
  { kind: "variant", q: "churn reveiw", relevant: ["r-churn"] },
  { kind: "variant", q: "data-base passwords", relevant: ["r-security"] },
  { kind: "variant", q: "on-boarding check list", relevant: ["r-onboarding"] },
  { kind: "variant", q: "expence reports", relevant: ["r-expenses"] },
  { kind: "variant", q: "road map mobile", relevant: ["r-roadmap"] },
  { kind: "variant", q: "ware house vendor", relevant: ["r-vendor"] },
  { kind: "variant", q: "search latancy", relevant: ["r-latency"] },
  { kind: "variant", q: "remote-work guidelines", relevant: ["r-remote"] },
  { kind: "variant", q: "back-up restore", relevant: ["r-backup"] },
  { kind: "variant", q: "data deletion requets", relevant: ["r-gdpr"] },
  { kind: "variant", q: "conferance talk", relevant: ["r-conference"] },
  { kind: "variant", q: "printr third floor", relevant: ["r-printer"] },
  { kind: "variant", q: "stand-up time", relevant: ["r-standup"] },
  // questions
  { kind: "question", q: "when does the new ledger go live?", relevant: ["r-cutover"] },
  { kind: "question", q: "how long can I stay home after my baby is born?", relevant: ["r-parental"] },
  { kind: "question", q: "how often do we get new computers?", relevant: ["r-laptop"] },
  { kind: "question", q: "what caused the checkout to fail?", relevant: ["r-outage"] },
  { kind: "question", q: "who are we going to hire?", relevant: ["r-hiring"] },
  { kind: "question", q: "where is the team trip this year?", relevant: ["r-offsite"] },
  { kind: "question", q: "how much will the Pro subscription cost?", relevant: ["r-pricing"] },
  { kind: "question", q: "why do customers cancel?", relevant: ["r-churn"] },
  { kind: "question", q: "what must be done before the audit?", relevant: ["r-security"] },
  { kind: "question", q: "what happens in a new employee's first week?", relevant: ["r-onboarding"] },
  { kind: "question", q: "how do I get reimbursed for a hotel?", relevant: ["r-expenses"] },
  { kind: "question", q: "when will the app work without internet?", relevant: ["r-roadmap"] },
  { kind: "question", q: "how long was the storage deal extended?", relevant: ["r-vendor"] },
  { kind: "question", q: "why is search so slow at busy times?", relevant: ["r-latency"] },
  { kind: "question", q: "how many days can I work from my house?", relevant: ["r-remote"] },
  { kind: "question", q: "how fast can we recover the service from a backup?", relevant: ["r-backup"] },
  { kind: "question", q: "how quickly must we delete a customer's information?", relevant: ["r-gdpr"] },
  { kind: "question", q: "when are the slides for Berlin due?", relevant: ["r-conference"] },
  { kind: "question", q: "why does the printer keep jamming?", relevant: ["r-printer"] },
  { kind: "question", q: "what time is the standup now?", relevant: ["r-standup"] },
];
