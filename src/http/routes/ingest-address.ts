/** POST /me/ingest-address → { address } (the caller's private inbound-email address); DELETE revokes it. */
import { Hono } from "hono";
import { notFound } from "../../domain/errors";
import { newIngestToken } from "../../email/ingest-address";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const ingestAddressRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .post("/", requireScope("items:write"), async (c) => {
    const { ingestAddresses, config } = c.get("services");
    const { token, created } = await ingestAddresses.issue(c.get("caller").subjectKey, newIngestToken());
    return c.json({ address: `${token}@${config.inboundEmail.domain}` }, created ? 201 : 200);
  })
  .delete("/", requireScope("items:write"), async (c) => {
    if (!(await c.get("services").ingestAddresses.revoke(c.get("caller").subjectKey)))
      throw notFound("Ingest address");
    return c.body(null, 204);
  });
