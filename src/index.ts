import { buildServices } from "./composition";
import { runSweep } from "./cron/cron-sweep-handler";
import { consumeSweepBatch } from "./cron/sweep-consumer";
import { receiveEmail } from "./email/inbound";
import type { Env } from "./env";
import { createApp } from "./http/app";
import type { SweepMessage } from "./memory/sweep-fanout";

export { MemoryAgent } from "./do/memory-agent";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  email: (message, env, ctx) => receiveEmail(message, buildServices(env, ctx)),
  async scheduled(controller, env, _ctx) {
    await runSweep(env, controller);
  },
  async queue(batch, env, _ctx) {
    await consumeSweepBatch(batch, buildServices(env).memoryAgents);
  },
} satisfies ExportedHandler<Env, SweepMessage>;
