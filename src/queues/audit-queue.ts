/**
 * The audit trail's queue over a Cloudflare Queue binding: one message per request (its events, usually
 * one). Without the binding, the sink refuses, and the events are written to the store directly.
 */
import type { AuditEvent, AuditSink } from "../domain/audit";

export interface AuditMessage {
  events: AuditEvent[];
}

export function createAuditQueue(queue: Queue<AuditMessage> | undefined): AuditSink {
  return {
    async send(events) {
      if (!queue) throw new Error("no AUDIT_QUEUE binding");
      await queue.send({ events }, { contentType: "json" });
    },
  };
}
