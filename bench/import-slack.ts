/**
 * npm run bench:import-slack [-- --messages 200000]
 *
 * Writes a synthetic Slack workspace export (users.json, channels.json, one folder per channel with a file
 * per day; threads, mentions, edits, joins and bot messages) to /tmp (never into the repo), then runs the real
 * CLI on it with --dry-run --json and reports records/s, CPU time and the child's peak RSS.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runCli } from "./lib/cli-run";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "200000" },
    dir: { type: "string", default: "/tmp/unified-memory-bench-slack" },
  },
});
const total = Number(values.messages);
const dir = values.dir!;
const CHANNELS = 20;
const USERS = 50;
const PER_DAY = 200;

function generate(): void {
  if (existsSync(dir)) rmSync(dir, { recursive: true });
  mkdirSync(dir, { recursive: true });
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `U${String(i).padStart(8, "0")}`,
    name: `person${i}`,
    real_name: `Person ${i}`,
    profile: { real_name: `Person ${i}`, email: `person${i}@example.com` },
  }));
  const channels = Array.from({ length: CHANNELS }, (_, c) => ({
    id: `C${String(c).padStart(8, "0")}`,
    name: `channel-${c}`,
    members: users.map((u) => u.id),
  }));
  writeFileSync(`${dir}/users.json`, JSON.stringify(users));
  writeFileSync(`${dir}/channels.json`, JSON.stringify(channels));
  const words = "plan budget launch review hiring roadmap metrics customer contract design".split(" ");
  const start = Date.UTC(2024, 0, 1) / 1000;
  let written = 0;
  for (let day = 0; written < total; day++) {
    for (const channel of channels) {
      if (written >= total) break;
      const date = new Date((start + day * 86_400) * 1000).toISOString().slice(0, 10);
      mkdirSync(`${dir}/${channel.name}`, { recursive: true });
      const messages = [];
      for (let n = 0; n < PER_DAY && written < total; n++, written++) {
        const ts = `${start + day * 86_400 + n * 60}.${String(n).padStart(6, "0")}`;
        const user = users[(written * 7) % USERS]!;
        const mention = users[(written * 13) % USERS]!;
        const text = `<@${mention.id}> ${words[written % words.length]} update ${written} &amp; <https://example.com/${written}|details>`;
        if (n % 50 === 1)
          messages.push({ type: "message", subtype: "channel_join", user: user.id, ts, text: "joined" });
        else if (n % 40 === 2)
          messages.push({ type: "message", subtype: "bot_message", username: "deploybot", ts, text });
        else if (n % 5 === 3)
          messages.push({
            type: "message",
            user: user.id,
            ts,
            text,
            thread_ts: `${start + day * 86_400}.000000`,
          });
        else messages.push({ type: "message", user: user.id, ts, text });
      }
      writeFileSync(`${dir}/${channel.name}/${date}.json`, JSON.stringify(messages));
    }
  }
}

const generateStarted = performance.now();
generate();
console.log(
  `slack export: ${dir}, ${total.toLocaleString("en")} messages in ${CHANNELS} channels (ready in ${((performance.now() - generateStarted) / 1000).toFixed(0)} s)`,
);
const r = await runCli(["slack", dir, "--dry-run", "--json"]);
const records = Number(r.summary.records);
console.log(
  `dry run: ${records.toLocaleString("en")} records, ${Number(r.summary.items).toLocaleString("en")} items, ` +
    `${Number(r.summary.skipped).toLocaleString("en")} skipped, ${(r.summary.errors as unknown[]).length} errors in ${r.seconds.toFixed(1)} s = ` +
    `${Math.round(records / r.seconds).toLocaleString("en")} records/s, peak RSS ${r.peakRssMb} MB; CPU ${r.cpuSeconds.toFixed(1)} s = ` +
    `${Math.round(records / Math.max(r.cpuSeconds, 0.01)).toLocaleString("en")} records per CPU-second`,
);
