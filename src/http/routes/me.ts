/** DELETE /me: erases everything of the caller (items, memory, versions, runs, Durable Object state). */
import { Hono } from "hono";
import { eraseSubject } from "../../memory/deletion";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

export const meRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .delete("/", requireScope("items:write"), async (c) => {
    await eraseSubject(c.get("services"), c.get("caller").subjectKey);
    return c.body(null, 204);
  });
