/**
 * The HTTP API: one Hono app over the operations. It is handed the per-request services, the error model
 * and the protocols it carries (MCP at /mcp) by whoever assembles the worker, and imports none of them.
 */
import { Hono } from "hono";
import { finishAudit } from "../app/audit";
import type { EndpointContext, ProtocolEndpoint } from "../app/endpoint";
import type { ErrorModel } from "../app/errors";
import type { Services } from "../app/services";
import { OPERATIONS } from "../contract/operations";
import { userAgentProduct } from "../domain/audit";
import { AppError } from "../domain/errors";
import type { Env } from "../env";
import { authenticate } from "./auth";
import type { AppEnv } from "./context";
import { crossOrigin } from "./cors";
import { errorResponse } from "./errors";
import { allowedMethods } from "./method-not-allowed";
import { registerOperations } from "./operation-routes";
import { protectedResourceMetadataUrl } from "./protected-resource";
import { adminEmbeddingsRoutes } from "./routes/admin-embeddings";
import { auditRoutes } from "./routes/audit";
import { healthRoutes } from "./routes/health";
import { importRoutes } from "./routes/imports";
import { ingestAddressRoutes } from "./routes/ingest-address";
import { itemRoutes } from "./routes/items";
import { meRoutes } from "./routes/me";
import { membersRoutes } from "./routes/members";
import { ownMemoryRoutes, teamMemoryRoutes } from "./routes/memory";
import { openApiRoutes } from "./routes/openapi";
import { peopleRoutes } from "./routes/people";
import { signInRoutes } from "./routes/sign-in";
import { teamsRoutes } from "./routes/teams";
import { webhooksRoutes } from "./routes/webhooks";
import { wellKnownRoutes } from "./routes/well-known";

/** Every operation's handler; registerOperations refuses a table entry without one. */
const ROUTES = [
  ...healthRoutes,
  ...openApiRoutes,
  ...wellKnownRoutes,
  ...itemRoutes,
  ...ownMemoryRoutes,
  ...teamMemoryRoutes,
  ...membersRoutes,
  ...teamsRoutes,
  ...meRoutes,
  ...ingestAddressRoutes,
  ...adminEmbeddingsRoutes,
  ...auditRoutes,
  ...webhooksRoutes,
  ...signInRoutes,
  ...peopleRoutes,
  ...importRoutes,
];

export interface AppDeps {
  services(env: Env, ctx: ExecutionContext): Services;
  errors: ErrorModel;
  /** Protocols served at a path, behind the same authentication as every route. */
  endpoints: Record<string, ProtocolEndpoint>;
}

export function createApp(deps: AppDeps) {
  // Not strict: a path with a trailing slash is the same route (`/items/` is `/items`), for the router and
  // for the 405s' Allow alike (method-not-allowed.ts sees the path as the router does).
  const app = new Hono<AppEnv>({ strict: false });

  app.use(async (c, next) => {
    // Our own id, always: a client-sent cf-ray is just a header outside Cloudflare's edge.
    const requestId = crypto.randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    const services = deps.services(c.env, c.executionCtx);
    c.set("services", services);
    await next();
    // The audit's choke point: the events the operations began are finished with the answer's status
    // (refusals included) and sent after the response.
    const caller = c.get("caller");
    if (caller) {
      finishAudit(services, {
        caller,
        channel: "http",
        client: userAgentProduct(c.req.header("user-agent")),
        requestId,
        status: c.res.status,
      });
    }
    // Again after the handler: a protocol endpoint answers with its own Response, which Hono does not merge
    // with headers set before it ran.
    c.header("X-Request-Id", requestId);
    c.header("X-Content-Type-Options", "nosniff");
    // Everything here is per caller; only GET /memory sets its own (revalidated) policy.
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "private, no-store");
  });
  app.use(crossOrigin(() => app.routes, deps.endpoints));

  registerOperations(app, OPERATIONS, ROUTES, endpointRoute, deps.endpoints);

  app.notFound((c) => {
    // A browser opening the service's address gets the console; an API client still gets a JSON 404.
    if (
      c.req.method === "GET" &&
      c.req.path === "/" &&
      (c.req.header("accept") ?? "").includes("text/html")
    ) {
      return c.redirect("/console/", 302);
    }
    const allowed = allowedMethods(app.routes, c.req.path);
    if (allowed.length === 0) throw new AppError("not_found", "No such route");
    c.header("Allow", allowed.join(", "));
    throw new AppError(
      "method_not_allowed",
      `${c.req.method} is not allowed here; use ${allowed.join(", ")}`,
    );
  });
  app.onError((err, c) => errorResponse(err, c, deps.errors));
  return app;
}

/** A protocol's endpoint: its own checks, then authentication, then the protocol answers every method. */
function endpointRoute(endpoint: ProtocolEndpoint) {
  return new Hono<AppEnv>()
    .use(async (c, next) => {
      endpoint.admit?.(c.req.raw, c.get("services"));
      await next();
    })
    .use(authenticate())
    .all("/", (c) => {
      const services = c.get("services");
      const resourceMetadataUrl = protectedResourceMetadataUrl(c, services.config.auth);
      const context: EndpointContext = {
        services,
        caller: c.get("caller"),
        requestId: c.get("requestId"),
        token: c.req.header("authorization")?.replace(/^Bearer[ ]+/i, "") ?? "",
        ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      };
      return endpoint.handle(c.req.raw, context);
    });
}
