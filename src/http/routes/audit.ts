/**
 * GET /audit (admin): the workspace's audit events, newest first, filtered by actor, subject, action and
 * time, cursor paginated; `?format=ndjson` exports every matching event as one JSON object a line.
 * GET /usage (admin): the usage ledger per subject, by estimated cost unless sorted otherwise.
 */
import { exportWorkspaceAudit, withItemTitles, workspaceAudit } from "../../app/audit";
import { workspaceUsage } from "../../app/usage";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";
import { definedOf } from "./me";

/** An export stops after this many events (page with since/until for more). */
export const MAX_EXPORT_EVENTS = 100_000;
const EXPORT_PAGE = 1000;

// The admin scope is checked by the operations, after an export's event has begun (so a refused export is
// recorded too).
export const auditRoutes = [
  route(op.workspaceAudit, async (c, { query: { format, ...query } }) => {
    const services = c.get("services");
    const caller = c.get("caller");
    const filter = definedOf(query);
    if (format === "json")
      return c.json(await withItemTitles(services, caller, await workspaceAudit(services, caller, filter)));
    // The first page is read before answering, so a bad cursor or a database that is down is a clean error.
    const first = await exportWorkspaceAudit(services, caller, { ...filter, limit: EXPORT_PAGE });
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        let page = first;
        let sent = 0;
        for (;;) {
          const lines = page.events.map((event) => `${ndjsonLine(event)}\n`).join("");
          if (lines) controller.enqueue(encoder.encode(lines));
          sent += page.events.length;
          if (!page.nextCursor || sent >= MAX_EXPORT_EVENTS) break;
          page = await workspaceAudit(services, caller, {
            ...filter,
            limit: EXPORT_PAGE,
            cursor: page.nextCursor,
          });
        }
        controller.close();
      },
    });
    return c.body(body, 200, { "Content-Type": "application/x-ndjson; charset=utf-8" });
  }),

  route(op.workspaceUsage, async (c, { query }) =>
    c.json(await workspaceUsage(c.get("services"), c.get("caller"), definedOf(query))),
  ),
];

/** One event as one line: JSON with the Unicode line breaks escaped, for tools that split on any of them. */
const ndjsonLine = (event: unknown): string =>
  JSON.stringify(event).replace(
    /[\u0085\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
