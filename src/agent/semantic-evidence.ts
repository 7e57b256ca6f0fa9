/**
 * The related-evidence check by meaning (with an embedder): a carried statement is related to a changed
 * item when one of the item's chunks is near the statement's text, so a newer item that contradicts a
 * statement without replying to, mentioning or sharing a thread or a person with its cited items is still
 * shown to the judge next to it.
 *
 * One embedding call for every carried statement (purpose "query": a statement asks which passages speak
 * of it) and one read for all of them (NearItems, over the changed items' stored chunks of the configured
 * model). An item not embedded yet (its queue message not consumed) has no chunks and is not found this
 * way. A failure of the embedder or of the read answers nothing (the other finders still answer) and is
 * told to `onFailure` once; it is never retried here: the next refresh asks again.
 */
import type { Embedder } from "../domain/embeddings";
import type { NearItem, NearItems } from "../domain/item-embedding";
import { bestRelations, RELATED_LIMITS, type RelatedEvidenceFinder, type Relation } from "./related-evidence";

/**
 * The least cosine similarity between a statement and a changed item's best chunk for the two to be
 * related. A false relation costs one more statement in the judge's message (bounded by RELATED_LIMITS);
 * a missed one keeps a superseded fact. Measured with the fake LLM's hashed-word embeddings (near means
 * sharing words): "The Kestrel cut-over is on 3 March" against an item saying it moved to 10 March
 * scores about 0.5, against one sharing only "Kestrel" 0.25, against unrelated items -0.16 to 0.15 (hash
 * collisions). Models of sentences (OpenAI's text-embedding-3) put unrelated sentences around 0.1-0.3 and
 * related ones higher. A weak model of averaged word vectors separates nothing this way (unrelated
 * workplace sentences reach 0.65, the moved date 0.54): with it, the relation costs judge tokens, bounded.
 */
export const SEMANTIC_MIN_SIMILARITY = 0.4;

export interface SemanticEvidenceDeps {
  embedder: Embedder;
  chunks: NearItems;
  /** Told of a failed embedding call or read; the finder then answers nothing for that run. */
  onFailure(error: unknown): void;
}

export function semanticEvidenceFinder(deps: SemanticEvidenceDeps): RelatedEvidenceFinder {
  return {
    async findRelated({ subjectKey, statements, changed }) {
      const related = new Map<number, Relation[]>();
      const asked = statements.slice(0, RELATED_LIMITS.semanticStatements);
      const candidates = changed.slice(0, RELATED_LIMITS.semanticItems).map((item) => item.id);
      if (asked.length === 0 || candidates.length === 0) return related;
      // A statement's own cited items are left out after the read: ask for enough to fill perStatement.
      const cites = Math.max(...asked.map((s) => s.itemIds.length));
      let near: NearItem[];
      try {
        const vectors = await deps.embedder.embed(
          asked.map((s) => s.text),
          "query",
        );
        const key = { model: deps.embedder.model, dimensions: vectors[0]?.length ?? 0 };
        near = await deps.chunks.nearItems(subjectKey, vectors, candidates, key, {
          minSimilarity: SEMANTIC_MIN_SIMILARITY,
          perQuery: RELATED_LIMITS.perStatement + cites,
          chunksPerItem: RELATED_LIMITS.semanticChunksPerItem,
        });
      } catch (error) {
        deps.onFailure(error);
        return related;
      }
      const found = new Map<number, Relation[]>();
      for (const hit of near) {
        const statement = asked[hit.query];
        if (!statement || statement.itemIds.includes(hit.itemId)) continue;
        const relations = found.get(hit.query) ?? [];
        relations.push({ itemId: hit.itemId, via: "semantic" });
        found.set(hit.query, relations);
      }
      for (const [position, statement] of asked.entries()) {
        if (related.size >= RELATED_LIMITS.statements) break;
        const relations = found.get(position);
        if (relations) related.set(statement.index, bestRelations(relations));
      }
      return related;
    },
  };
}
