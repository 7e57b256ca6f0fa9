/**
 * Runs the fake LLM server by hand (for `npm run dev` without an API key, and the benchmarks):
 *   npm run fake-llm            (FAKE_LLM_PORT, default 8790; FAKE_LLM_HOST, default 127.0.0.1)
 * and prints the .dev.vars lines that point the service at it.
 */
import { startFakeLlm, workerVarsFor } from "../test/support/node/fake-llm/server";

const port = Number(process.env.FAKE_LLM_PORT ?? 8790);
const host = process.env.FAKE_LLM_HOST ?? "127.0.0.1";

const fake = await startFakeLlm({ port, host });
console.log(`Fake LLM listening on ${fake.url}
  Anthropic Messages:       POST ${fake.anthropicBaseUrl}/v1/messages
  OpenAI Chat Completions:  POST ${fake.openaiBaseUrl}/chat/completions
  OpenAI Embeddings:        POST ${fake.openaiBaseUrl}/embeddings
  Control API:              ${fake.url}/__control (scripts, faults, requests, reset)

Put these lines in .dev.vars to use it:
${Object.entries(workerVarsFor(fake))
  .map(([key, value]) => `${key}=${value}`)
  .join("\n")}
`);

const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
