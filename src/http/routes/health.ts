import { Hono } from "hono";
import type { AppEnv } from "../context";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  if (await c.get("services").health.databaseAnswers()) return c.json({ status: "ok", database: "ok" });
  return c.json({ status: "degraded", database: "unreachable" }, 503);
});
