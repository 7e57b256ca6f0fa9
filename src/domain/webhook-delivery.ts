/**
 * How a webhook delivery is retried and recorded: attempts spread over about a day with growing delays
 * (the schedule the Standard Webhooks guidance suggests), a bounded record of what the receiver answered,
 * and the rule that disables an endpoint that failed every delivery for a day.
 */

/** Delay before each retry, in seconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all). */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;
/** The first attempt plus one per retry delay; after the last, the delivery is dead-lettered. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer the deliveries log keeps. */
export const WEBHOOK_RESPONSE_BYTES_KEPT = 1024;
/** An endpoint whose deliveries all failed for this long is disabled (the admin sees why). */
export const WEBHOOK_DISABLE_AFTER_MS = 24 * 60 * 60 * 1000;

/** Seconds to wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed; null: give up. */
export function webhookRetryDelaySeconds(attempt: number): number | null {
  return WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1] ?? null;
}

/** A 2xx is delivered; anything else (a redirect included: deliveries follow none) is a failure. */
export function webhookDelivered(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The start of a receiver's answer, at most WEBHOOK_RESPONSE_BYTES_KEPT bytes of UTF-8, cut at a
 * character boundary, with NUL and lone surrogates replaced so the log can always be written.
 */
export function keptResponseBody(bytes: Uint8Array): string {
  const kept = bytes.subarray(0, WEBHOOK_RESPONSE_BYTES_KEPT);
  // A cut inside a multi-byte character leaves a partial sequence at the end: drop it.
  let end = kept.length;
  if (bytes.length > kept.length) {
    let back = end - 1;
    while (back >= 0 && back > end - 4 && ((kept[back] ?? 0) & 0xc0) === 0x80) back--;
    if (back >= 0 && ((kept[back] ?? 0) & 0xc0) === 0xc0) end = back;
  }
  return new TextDecoder().decode(kept.subarray(0, end)).replaceAll("\u0000", "\uFFFD").toWellFormed();
}

/**
 * Whether an endpoint is to be disabled after a failed delivery: it has failed since `failingSince` and
 * delivered nothing after it, for WEBHOOK_DISABLE_AFTER_MS or longer.
 */
export function webhookShouldDisable(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= WEBHOOK_DISABLE_AFTER_MS;
}

/** How long a claim on an outbox event or a delivery lasts: a sender that died leaves it to another after this. */
export const WEBHOOK_CLAIM_MS = WEBHOOK_TIMEOUT_MS + 20_000;
/**
 * A delivery message that arrives this much before its delivery's next attempt is due still sends it (clocks
 * of two invocations differ a little); one arriving earlier is a duplicate, since the message that scheduled
 * the attempt carries it.
 */
export const WEBHOOK_DUE_TOLERANCE_MS = 1_000;
/** The outbox's attempts to hand an event to the queue: 30 s doubling to at most an hour, about two days in all. */
export const WEBHOOK_OUTBOX_MAX_ATTEMPTS = 50;

/** Seconds before the outbox tries again after its `attempts`-th refused hand-over; null: give up. */
export function outboxRetryDelaySeconds(attempts: number): number | null {
  if (attempts >= WEBHOOK_OUTBOX_MAX_ATTEMPTS) return null;
  return Math.min(30 * 2 ** Math.max(0, attempts - 1), 3600);
}
