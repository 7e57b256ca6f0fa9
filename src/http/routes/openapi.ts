/** GET /openapi.json: the contract, with this deployment as its server. */
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { openApiDocument } from "../openapi";

export const openApiRoutes = new Hono<AppEnv>().get("/", (c) => {
  c.header("Cache-Control", "public, max-age=300");
  return c.json({ ...openApiDocument(), servers: [{ url: new URL(c.req.url).origin }] });
});
