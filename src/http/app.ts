import { Hono } from "hono";
import { buildServices } from "../composition";
import { AppError } from "../domain/errors";
import type { AppEnv } from "./context";
import { errorResponse } from "./errors";
import { health } from "./routes/health";
import { ingestAddressRoutes } from "./routes/ingest-address";
import { itemsRoutes } from "./routes/items";
import { meRoutes } from "./routes/me";
import { memoryRoutes } from "./routes/memory";

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
  app.route("/me/ingest-address", ingestAddressRoutes);
  app.route("/me", meRoutes);

  app.notFound(() => {
    throw new AppError("not_found", "No such route");
  });
  app.onError(errorResponse);
  return app;
}
