/**
 * The embeddings of the caller's workspace (admin scope): the configured model, how many items are indexed
 * for semantic search and how many wait for the embeddings queue or the daily backfill.
 */
import { Hono } from "hono";
import { embeddingStatus } from "../../app/embeddings";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const adminEmbeddingsRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .use(requireScope("admin"))
  .get("/", async (c) => c.json(await embeddingStatus(c.get("services"), c.get("caller").workspaceId)));
