/** POST /me/ingest-address → { address } (the caller's private inbound-email address); DELETE revokes it. */
import { Hono } from "hono";
import { issueIngestAddress, revokeIngestAddress } from "../../app/me";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const ingestAddressRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .post("/", requireScope("items:write"), async (c) => {
    const { address, created } = await issueIngestAddress(c.get("services"), c.get("caller"));
    return c.json({ address }, created ? 201 : 200);
  })
  .delete("/", requireScope("items:write"), async (c) => {
    await revokeIngestAddress(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  });
