/**
 * The answerer as a model: any `provider:model` through the service's own LLM adapters (official SDKs,
 * base URLs honoured, so a local OpenAI-compatible server works). Each judgement is one short call that
 * must start with YES or NO (or the answer itself); tokens are counted per model.
 */
import type { LlmClient, ModelRef } from "../src/domain/llm";
import { createLlmClient } from "../src/llm/create-llm-client";
import type { Answerer } from "./lib/answerer";

const SYSTEM =
  "You evaluate an AI assistant's memory of a person. Be strict and literal: only what the text says counts.";

export function llmAnswerer(
  ref: ModelRef,
  llm: { anthropic: { apiKey?: string; baseUrl?: string }; openai: { apiKey?: string; baseUrl?: string } },
): Answerer {
  const client: LlmClient = createLlmClient(ref, { ...llm, timeoutMs: 120_000 });
  const usage: Record<string, { inputTokens: number; outputTokens: number; calls: number }> = {};
  const ask = async (prompt: string): Promise<string> => {
    const reply = await client.complete({
      system: SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      maxTokens: 300,
    });
    const u = usage[client.model] ?? { inputTokens: 0, outputTokens: 0, calls: 0 };
    usage[client.model] = u;
    u.inputTokens += reply.usage.inputTokens;
    u.outputTokens += reply.usage.outputTokens;
    u.calls++;
    return reply.content
      .flatMap((b) => (b.type === "text" ? [b.text] : []))
      .join("")
      .trim();
  };
  const memory = (statements: string[]) =>
    statements.length === 0 ? "(the memory is empty)" : statements.map((s) => `- ${s}`).join("\n");
  const yes = (answer: string) => /^\W*yes\b/i.test(answer);
  return {
    name: client.model,
    async statesFact(statements, fact) {
      return yes(
        await ask(
          `Memory:\n${memory(statements)}\n\nDoes this memory currently state the following? "${fact.fact}"\nA statement that says it changed or no longer holds does not count. Answer YES or NO on the first line, then quote the statement.`,
        ),
      );
    },
    async supports(statement, cited) {
      const items = cited
        .filter((c) => c.visible)
        .map((c) => `<item title="${c.title.replace(/"/g, "'")}">\n${c.body}\n</item>`)
        .join("\n");
      if (items === "") return false;
      return yes(
        await ask(
          `Items:\n${items}\n\nStatement: "${statement}"\n\nDo these items support every part of the statement? Answer YES or NO on the first line, then explain in one sentence.`,
        ),
      );
    },
    async answer(statements, question) {
      const answer = await ask(
        `Memory:\n${memory(statements)}\n\nAnswer the question using only this memory, in one short sentence. If the memory does not say, answer UNKNOWN.\nQuestion: ${question}`,
      );
      return /^\W*unknown\b/i.test(answer) ? "" : answer;
    },
    usage: () => structuredClone(usage),
  };
}
