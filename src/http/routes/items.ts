/** The workspace store's HTTP API: batch ingest, search, read and delete, all scoped to the caller. */
import { getItem, ingestItems, removeItem, searchItems, statementsCiting } from "../../app/items";
import * as op from "../../contract/operations";
import { parseIngestBody } from "../item-requests";
import { route } from "../operation-routes";

export const itemRoutes = [
  route(op.ingestItems, async (c, { body }) =>
    c.json({
      items: await ingestItems(c.get("services"), c.get("caller").subjectKey, parseIngestBody(body)),
    }),
  ),

  route(op.searchItems, async (c, { query: { kind, ...query } }) => {
    const caller = c.get("caller");
    return c.json(
      await searchItems(c.get("services"), caller.subjectKey, { ...query, kinds: kind }, caller.email),
    );
  }),

  route(op.getItem, async (c, { params }) => {
    const { subjectKey } = c.get("caller");
    const item = await getItem(c.get("services"), subjectKey, params.id);
    return c.json({ ...item, citedBy: await statementsCiting(c.get("services"), subjectKey, item.id) });
  }),

  // The owner deletes; a sharee leaves the share. Either is also where derived memories get redacted.
  route(op.deleteItem, async (c, { params }) => {
    await removeItem(c.get("services"), c.get("caller").subjectKey, params.id);
    return c.body(null, 204);
  }),
];
