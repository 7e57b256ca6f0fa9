import type { Clock } from "../../../src/domain/clock";
import type { ItemInput, ItemKind } from "../../../src/domain/item-schema";
import type {
  ActivityDigest,
  Item,
  ItemEdge,
  ItemLink,
  ItemStore,
  ItemSummary,
  SearchHit,
  SearchPage,
  SearchQuery,
  UpsertOutcome,
} from "../../../src/domain/items";

interface StoredLink {
  from: string;
  to: string;
  kind: string;
}

/**
 * An in-memory ItemStore with the same access rule as the SQL one: a viewer sees an item it owns or is
 * in shared_with. Search is a plain substring match (all query terms must appear). `viewers` records the
 * viewer of every read, so tests can show no read was made on anyone else's behalf.
 */
export class InMemoryItemStore implements ItemStore {
  private readonly items = new Map<string, Item>();
  private links: StoredLink[] = [];
  readonly viewers: string[] = [];
  /** When set, every read throws it (to test failure paths). */
  failWith: Error | null = null;

  constructor(private readonly clock: Clock) {}

  private read(subjectKey: string): void {
    this.viewers.push(subjectKey);
    if (this.failWith) throw this.failWith;
  }

  private visible(subjectKey: string, item: Item): boolean {
    return item.ownerId === subjectKey || item.sharedWith.includes(subjectKey);
  }

  private visibleItems(subjectKey: string): Item[] {
    return [...this.items.values()].filter((item) => this.visible(subjectKey, item));
  }

  private key(ownerId: string, source: string, externalId: string): Item | undefined {
    return [...this.items.values()].find(
      (i) => i.ownerId === ownerId && i.source === source && i.externalId === externalId,
    );
  }

  async upsert(ownerId: string, inputs: ItemInput[]) {
    const now = this.clock.now();
    const outcomes: UpsertOutcome[] = [];
    const affected = new Set<string>([ownerId]);
    const saved: { item: Item; input: ItemInput }[] = [];
    for (const input of inputs) {
      const existing = this.key(ownerId, input.source, input.externalId);
      const fields = {
        kind: input.kind,
        title: input.title ?? null,
        body: input.body,
        author: input.author ?? null,
        participants: input.participants ?? [],
        occurredAt: input.occurredAt,
        url: input.url ?? null,
        metadata: input.metadata ?? {},
        sharedWith: input.sharedWith ?? [],
      };
      for (const s of [...fields.sharedWith, ...(existing?.sharedWith ?? [])]) affected.add(s);
      if (existing) {
        const same = JSON.stringify({ ...pick(existing, fields) }) === JSON.stringify(fields);
        const item = same ? existing : { ...existing, ...fields, updatedAt: now };
        this.items.set(item.id, item);
        saved.push({ item, input });
        outcomes.push({
          id: item.id,
          source: item.source,
          externalId: item.externalId,
          status: same ? "unchanged" : "updated",
        });
      } else {
        const item: Item = {
          id: crypto.randomUUID(),
          ownerId,
          source: input.source,
          externalId: input.externalId,
          ...fields,
          createdAt: now,
          updatedAt: now,
        };
        this.items.set(item.id, item);
        saved.push({ item, input });
        outcomes.push({ id: item.id, source: item.source, externalId: item.externalId, status: "created" });
      }
    }
    for (const { item, input } of saved) {
      if (!input.links) continue;
      this.links = this.links.filter((l) => l.from !== item.id);
      for (const link of input.links) {
        const target = this.key(ownerId, link.source ?? item.source, link.externalId);
        if (target) this.links.push({ from: item.id, to: target.id, kind: link.kind ?? "reference" });
      }
    }
    // This fake keeps no memory versions, so nothing is ever redacted here.
    return { outcomes, affectedSubjects: [...affected], redactedSubjects: [] };
  }

  async search(subjectKey: string, query: SearchQuery): Promise<SearchPage> {
    this.read(subjectKey);
    const terms = (query.q ?? "").toLowerCase().split(/\W+/).filter(Boolean);
    const people = query.people?.map((p) => p.toLowerCase());
    const hits: SearchHit[] = [];
    for (const item of this.filtered(subjectKey, query.kinds, query.since, query.until)) {
      if (people && !people.some((p) => personsOf(item).some((x) => x.toLowerCase().includes(p)))) continue;
      const text = `${item.title ?? ""}\n${item.body}\n${personsOf(item).join(" ")}`.toLowerCase();
      if (!terms.every((t) => text.includes(t))) continue;
      const rank = terms.reduce((n, t) => n + text.split(t).length - 1, 0);
      hits.push({ ...summary(item), snippet: snippet(item.body, terms[0]), rank });
    }
    hits.sort(
      (a, b) =>
        b.rank - a.rank || b.occurredAt.getTime() - a.occurredAt.getTime() || a.id.localeCompare(b.id),
    );
    const offset = query.cursor ? Number(query.cursor) : 0;
    const page = hits.slice(offset, offset + query.limit);
    const next = offset + query.limit;
    return { items: page, nextCursor: next < hits.length ? String(next) : null };
  }

  async get(subjectKey: string, id: string) {
    this.read(subjectKey);
    const item = this.items.get(id);
    if (!item || !this.visible(subjectKey, item)) return null;
    return { ...item, links: this.linksOf(subjectKey, id) };
  }

  async getMany(subjectKey: string, ids: string[]): Promise<Item[]> {
    this.read(subjectKey);
    return ids.flatMap((id) => {
      const item = this.items.get(id);
      return item && this.visible(subjectKey, item) ? [item] : [];
    });
  }

