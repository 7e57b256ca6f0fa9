/**
 * `wrangler dev --local` without the runtime inspector, for benchmarks (scripts/lib/stack.ts, `inspector:
 * false`). The CLI always attaches wrangler's inspector proxy to the runtime and turns on its network events,
 * so every subrequest's and response's body is copied to wrangler's Node.js process: a deployed worker
 * carries none of that. This starts the same worker, configuration, bindings, Durable Objects, queues and
 * cron triggers through wrangler's own API with the inspector off.
 *
 *   node scripts/lib/wrangler-headless.mjs '<json: {port, ip, config?, main?, persistTo?, vars}>'
 *
 * Prints "Ready on <url>" once the worker answers, as the CLI does; stops on SIGINT or SIGTERM.
 */
import { unstable_startWorker } from "wrangler";

const options = JSON.parse(process.argv[2] ?? "{}");
const bindings = Object.fromEntries(
  Object.entries(options.vars ?? {}).map(([name, value]) => [name, { type: "plain_text", value }]),
);
const worker = await unstable_startWorker({
  config: options.config ?? "wrangler.toml",
  ...(options.main ? { entrypoint: options.main } : {}),
  bindings,
  dev: {
    remote: false,
    inspector: false,
    watch: false,
    testScheduled: true,
    ...(options.persistTo ? { persist: options.persistTo } : {}),
    server: { hostname: options.ip, port: options.port },
  },
});
await worker.ready;
console.log(`Ready on ${await worker.url}`);

const stop = async () => {
  await worker.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
