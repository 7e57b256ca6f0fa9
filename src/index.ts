import { runSweep } from "./cron/sweep";
import type { Env } from "./env";
import { createApp } from "./http/app";

export { MemoryAgent } from "./do/memory-agent";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async scheduled(controller, env, _ctx) {
    await runSweep(env, controller);
  },
} satisfies ExportedHandler<Env>;
