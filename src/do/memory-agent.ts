import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/** One per subject (`idFromName("user:" + id)`): owns that subject's memory lifecycle. */
export class MemoryAgent extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec(
        "CREATE TABLE IF NOT EXISTS agent_state (id INTEGER PRIMARY KEY CHECK (id = 1), subject_id TEXT, status TEXT NOT NULL DEFAULT 'idle')",
      );
    });
  }
}
