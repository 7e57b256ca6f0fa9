/**
 * POST /me/ingest-address [{ allowedSenders }] → { address, allowedSenders }: the caller's private
 * inbound-email address and the envelope senders it accepts mail from (given in the body, on a new address
 * or to change an existing one's); DELETE revokes it.
 */
import { Hono } from "hono";
import { issueIngestAddress, revokeIngestAddress } from "../../app/me";
import { AppError } from "../../domain/errors";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";
import { ingestAddressBodySchema } from "../ingest-address-schema";
import { readJsonBody } from "../read-body";

const MAX_BODY_BYTES = 64 * 1024;

export const ingestAddressRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .post("/", requireScope("items:write"), async (c) => {
    const raw = c.req.raw.body === null ? {} : await readJsonBody(c.req.raw, MAX_BODY_BYTES);
    const body = ingestAddressBodySchema.safeParse(raw);
    if (!body.success) {
      const issue = body.error.issues[0]!;
      throw new AppError("validation_failed", `${issue.path.join(".") || "body"} ${issue.message}`, {
        details: { problems: body.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
      });
    }
    const issued = await issueIngestAddress(c.get("services"), c.get("caller"), body.data.allowedSenders);
    return c.json(
      { address: issued.address, allowedSenders: issued.allowedSenders },
      issued.created ? 201 : 200,
    );
  })
  .delete("/", requireScope("items:write"), async (c) => {
    await revokeIngestAddress(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  });