  async recent(
    subjectKey: string,
    options: { since: Date; kinds?: ItemKind[]; limit: number },
  ): Promise<Item[]> {
    this.read(subjectKey);
    return this.visibleItems(subjectKey)
      .filter((i) => !options.kinds || options.kinds.includes(i.kind))
      .filter((i) => i.occurredAt >= options.since || i.updatedAt >= options.since)
      .sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime())
      .slice(0, options.limit);
  }

  async linked(subjectKey: string, id: string): Promise<ItemLink[]> {
    this.read(subjectKey);
    const item = this.items.get(id);
    if (!item || !this.visible(subjectKey, item)) return [];
    return this.linksOf(subjectKey, id);
  }

  async edgesOf(subjectKey: string, ids: string[]): Promise<ItemEdge[]> {
    this.read(subjectKey);
    const wanted = new Set(ids);
    const seen = (id: string) => {
      const item = this.items.get(id);
      return item !== undefined && this.visible(subjectKey, item);
    };
    return this.links
      .filter((l) => (wanted.has(l.from) || wanted.has(l.to)) && seen(l.from) && seen(l.to))
      .map((l) => ({ fromId: l.from, toId: l.to, kind: l.kind }));
  }

  async topPeople(subjectKey: string, options: { since?: Date; changedSince?: Date; limit: number }) {
    this.read(subjectKey);
    const { changedSince } = options;
    const items = this.filtered(subjectKey, undefined, options.since).filter(
      (item) => !changedSince || item.updatedAt >= changedSince,
    );
    return this.countPeople(subjectKey, items).slice(0, options.limit);
  }

  async digest(subjectKey: string, since: Date): Promise<Omit<ActivityDigest, "topPeople">> {
    this.read(subjectKey);
    const newByKind: Partial<Record<ItemKind, number>> = {};
    const updatedByKind: Partial<Record<ItemKind, number>> = {};
    const threads = new Map<string, number>();
    for (const item of this.visibleItems(subjectKey)) {
      if (item.createdAt >= since) newByKind[item.kind] = (newByKind[item.kind] ?? 0) + 1;
      else if (item.updatedAt >= since) updatedByKind[item.kind] = (updatedByKind[item.kind] ?? 0) + 1;
      else continue;
      const thread = (item.title ?? "").replace(/^((re|fwd?):\s*)+/i, "").trim();
      if (thread) threads.set(thread, (threads.get(thread) ?? 0) + 1);
    }
    return {
      since,
      newByKind,
      updatedByKind,
      busiestThreads: [...threads.entries()]
        .map(([title, items]) => ({ title, items }))
        .sort((a, b) => b.items - a.items || a.title.localeCompare(b.title))
        .slice(0, 5),
    };
  }

  async remove(ownerId: string, id: string) {
    const item = this.items.get(id);
    if (!item || item.ownerId !== ownerId) return null;
    this.items.delete(id);
    this.links = this.links.filter((l) => l.from !== id && l.to !== id);
    return { affectedSubjects: [...new Set([ownerId, ...item.sharedWith])] };
  }

  private filtered(subjectKey: string, kinds?: ItemKind[], since?: Date, until?: Date): Item[] {
    return this.visibleItems(subjectKey).filter(
      (i) =>
        (!kinds || kinds.includes(i.kind)) &&
        (!since || i.occurredAt >= since) &&
        (!until || i.occurredAt <= until),
    );
  }

  private linksOf(subjectKey: string, id: string): ItemLink[] {
    const out: ItemLink[] = [];
    for (const link of this.links) {
      const otherId = link.from === id ? link.to : link.to === id ? link.from : null;
      let other = otherId ? this.items.get(otherId) : undefined;
      // As the Postgres store: an outgoing link whose target the viewer may not see names the viewer's own
      // item of that source and external id.
      if (other && link.from === id && !this.visible(subjectKey, other)) {
        const target = other;
        other = [...this.items.values()].find(
          (i) => i.ownerId === subjectKey && i.source === target.source && i.externalId === target.externalId,
        );
      }
      if (!other || !this.visible(subjectKey, other)) continue;
      out.push({
        direction: link.from === id ? "outgoing" : "incoming",
        kind: link.kind,
        item: summary(other),
      });
    }
    return out;
  }

  private countPeople(subjectKey: string, items: Item[]) {
    const counts = new Map<string, number>();
    for (const item of items) {
      for (const person of new Set(personsOf(item))) {
        if (person !== subjectKey) counts.set(person, (counts.get(person) ?? 0) + 1);
      }
    }
    return [...counts.entries()]
      .map(([person, items]) => ({ person, items }))
      .sort((a, b) => b.items - a.items || a.person.localeCompare(b.person));
  }
}

function personsOf(item: Item): string[] {
  return [...(item.author ? [item.author] : []), ...item.participants];
}

function summary(item: Item): ItemSummary {
  const { id, kind, source, externalId, title, author, occurredAt } = item;
  return { id, kind, source, externalId, title, author, occurredAt };
}

function snippet(body: string, term: string | undefined): string {
  const at = term ? Math.max(0, body.toLowerCase().indexOf(term)) : 0;
  return body.slice(Math.max(0, at - 80), at + 160);
}

function pick<T extends object>(source: T, shape: object): Partial<T> {
  return Object.fromEntries(Object.keys(shape).map((k) => [k, source[k as keyof T]])) as Partial<T>;
}
