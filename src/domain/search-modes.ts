/**
 * Which search a query gets, decided once for every caller (GET /items, MCP, the research agent): the
 * requested mode, else hybrid when an embedder is configured, else keyword. Hybrid and semantic searches
 * embed the query (purpose "query") and hand the store the vector still on its way, so the keyword channel
 * runs during the embedder's round trip; the store fuses the channels.
 * Without an embedder a semantic search is refused (semantic_search_unavailable); a hybrid search whose
 * query cannot be embedded (the provider is down or limiting) is answered by its keyword channel alone,
 * and a semantic one fails as retryable (embedding_unavailable).
 */
import { type Embedder, EmbeddingError } from "./embeddings";
import { AppError } from "./errors";
import { type ItemStore, type SearchMode, type SearchQuery, whileSearching } from "./items";

export function defaultSearchMode(embedder: Embedder | null): SearchMode {
  return embedder ? "hybrid" : "keyword";
}

/** The store, with search resolved as above; every other method is the store's. */
export function withQueryEmbeddings(
  store: ItemStore,
  embedder: Embedder | null,
  onEmbeddingFailed: (error: EmbeddingError) => void = () => {},
): ItemStore {
  return {
    ...store,
    async search(subjectKey, query) {
      return store.search(subjectKey, await resolveSearch(query, embedder, onEmbeddingFailed));
    },
  };
}

async function resolveSearch(
  query: SearchQuery,
  embedder: Embedder | null,
  onEmbeddingFailed: (error: EmbeddingError) => void,
): Promise<SearchQuery> {
  const mode = query.mode ?? defaultSearchMode(embedder);
  if (mode === "semantic" && !embedder) {
    throw new AppError(
      "semantic_search_unavailable",
      "Semantic search needs an embedding model (EMBEDDING_MODEL); this service is keyword-only",
    );
  }
  const q = query.q?.trim();
  if (mode === "keyword" || !embedder || !q) return { ...query, mode, embedding: undefined };
  const embedding = whileSearching(
    embedder.embed([q], "query").then(
      ([vector]) => ({ model: embedder.model, vector: vector! }),
      (error: unknown) => {
        if (!(error instanceof EmbeddingError)) throw error;
        onEmbeddingFailed(error);
        if (mode === "hybrid") return undefined;
        throw new AppError(
          "embedding_unavailable",
          "The embedding model is not answering; try again shortly",
          {
            retryable: true,
            retryAfterSeconds: error.retryAfterSeconds ?? 5,
          },
        );
      },
    ),
  );
  return { ...query, mode, embedding };
}
