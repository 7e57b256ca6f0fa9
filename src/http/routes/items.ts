/** The workspace store's HTTP API: batch ingest, search, read and delete, all scoped to the caller. */
import { Hono } from "hono";
import { getItem, ingestItems, removeItem, searchItems } from "../../app/items";
import { MAX_BODY_BYTES } from "../../domain/item-schema";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";
import { parseIngestBody, parseSearchParams } from "../item-requests";
import { readJsonBody } from "../read-body";

export const itemsRoutes = new Hono<AppEnv>()
  .use(authenticate())

  .post("/", requireScope("items:write"), async (c) => {
    const inputs = parseIngestBody(await readJsonBody(c.req.raw, MAX_BODY_BYTES));
    return c.json({ items: await ingestItems(c.get("services"), c.get("caller").subjectKey, inputs) });
  })

  .get("/", requireScope("memory:read"), async (c) => {
    const query = parseSearchParams((name) => c.req.queries(name));
    return c.json(await searchItems(c.get("services"), c.get("caller").subjectKey, query));
  })

  .get("/:id", requireScope("memory:read"), async (c) =>
    c.json(await getItem(c.get("services"), c.get("caller").subjectKey, c.req.param("id"))),
  )

  // The owner deletes; a sharee leaves the share. Either is also where derived memories get redacted.
  .delete("/:id", requireScope("items:write"), async (c) => {
    await removeItem(c.get("services"), c.get("caller").subjectKey, c.req.param("id"));
    return c.body(null, 204);
  });
