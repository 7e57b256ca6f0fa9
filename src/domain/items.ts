/** The workspace store's model and port. The research tools and the HTTP API both go through ItemStore. */
import type { ItemInput, ItemKind } from "./item-schema";

export interface Item {
  id: string;
  ownerId: string;
  source: string;
  externalId: string;
  kind: ItemKind;
  title: string | null;
  body: string;
  author: string | null;
  participants: string[];
  occurredAt: Date;
  createdAt: Date;
  updatedAt: Date;
  url: string | null;
  metadata: Record<string, unknown>;
  sharedWith: string[];
}

export interface ItemProblem {
  index: number;
  path: string;
  message: string;
}

/** Each (source, externalId) that repeats within one batch, pointing at its first occurrence. */
export function repeatedKeys(
  entries: { index: number; source: string; externalId: string }[],
): ItemProblem[] {
  const first = new Map<string, number>();
  const problems: ItemProblem[] = [];
  for (const { index, source, externalId } of entries) {
    const key = JSON.stringify([source, externalId]);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, index);
    else problems.push({ index, path: "externalId", message: `duplicates the item at index ${seen}` });
  }
  return problems;
}

/** What an upsert did to an item. */
export const UPSERT_STATUSES = ["created", "updated", "unchanged"] as const;
export type UpsertStatus = (typeof UPSERT_STATUSES)[number];

export interface UpsertOutcome {
  id: string;
  source: string;
  externalId: string;
  status: UpsertStatus;
}

/** A resolved link, seen from one item: `outgoing` links point from it, `incoming` ones to it. */
export interface ItemLink {
  direction: "outgoing" | "incoming";
  kind: string;
  item: ItemSummary;
}

/** One resolved @-link between two items (ids), as the item graph holds it. */
export interface ItemEdge {
  fromId: string;
  toId: string;
  kind: string;
}

export type ItemSummary = Pick<
  Item,
  "id" | "kind" | "source" | "externalId" | "title" | "author" | "occurredAt"
>;

/**
 * How `q` is matched: full-text words (keyword), meaning by embeddings (semantic), or both fused by
 * reciprocal rank (hybrid). Without an embedder only keyword exists.
 */
export const SEARCH_MODES = ["hybrid", "keyword", "semantic"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** A search query's embedding, by the model whose item embeddings it is compared with. */
export interface QueryEmbedding {
  model: string;
  vector: number[];
}

/** Who a search's items must involve: identifier keys, and names matched as text (either matches). */
export interface PeopleFilter {
  identifiers: string[];
  people: string[];
}

export interface SearchQuery {
  q?: string;
  /** Absent: hybrid when an embedder is configured, else keyword (domain/search-modes.ts decides). */
  mode?: SearchMode;
  /**
   * Set for hybrid and semantic searches by withQueryEmbeddings, still on its way: the store's vector channel
   * waits for it while the keyword channel, which needs none, runs. Undefined when a hybrid search's query
   * could not be embedded (it is then answered by the keyword channel alone); a semantic search's fails.
   */
  embedding?: Promise<QueryEmbedding | undefined>;
  kinds?: ItemKind[];
  since?: Date;
  until?: Date;
  /** Names matched as text against authors and participants, unless `involving` resolves them. */
  people?: string[];
  /**
   * The people filter as the application resolves it through the viewer's people (`person` ids and
   * `people` names): items naming any of the identifier keys (`email:ada@acme.com`) match, as well as items
   * matching the names that named no one, as text. Still on its way, like `embedding`: the store starts
   * what needs no filter (a first page's keyword statistics, the query's embedding) meanwhile.
   */
  involving?: Promise<PeopleFilter | undefined>;
  limit: number;
  cursor?: string;
}

/**
 * A promise the store will await (SearchQuery.involving): a search that fails before it does (an invalid
 * mode, say) leaves no unhandled rejection behind. The store still sees the rejection.
 */
export function whileSearching<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => {});
  return pending;
}

export interface SearchHit extends ItemSummary {
  /** A short excerpt of the body around the match. */
  snippet: string;
  rank: number;
}

export interface SearchPage {
  items: SearchHit[];
  nextCursor: string | null;
}

/** What changed for a subject since a point in time: the cheap context for an incremental refresh. */
export interface ActivityDigest {
  since: Date;
  newByKind: Partial<Record<ItemKind, number>>;
  updatedByKind: Partial<Record<ItemKind, number>>;
  busiestThreads: { title: string; items: number }[];
  topPeople: { person: string; items: number }[];
}

/**
 * Every read takes the viewer: the access rule (owner or in shared_with) is enforced in SQL.
 * Writes take the owner: only the owner can change or delete an item.
 */
export interface ItemStore {
  upsert(
    subjectKey: string,
    items: ItemInput[],
  ): Promise<{
    outcomes: UpsertOutcome[];
    affectedSubjects: string[];
    /** Subjects whose memory versions were redacted (an update shared an item with fewer targets). */
    redactedSubjects: string[];
  }>;
  search(subjectKey: string, query: SearchQuery): Promise<SearchPage>;
  get(subjectKey: string, id: string): Promise<(Item & { links: ItemLink[] }) | null>;
  /** The visible items among `ids`, in no particular order; invisible or unknown ids are left out. */
  getMany(subjectKey: string, ids: string[]): Promise<Item[]>;
  recent(subjectKey: string, options: { since: Date; kinds?: ItemKind[]; limit: number }): Promise<Item[]>;
  linked(subjectKey: string, id: string): Promise<ItemLink[]>;
  /** The resolved links with an end among `ids` whose two ends the viewer may see (bounded). */
  edgesOf(subjectKey: string, ids: string[]): Promise<ItemEdge[]>;
  /** Authors and participants by how many items name them (occurred since `since`, changed since `changedSince`). */
  topPeople(
    subjectKey: string,
    options: { since?: Date; changedSince?: Date; limit: number },
  ): Promise<{ person: string; items: number }[]>;
  /** What changed since `since` but its people, which the refresh takes from the subject's people (agent/changed-items.ts). */
  digest(subjectKey: string, since: Date): Promise<Omit<ActivityDigest, "topPeople">>;
}
