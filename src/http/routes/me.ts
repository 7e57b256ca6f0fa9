/** DELETE /me: erases everything of the caller (items, memory, versions, runs, Durable Object state). */
import { Hono } from "hono";
import { eraseMe } from "../../app/me";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const meRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .delete("/", requireScope("items:write"), async (c) => {
    await eraseMe(c.get("services"), c.get("caller"));
    return c.body(null, 204);
  });
