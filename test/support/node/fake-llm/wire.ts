/** What both providers' wire adapters share: errors, deterministic ids, usage. */
import { createHash } from "node:crypto";
import type { FakeReply, NeutralRequest } from "./protocol";
import { estimateTokens, inputTokens } from "./text";

export interface WireError {
  status: number;
  message: string;
  retryAfterSeconds?: number;
}

export const isWireError = (value: unknown): value is WireError =>
  typeof value === "object" && value !== null && "status" in value && "message" in value;

/** Ids derived from the request body, so the same request always gets the same reply, ids included. */
export interface Ids {
  make(prefix: string, index: number): string;
}

export function idsFor(bodyText: string): Ids {
  return {
    make: (prefix, index) =>
      `${prefix}${createHash("sha256").update(`${bodyText}\u0000${index}`).digest("hex").slice(0, 24)}`,
  };
}

export function replyUsage(
  reply: FakeReply,
  request: NeutralRequest,
): { inputTokens: number; outputTokens: number } {
  const outputChars =
    (reply.text ?? "").length +
    (reply.toolCalls ?? []).reduce(
      (n, c) => n + c.name.length + (c.rawArguments ?? JSON.stringify(c.input ?? {})).length,
      0,
    );
  return {
    inputTokens: reply.usage?.inputTokens ?? inputTokens(request),
    outputTokens: reply.usage?.outputTokens ?? estimateTokens(outputChars),
  };
}
