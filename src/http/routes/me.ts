/**
 * The caller's own account: DELETE /me erases everything of theirs (items, memory, versions, runs, Durable
 * Object state; their audit events are kept under a one-way hash); GET /me/audit lists who read their
 * memory and items; GET /me/usage what their memory's runs cost per day.
 */
import { Hono } from "hono";
import { myAudit } from "../../app/audit";
import { eraseMe } from "../../app/me";
import { myUsage } from "../../app/usage";
import { auditFilterOf, usageRangeOf } from "../audit-requests";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const meRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .delete("/", requireScope("items:write"), async (c) => {
    await eraseMe(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  })
  .get("/audit", requireScope("memory:read"), async (c) => {
    const { subject: _subject, ...filter } = auditFilterOf((name) => c.req.query(name));
    return c.json(await myAudit(c.get("services"), c.get("caller"), filter));
  })
  .get("/usage", requireScope("memory:read"), async (c) =>
    c.json(
      await myUsage(
        c.get("services"),
        c.get("caller"),
        usageRangeOf((name) => c.req.query(name)),
      ),
    ),
  );
