/**
 * The worker, assembled: the HTTP API (with MCP at /mcp), inbound email, the daily sweep and its queue,
 * each handed its services by the composition root; and the MemoryAgent class with its production wiring.
 */

import { buildAgentDeps, buildServices, createWorkerApp } from "./composition";
import { consumeAuditBatch, consumeAuditDeadLetters } from "./cron/audit-consumer";
import { pruneAudit } from "./cron/audit-retention";
import { runSweep } from "./cron/cron-sweep-handler";
import { consumeSweepBatch } from "./cron/sweep-consumer";
import { MemoryAgent as MemoryAgentShell } from "./do/memory-agent";
import { receiveEmail } from "./email/inbound";
import type { Env } from "./env";

export class MemoryAgent extends MemoryAgentShell {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, buildAgentDeps(env));
  }
}

const app = createWorkerApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  email: (message, env, ctx) => receiveEmail(message, buildServices(env, ctx)),
  async scheduled(controller, env, _ctx) {
    const services = buildServices(env);
    await runSweep(services, controller);
    await pruneAudit(services);
  },
  // One consumer per queue, chosen by the queue's name (wrangler.toml).
  async queue(batch, env, _ctx) {
    const services = buildServices(env);
    switch (batch.queue) {
      case "unified-memory-audit":
        await consumeAuditBatch(batch, { store: services.auditStore, errors: services.errors });
        return;
      case "unified-memory-audit-dlq":
        await consumeAuditDeadLetters(batch, { store: services.auditStore, errors: services.errors });
        return;
      default:
        await consumeSweepBatch(batch, services.memoryAgents);
    }
  },
} satisfies ExportedHandler<Env, unknown>;
