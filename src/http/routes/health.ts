import { DATABASE_RETRY_AFTER_SECONDS } from "../../app/errors";
import { capabilities } from "../../app/health";
import * as op from "../../contract/operations";
import { route } from "../operation-routes";

export const healthRoutes = [
  route(op.health, async (c) => {
    const services = c.get("services");
    const what = capabilities(services);
    if (await services.health.databaseAnswers()) return c.json({ status: "ok", database: "ok", ...what });
    c.header("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
    return c.json({ status: "degraded", database: "unreachable", ...what }, 503);
  }),
];
