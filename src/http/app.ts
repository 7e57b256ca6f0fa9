import { Hono } from "hono";
import { buildServices } from "../composition";
import { AppError } from "../domain/errors";
import { mcpRoutes } from "../mcp/mcp-route";
import type { AppEnv } from "./context";
import { errorResponse } from "./errors";
import { allowedMethods } from "./method-not-allowed";
import { health } from "./routes/health";
import { ingestAddressRoutes } from "./routes/ingest-address";
import { itemsRoutes } from "./routes/items";
import { meRoutes } from "./routes/me";
import { membersRoutes } from "./routes/members";
import { memoryRoutes, ownMemory } from "./routes/memory";
import { openApiRoutes } from "./routes/openapi";
import { teamsRoutes } from "./routes/teams";
import { wellKnownRoutes } from "./routes/well-known";

export function createApp() {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    // Our own id, always: a client-sent cf-ray is just a header outside Cloudflare's edge.
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    c.set("services", buildServices(c.env, c.executionCtx));
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    // Everything here is per caller; only GET /memory sets its own (revalidated) policy.
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "private, no-store");
  });

  app.route("/health", health);
  app.route("/items", itemsRoutes);
  app.route("/memory", ownMemory.route("/", memoryRoutes));
  app.route("/members", membersRoutes);
  app.route("/teams", teamsRoutes);
  app.route("/me/ingest-address", ingestAddressRoutes);
  app.route("/me", meRoutes);
  app.route("/mcp", mcpRoutes);
  app.route("/.well-known", wellKnownRoutes);
  app.route("/openapi.json", openApiRoutes);

  app.notFound((c) => {
    const allowed = allowedMethods(app.routes, c.req.path);
    if (allowed.length === 0) throw new AppError("not_found", "No such route");
    c.header("Allow", allowed.join(", "));
    throw new AppError(
      "method_not_allowed",
      `${c.req.method} is not allowed here; use ${allowed.join(", ")}`,
    );
  });
  app.onError(errorResponse);
  return app;
}
