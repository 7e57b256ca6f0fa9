/**
 * npm run cloudflare:setup [-- --dry-run]: creates the Cloudflare resources wrangler.toml names that
 * `wrangler deploy` does not create itself: every queue and dead-letter queue. A KV binding without an id is
 * provisioned by `wrangler deploy` (wrangler's automatic provisioning); one with an id must already exist.
 * With --dry-run it prints the commands and changes nothing. Needs `npx wrangler login` (or
 * CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID) for a real run. A queue that already exists is reported, not
 * an error, so the script can be run again.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { readWranglerResources } from "./lib/wrangler-config";

const { values } = parseArgs({ options: { "dry-run": { type: "boolean", default: false } } });
const dryRun = values["dry-run"];
const config = readWranglerResources(readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8"));

const commands = [...config.queues, ...config.deadLetterQueues].map((queue) => ["queues", "create", queue]);
console.log(`${dryRun ? "Would run" : "Running"} for worker ${config.workerName}:`);
let failed = 0;
for (const args of commands) {
  console.log(`  npx wrangler ${args.join(" ")}`);
  if (dryRun) continue;
  const result = spawnSync("npx", ["wrangler", ...args], { encoding: "utf8" });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status === 0) console.log("    created");
  else if (/already (exists|taken)/i.test(output)) console.log("    already exists");
  else {
    failed++;
    console.error(output.trim().replace(/^/gm, "    "));
  }
}
for (const kv of config.kvNamespaces) {
  console.log(
    kv.id
      ? `  KV ${kv.binding}: namespace ${kv.id} (must exist in the account)`
      : `  KV ${kv.binding}: no id in wrangler.toml, so \`wrangler deploy\` creates the namespace on first deploy`,
  );
}
if (failed > 0) {
  console.error(`${failed} of ${commands.length} queues could not be created`);
  process.exit(1);
}
