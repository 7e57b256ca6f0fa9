import { runSweep } from "./cron/sweep";
import type { Env } from "./env";
import { createApp } from "./http/app";

export { MemoryAgent } from "./do/memory-agent";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async scheduled(controller, env) {
    await runSweep(env, controller);
  },
} satisfies ExportedHandler<Env>;
