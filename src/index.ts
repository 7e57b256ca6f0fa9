/**
 * The worker, assembled: the HTTP API (with MCP at /mcp), inbound email, the daily sweep and its queue,
 * each handed its services by the composition root; and the MemoryAgent class with its production wiring.
 */
import { buildAgentDeps, buildServices, createWorkerApp } from "./composition";
import { consumeAuditBatch, consumeAuditDeadLetters } from "./cron/audit-consumer";
import { pruneAudit } from "./cron/audit-retention";
import { runModelBackfillStart, runPeopleBackfill, runSweep } from "./cron/cron-sweep-handler";
import { consumeEmbedBatch } from "./cron/embed-consumer";
import { consumeImportBatch, consumeImportDeadLetters } from "./cron/import-consumer";
import { consumeSweepBatch } from "./cron/sweep-consumer";
import { consumeWebhookBatch, consumeWebhookDeadLetters } from "./cron/webhook-consumer";
import { flushWebhookOutbox, WEBHOOK_OUTBOX_CRON } from "./cron/webhook-outbox-cron";
import { MemoryAgent as MemoryAgentShell } from "./do/memory-agent";
import { receiveEmail } from "./email/inbound";
import type { Env } from "./env";
import { logLine } from "./log";

export class MemoryAgent extends MemoryAgentShell {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, buildAgentDeps(env));
  }
}

const app = createWorkerApp();
/** The embedding settings this isolate has started (or seen) the backfill of: checked on its first request. */
let embeddingSettingsSeen: string | undefined;

export default {
  fetch(request, env, ctx) {
    const settings = env.EMBEDDING_MODEL
      ? `${env.EMBEDDING_MODEL} ${env.EMBEDDING_DIMENSIONS ?? ""}`
      : undefined;
    if (settings && settings !== embeddingSettingsSeen) {
      // A model just configured (or changed): its backfill starts now, off the response path.
      embeddingSettingsSeen = settings;
      // Settings that do not build are the request's to report, not this.
      const start = Promise.resolve().then(() => runModelBackfillStart(buildServices(env, ctx)));
      ctx.waitUntil(start.catch(() => {}));
    }
    return app.fetch(request, env, ctx);
  },
  email: (message, env, ctx) => receiveEmail(message, buildServices(env, ctx)),
  async scheduled(controller, env, _ctx) {
    const services = buildServices(env);
    // Every few minutes the webhooks' outbox and a bounded people backfill; daily the sweep and the audit
    // trail's retention too.
    if (controller.cron !== WEBHOOK_OUTBOX_CRON) {
      await runSweep(services, controller);
      await pruneAudit(services);
    }
    await flushWebhookOutbox(services);
    await runPeopleBackfill(services);
  },
  // One consumer per queue, chosen by the queue's name (wrangler.toml [[queues.consumers]]).
  async queue(batch, env, _ctx) {
    const services = buildServices(env);
    switch (batch.queue) {
      case QUEUES.sweep:
        await consumeSweepBatch(batch, services.memoryAgents);
        return;
      case QUEUES.embed:
        await consumeEmbedBatch(batch, services);
        return;
      case QUEUES.audit:
        await consumeAuditBatch(batch, { store: services.auditStore, errors: services.errors });
        return;
      case QUEUES.auditDeadLetters:
        await consumeAuditDeadLetters(batch, { store: services.auditStore, errors: services.errors });
        return;
      case QUEUES.webhooks:
        if (!env.WEBHOOK_QUEUE) throw new Error("no WEBHOOK_QUEUE binding for its own consumer");
        await consumeWebhookBatch(batch, {
          store: services.webhooks,
          queue: env.WEBHOOK_QUEUE,
          clock: services.clock,
          allowLocal: services.config.webhooks.allowLocal,
          logFields: services.errors.logFields,
        });
        return;
      case QUEUES.webhookDeadLetters:
        consumeWebhookDeadLetters(batch);
        return;
      case QUEUES.imports:
        await consumeImportBatch(batch, services);
        return;
      case QUEUES.importDeadLetters:
        await consumeImportDeadLetters(batch, services);
        return;
      default:
        // A queue bound to this worker without a consumer here: retrying cannot help, so it is left to
        // its dead-letter queue and logged.
        logLine("error", "queue_unknown", { queue: batch.queue });
        batch.retryAll();
    }
  },
} satisfies ExportedHandler<Env, unknown>;

/** The queue names of wrangler.toml's consumers. */
const QUEUES = {
  sweep: "unified-memory-sweep",
  embed: "unified-memory-embed",
  audit: "unified-memory-audit",
  auditDeadLetters: "unified-memory-audit-dlq",
  webhooks: "unified-memory-webhooks",
  webhookDeadLetters: "unified-memory-webhooks-dlq",
  imports: "unified-memory-imports",
  importDeadLetters: "unified-memory-imports-dlq",
} as const;
