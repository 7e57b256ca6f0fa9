import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type { AppEnv } from "../context";

export const health = new Hono<AppEnv>().get("/", async (c) => {
  const { db } = c.get("services");
  try {
    await db.execute(sql`select 1`);
    return c.json({ status: "ok", database: "ok" });
  } catch {
    return c.json({ status: "degraded", database: "unreachable" }, 503);
  }
});
