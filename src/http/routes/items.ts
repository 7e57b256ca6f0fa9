/** The workspace store's HTTP API: batch ingest, search, read and delete, all scoped to the caller. */
import { Hono } from "hono";
import { AppError, notFound } from "../../domain/errors";
import { isUuid } from "../../domain/memory";
import { removeItemWithRedaction } from "../../memory/deletion";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";
import { MAX_BODY_BYTES, parseIngestBody, parseSearchParams } from "../item-schemas";
import { readJsonBody } from "../read-body";

export const itemsRoutes = new Hono<AppEnv>()
  .use(authenticate())

  .post("/", requireScope("items:write"), async (c) => {
    const inputs = parseIngestBody(await readJsonBody(c.req.raw, MAX_BODY_BYTES));
    const { items, memoryEvents } = c.get("services");
    const { outcomes, affectedSubjects } = await items.upsert(c.get("caller").subjectKey, inputs);
    await memoryEvents.notifyAgents(affectedSubjects, "ingest");
    return c.json({ items: outcomes });
  })

  .get("/", requireScope("memory:read"), async (c) => {
    const query = parseSearchParams((name) => c.req.queries(name));
    return c.json(await c.get("services").items.search(c.get("caller").subjectKey, query));
  })

  .get("/:id", requireScope("memory:read"), async (c) => {
    const item = await c.get("services").items.get(c.get("caller").subjectKey, c.req.param("id"));
    if (!item) throw notFound("Item");
    return c.json(item);
  })

  // The owner deletes; a sharee leaves the share. Either is also where derived memories get redacted.
  .delete("/:id", requireScope("items:write"), async (c) => {
    const id = c.req.param("id");
    const outcome = isUuid(id)
      ? await removeItemWithRedaction(c.get("services"), c.get("caller").subjectKey, id)
      : "not_found";
    if (outcome === "not_found") throw notFound("Item");
    if (outcome === "via_team") {
      throw new AppError(
        "forbidden",
        "This item is shared with a team of yours; leaving the team ends your access",
      );
    }
    return c.body(null, 204);
  });
