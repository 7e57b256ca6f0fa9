import { DATABASE_RETRY_AFTER_SECONDS } from "../../app/errors";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";

export const healthRoutes = [
  route(op.health, async (c) => {
    const services = c.get("services");
    // Whether search has its vector channel: the configured model (never probed here: a provider call per
    // health check would cost money and rate limit), or "not_configured" (keyword-only).
    const embedder = services.embedder
      ? { status: "configured" as const, model: services.embedder.model }
      : { status: "not_configured" as const };
    if (await services.health.databaseAnswers()) return c.json({ status: "ok", database: "ok", embedder });
    c.header("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
    return c.json({ status: "degraded", database: "unreachable", embedder }, 503);
  }),
];
