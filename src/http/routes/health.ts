import { Hono } from "hono";
import { DATABASE_RETRY_AFTER_SECONDS } from "../../app/errors";
import type { AppEnv } from "../context";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  if (await c.get("services").health.databaseAnswers()) return c.json({ status: "ok", database: "ok" });
  c.header("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
  return c.json({ status: "degraded", database: "unreachable" }, 503);
});
