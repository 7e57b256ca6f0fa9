import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { databaseUnavailable } from "../errors";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  const { db } = c.get("services");
  try {
    await db.execute(sql`select 1`);
    return c.json({ status: "ok", database: "ok" });
  } catch {
    c.header("Retry-After", String(databaseUnavailable().retryAfterSeconds));
    return c.json({ status: "degraded", database: "unreachable" }, 503);
  }
});
