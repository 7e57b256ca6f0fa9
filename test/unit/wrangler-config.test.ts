/**
 * The setup script's reading of wrangler.toml: every queue and dead-letter queue the file names, each once, and
 * the KV bindings; a line it cannot read is an error rather than a resource silently left out.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readWranglerResources } from "../../scripts/lib/wrangler-config";

const wranglerToml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");

describe("the resources wrangler.toml names", () => {
  it("are the project's five queues, their five dead-letter queues and the cache's KV binding", () => {
    expect(readWranglerResources(wranglerToml)).toEqual({
      workerName: "unified-memory",
      queues: [
        "unified-memory-sweep",
        "unified-memory-embed",
        "unified-memory-audit",
        "unified-memory-webhooks",
        "unified-memory-imports",
      ],
      deadLetterQueues: [
        "unified-memory-sweep-dlq",
        "unified-memory-embed-dlq",
        "unified-memory-audit-dlq",
        "unified-memory-webhooks-dlq",
        "unified-memory-imports-dlq",
      ],
      kvNamespaces: [{ binding: "MEMORY_CACHE" }],
    });
  });

  it("list a queue that is only consumed, and a dead-letter queue that is also consumed, once each", () => {
    const toml = `name = "w"
[[queues.consumers]]
queue = "only-consumed" # no producer here
dead_letter_queue = "dlq"
max_retries = 3
[[queues.consumers]]
queue = "dlq"
[[kv_namespaces]]
binding = "CACHE"
id = "0123abcd"
`;
    expect(readWranglerResources(toml)).toEqual({
      workerName: "w",
      queues: ["only-consumed"],
      deadLetterQueues: ["dlq"],
      kvNamespaces: [{ binding: "CACHE", id: "0123abcd" }],
    });
  });

  it("refuse a line they cannot read inside a table they read, naming its line", () => {
    const toml = `name = "w"\n[[queues.producers]]\nqueue = { name = "x" }\n`;
    expect(() => readWranglerResources(toml)).toThrow(/line 3/);
  });

  it("refuse a file without the worker's name", () => {
    expect(() => readWranglerResources(`[[kv_namespaces]]\nbinding = "C"\n`)).toThrow(/name/);
  });
});
