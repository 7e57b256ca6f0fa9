/**
 * POST /me/ingest-address [{ allowedSenders }] → { address, allowedSenders }: the caller's private
 * inbound-email address and the envelope senders it accepts mail from (given in the body, on a new address
 * or to change an existing one's); DELETE revokes it.
 */
import { issueIngestAddress, revokeIngestAddress } from "../../app/me";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";
import { validBody } from "../validation";

export const ingestAddressRoutes = [
  route(op.issueIngestAddress, async (c, { body }) => {
    const { allowedSenders } = validBody(op.issueIngestAddress.body.schema, body, { key: "problems" });
    const issued = await issueIngestAddress(c.get("services"), c.get("caller"), allowedSenders);
    return c.json(
      { address: issued.address, allowedSenders: issued.allowedSenders },
      issued.created ? 201 : 200,
    );
  }),

  route(op.revokeIngestAddress, async (c) => {
    await revokeIngestAddress(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  }),
];
