/**
 * The item operations, the same on every entry point (POST /items, MCP `remember`, inbound email; search
 * and reads over HTTP and MCP): the access rule is the store's, in SQL; here is what follows a write.
 */
import { AppError, notFound } from "../domain/errors";
import type { ItemInput } from "../domain/item-schema";
import { type SearchQuery, whileSearching } from "../domain/items";
import { isUuid } from "../domain/memory";
import { removeItemWithRedaction } from "../memory/deletion";
import { queryHashOf } from "./audit";
import { enqueueChangedItems, semanticIndexState } from "./embeddings";
import { searchIdentifiers } from "./people";
import type { Services } from "./services";

/**
 * Stores `inputs` (validated) as `owner`'s items, all or nothing; the material-change notices commit with
 * them, then the agents of everyone who gained material are told once each. An update sharing an item with
 * fewer targets redacts in the same write, which records its webhook events; they go to the queue after the answer.
 */
export async function ingestItems(services: Services, owner: string, inputs: ItemInput[]) {
  const { outcomes, affectedSubjects, redactedSubjects } = await services.items.upsert(owner, inputs);
  await services.memoryEvents.notifyAgents(affectedSubjects, "ingest");
  if (redactedSubjects.length > 0) await services.defer(services.webhookEvents.flush());
  // Off the response path; if the send fails, the daily backfill finds these items.
  await services.defer(enqueueChangedItems(services, outcomes));
  return outcomes;
}

/** What `subjectKey` may see that matches `query`. Audited: the query's hash (never its text) and the ids returned. */
export async function searchItems(
  services: Pick<Services, "items" | "audit" | "people">,
  subjectKey: string,
  { person, ...query }: SearchQuery & { person?: string[] },
  viewerEmail?: string,
) {
  const event = services.audit.begin("items.search", subjectKey, { queryHash: await queryHashOf(query.q) });
  if (query.since && query.until && query.since >= query.until) {
    throw new AppError("bad_request", '"since" must be before "until"');
  }
  // Person ids and names resolve through the viewer's people to identifiers (app/people.ts), while the
  // store starts what needs no filter.
  const involving = whileSearching(
    searchIdentifiers(services, { subjectKey, email: viewerEmail }, { person, people: query.people }),
  );
  const page = await services.items.search(subjectKey, { ...query, involving });
  event.itemIds = page.items.map((hit) => hit.id);
  return page;
}

/**
 * One item `subjectKey` may see, with its links both ways and whether it is indexed for semantic search
 * with the configured model ("not_configured" without one); not_found otherwise. Audited under the item's
 * owner as subject (whose data was read), or the reader's own when it was not found.
 */
export async function getItem(
  services: Pick<Services, "items" | "audit" | "embedder" | "embeddings" | "embedQueue">,
  subjectKey: string,
  id: string,
) {
  const event = services.audit.begin("item.read", subjectKey, { itemIds: isUuid(id) ? [id] : [] });
  const item = await services.items.get(subjectKey, id);
  if (!item) throw notFound("Item");
  event.subjectKey = item.ownerId;
  return { ...item, semanticIndex: await semanticIndexState(services, item.id) };
}

/**
 * The statements of the caller's current memory that cite the item (the caller may see it: getItem
 * answered), in the memory's order.
 */
export async function statementsCiting(
  services: Pick<Services, "memoryReader">,
  subjectKey: string,
  itemId: string,
): Promise<{ id: string; section: string; text: string }[]> {
  const statements = (await services.memoryReader.current(subjectKey))?.version?.statements ?? [];
  return statements
    .filter((s) => s.itemIds.includes(itemId))
    .map((s) => ({ id: s.id ?? "", section: s.section, text: s.text }));
}

/**
 * The owner deletes the item; a direct sharee leaves the share. Either way every memory citing what is no
 * longer visible is redacted in the same write. not_found when the caller cannot see it; forbidden when
 * they see it only through a team (leaving the team is what ends that access).
 */
export async function removeItem(
  services: Services,
  subjectKey: string,
  id: string,
): Promise<"deleted" | "left"> {
  const event = services.audit.begin("item.delete", subjectKey, { itemIds: isUuid(id) ? [id] : [] });
  const outcome = isUuid(id) ? await removeItemWithRedaction(services, subjectKey, id) : "not_found";
  if (outcome === "left") event.action = "item.unshare";
  if (outcome === "not_found") throw notFound("Item");
  if (outcome === "via_team") {
    throw new AppError(
      "forbidden",
      "This item is shared with a team of yours; leaving the team ends your access",
    );
  }
  return outcome;
}
