import { Hono } from "hono";
import type { AppEnv } from "../context";
import { databaseUnavailable } from "../errors";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  if (await c.get("services").health.databaseAnswers()) return c.json({ status: "ok", database: "ok" });
  c.header("Retry-After", String(databaseUnavailable().retryAfterSeconds));
  return c.json({ status: "degraded", database: "unreachable" }, 503);
});
