/** The /items routes' requests: the ingest body's envelope and GET /items's query parameters. */
import { parseItemBatch, searchSchema } from "../app/item-input";
import { AppError } from "../domain/errors";
import type { ItemInput } from "../domain/item-schema";
import type { SearchQuery } from "../domain/items";

/** `{ items: [...] }`, each item validated (400 for another shape; 413 / 422 from the batch's checks). */
export function parseIngestBody(body: unknown): ItemInput[] {
  if (typeof body !== "object" || body === null || !Array.isArray((body as { items?: unknown }).items)) {
    throw new AppError("bad_request", 'The body must be a JSON object { "items": [ ... ] }');
  }
  return parseItemBatch((body as { items: unknown[] }).items);
}

const listParam = (values: string[]) =>
  values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** Parses GET /items query parameters (kind and people may repeat or be comma-separated); 400 if bad. */
export function parseSearchParams(query: (name: string) => string[] | undefined): SearchQuery {
  const one = (name: string) => query(name)?.at(-1);
  const result = searchSchema.safeParse({
    q: one("q"),
    mode: one("mode"),
    kinds: listParam(query("kind") ?? []),
    since: one("since"),
    until: one("until"),
    people: listParam(query("people") ?? []),
    limit: one("limit"),
    cursor: one("cursor"),
  });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const param = issue.path[0] === "kinds" ? "kind" : String(issue.path[0] ?? "query");
    throw new AppError("bad_request", `Query parameter "${param}" ${issue.message}`);
  }
  return result.data;
}
