/** The request body of POST …/memory/statements/:id/dismiss, shared by the route and the OpenAPI document. */
import { z } from "zod";
import { MAX_DISMISSAL_REASON_CHARS } from "../app/statements";
import { textProblem } from "../domain/safe-text";

export const dismissBodySchema = z.object({
  reason: z
    .string()
    .trim()
    .max(MAX_DISMISSAL_REASON_CHARS)
    .refine((v) => textProblem(v) === null, "must be valid text")
    .optional()
    .describe("Why the statement is wrong, in the subject's words (later runs are shown it)"),
});
