/**
 * What GET /health reports besides the database: which search modes this service answers, and whether
 * (and which kind of) models write memories, so a client offers only what works.
 */
import { llmUnavailable } from "../agent/generator-source";
import { defaultSearchMode } from "../domain/search-modes";
import type { Services } from "./services";

export function capabilities(services: Pick<Services, "embedder" | "config">) {
  const { embedder, config } = services;
  // The configured model, never probed here: a provider call per health check would cost money and rate limit.
  return {
    embedder: embedder
      ? { status: "configured" as const, model: embedder.model }
      : { status: "not_configured" as const },
    search: {
      modes: embedder ? (["hybrid", "keyword", "semantic"] as const) : (["keyword"] as const),
      default: defaultSearchMode(embedder),
    },
    llm: {
      status: llmUnavailable(config.llm) === null ? ("configured" as const) : ("not_configured" as const),
      fake: config.llm.fake === true,
    },
  };
}
