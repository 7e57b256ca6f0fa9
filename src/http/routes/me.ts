/**
 * The caller's own account: DELETE /me erases everything of theirs (items, memory, versions, runs, Durable
 * Object state; their audit events are kept under a one-way hash); GET /me/audit lists who read their
 * memory and items; GET /me/usage what their memory's runs cost per day.
 */
import { myAudit, withItemTitles } from "../../app/audit";
import { eraseMe } from "../../app/me";
import { myUsage } from "../../app/usage";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";

export const meRoutes = [
  route(op.eraseMe, async (c) => {
    await eraseMe(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  }),

  route(op.myAudit, async (c, { query }) =>
    c.json(
      await withItemTitles(
        c.get("services"),
        c.get("caller"),
        await myAudit(c.get("services"), c.get("caller"), definedOf(query)),
      ),
    ),
  ),

  route(op.myUsage, async (c, { query }) =>
    c.json(await myUsage(c.get("services"), c.get("caller"), definedOf(query))),
  ),
];

/** The parsed query without its absent optional parameters (the operations take them as absent keys). */
export function definedOf<T extends Record<string, unknown>>(query: T) {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
