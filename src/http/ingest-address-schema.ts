/** POST /me/ingest-address's body: validated by routes/ingest-address.ts and documented by openapi.ts. */
import { z } from "zod";
import { MAX_ALLOWED_SENDERS } from "../domain/ingest-addresses";

export const ingestAddressBodySchema = z.strictObject({
  allowedSenders: z
    .array(z.string())
    .max(MAX_ALLOWED_SENDERS)
    .optional()
    .describe(
      "Envelope senders whose mail the address accepts: addresses (ada@example.com) or whole domains " +
        "(@example.com), compared without case. Given, it replaces the address's list (new or existing); " +
        "omitted, a new address accepts only the token's email claim (none without one) and an existing " +
        "one keeps its list",
    ),
});
