import { Hono } from "hono";
import { buildServices } from "../composition";
import { AppError } from "../domain/errors";
import { mcpRoutes } from "../mcp/mcp-route";
import type { AppEnv } from "./context";
import { errorResponse } from "./errors";
import { health } from "./routes/health";
import { itemsRoutes } from "./routes/items";
import { meRoutes } from "./routes/me";
import { memoryRoutes } from "./routes/memory";
import { openApiRoutes } from "./routes/openapi";
import { wellKnownRoutes } from "./routes/well-known";

export function createApp() {
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    const requestId = c.req.header("cf-ray") ?? crypto.randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    c.set("services", buildServices(c.env, c.executionCtx));
    await next();
  });

  app.route("/health", health);
  app.route("/items", itemsRoutes);
  app.route("/memory", memoryRoutes);
  app.route("/me", meRoutes);
  app.route("/mcp", mcpRoutes);
  app.route("/.well-known", wellKnownRoutes);
  app.route("/openapi.json", openApiRoutes);

  app.notFound(() => {
    throw new AppError("not_found", "No such route");
  });
  app.onError(errorResponse);
  return app;
}
