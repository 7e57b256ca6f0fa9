/**
 * The one decision of whether memories can be generated with these settings: a generator model, a judge
 * model, and for each an API key or a base URL (a keyless base URL is a local compatible server).
 */
import type { Clock } from "../domain/clock";
import type { GeneratorSource } from "../domain/generation";
import type { ItemStore } from "../domain/items";
import type { LlmClient, LlmSettings, ModelRef } from "../domain/llm";
import type { PeopleStore } from "../domain/people-store";
import type { Budgets } from "./budget";
import { createGenerator } from "./generator";
import type { RelatedEvidenceFinder } from "./related-evidence";
import type { SalvagePolicy } from "./salvage";

export interface GenerationSettings {
  llm: LlmSettings;
  budgets: Budgets;
  salvage: SalvagePolicy;
}

export interface GenerationDeps {
  items: ItemStore;
  clock: Clock;
  /** The client of one configured model (the LLM adapters, wired by the composition root). */
  llmClient(ref: ModelRef): LlmClient;
  /** Which changed items touch a carried statement (default: the generator's, over the item graph). */
  related?: RelatedEvidenceFinder;
  /** What the subject's items say about people (research tools and statements speak of persons). */
  people?: PeopleStore;
}

/** Why no memory can be generated with these settings (null: the models are configured). */
export function llmUnavailable(llm: GenerationSettings["llm"]): string | null {
  const { generator, judge } = llm;
  if (!generator || !judge) return "No LLM is configured (GENERATOR_MODEL), so no memory can be generated.";
  for (const ref of [generator, judge]) {
    const provider = llm[ref.provider];
    if (!provider.apiKey && !provider.baseUrl) {
      const setting = ref.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
      return `No API key for ${ref.provider}: set ${setting} (or a base URL for a compatible server).`;
    }
  }
  return null;
}

export function generatorSource(settings: GenerationSettings, deps: GenerationDeps): GeneratorSource {
  const { llm, budgets, salvage } = settings;
  const { generator, judge } = llm;
  const unavailable = llmUnavailable(llm);
  if (unavailable || !generator || !judge) {
    return { kind: "unavailable", code: "llm_not_configured", message: unavailable ?? "" };
  }
  return {
    kind: "ready",
    generator: createGenerator({
      items: deps.items,
      generator: deps.llmClient(generator),
      judge: deps.llmClient(judge),
      clock: deps.clock,
      budgets,
      salvage,
      related: deps.related,
      ...(deps.people ? { people: deps.people } : {}),
    }),
  };
}
