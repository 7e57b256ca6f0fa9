/**
 * The worker, assembled: the HTTP API (with MCP at /mcp), inbound email, the daily sweep and its queue,
 * each handed its services by the composition root; and the MemoryAgent class with its production wiring.
 */
import { buildAgentDeps, buildServices, createWorkerApp } from "./composition";
import { runSweep } from "./cron/cron-sweep-handler";
import { consumeSweepBatch } from "./cron/sweep-consumer";
import { MemoryAgent as MemoryAgentShell } from "./do/memory-agent";
import { receiveEmail } from "./email/inbound";
import type { Env } from "./env";
import type { SweepMessage } from "./memory/sweep-fanout";

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
    await runSweep(buildServices(env), controller);
  },
  async queue(batch, env, _ctx) {
    await consumeSweepBatch(batch, buildServices(env).memoryAgents);
  },
} satisfies ExportedHandler<Env, SweepMessage>;
