/**
 * The embeddings of the caller's workspace (admin scope): the configured model, how many items are indexed
 * for semantic search and how many wait for the embeddings queue or the daily backfill.
 */
import { embeddingStatus } from "../../app/embeddings";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";

export const adminEmbeddingsRoutes = [
  route(op.embeddingStatus, async (c) =>
    c.json(await embeddingStatus(c.get("services"), c.get("caller").workspaceId)),
  ),
];
