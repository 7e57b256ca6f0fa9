/**
 * bench:read-load's worker, never deployed: the product worker (src/index.ts) plus one route,
 * GET /bench/hit?without=<piece>, which answers a GET /memory cache hit assembled from the product's own
 * pieces, in the order the product runs them, with one piece taken away (or none: `without=nothing`):
 *   token      verifying the bearer token (the caller is the one this isolate verified first)
 *   services   building the request's services (built once per isolate; the audit trail stays per request)
 *   kv         the one KV read of the admission and the memory entry (the isolate keeps its first answer)
 *   decision   the memory decision (readSubjectMemory: ready, stale, poke); the hit is taken as ready
 *   serialise  the JSON body (the isolate keeps the first answer's bytes)
 *   audit      finishing the request's audit events and handing them to AUDIT_QUEUE after the answer
 * Every other request goes to the product worker unchanged. The bench starts it with wrangler.toml's
 * configuration and this file as the entry (`wrangler dev bench/read-load/worker.ts`).
 */
import { type Context, Hono } from "hono";
import { finishAudit } from "../../src/app/audit";
import { AuditTrail } from "../../src/app/audit-trail";
import type { Caller } from "../../src/app/caller";
import { readSubjectMemory } from "../../src/app/memory";
import type { Services } from "../../src/app/services";
import { buildServices } from "../../src/composition";
import { userAgentProduct } from "../../src/domain/audit";
import type { Env } from "../../src/env";
import { authenticate } from "../../src/http/auth";
import type { AppEnv } from "../../src/http/context";
import product from "../../src/index";
import { type Admission, admitMember } from "../../src/memory/cached-membership";
import { etagOf, type ReadDecision, servedBody } from "../../src/memory/read-model";
import { PIECES, type Piece } from "./pieces";

export { MemoryAgent } from "../../src/index";

/** What the isolate keeps from its first hit, for the variants that skip a piece. */
const kept: {
  caller?: Caller;
  services?: Services;
  admission?: Admission;
  body?: string;
} = {};

const bench = new Hono<AppEnv>().get("/bench/hit", async (c) => {
  const without = c.req.query("without");
  if (without !== "nothing" && !PIECES.includes(without as Piece)) return c.text("unknown piece", 400);
  const skip = (piece: Piece) => without === piece;

  const requestId = crypto.randomUUID();
  c.header("X-Request-Id", requestId);
  const services = skip("services") ? isolateServices(c) : buildServices(c.env, c.executionCtx);
  c.set("services", services);

  if (skip("token") && kept.caller) c.set("caller", kept.caller);
  else await authenticate({ membership: false })(c, async () => {});
  const caller = c.get("caller");
  kept.caller ??= caller;

  const admission =
    skip("kv") && kept.admission
      ? kept.admission
      : await admitMember(services, caller.workspaceId, caller.userId, caller.subjectKey);
  kept.admission ??= admission;
  if (admission.admitted !== "member" || !admission.memory) return c.text("not a cache hit", 500);

  let decision: ReadDecision;
  if (skip("decision")) {
    const version = admission.memory.version;
    services.audit.begin("memory.read", caller.subjectKey, { version: version.id });
    decision = { kind: "ready", etag: etagOf(version), stale: false, poke: false, memory: version };
  } else {
    decision = await readSubjectMemory(services, caller.subjectKey, { cached: admission.memory });
  }
  if (decision.kind !== "ready") return c.text("not a cache hit", 500);

  c.header("ETag", decision.etag);
  c.header("Cache-Control", "private, no-cache");
  let response: Response;
  if (skip("serialise") && kept.body) {
    response = c.body(kept.body, 200, { "content-type": "application/json" });
  } else {
    const body = servedBody(decision.memory, decision.stale, "markdown");
    kept.body ??= JSON.stringify(body);
    response = c.json(body);
  }

  if (!skip("audit")) {
    finishAudit(services, {
      caller,
      channel: "http",
      client: userAgentProduct(c.req.header("user-agent")),
      requestId,
      status: response.status,
    });
  }
  return response;
});

/** The services of this isolate's first hit, with this request's audit trail and its own waitUntil. */
function isolateServices(c: Context<AppEnv>): Services {
  kept.services ??= buildServices(c.env, c.executionCtx);
  const ctx = c.executionCtx;
  const base = kept.services;
  return Object.create(base, {
    audit: { value: new AuditTrail(() => base.clock.now()) },
    defer: { value: async (work: Promise<unknown>) => ctx.waitUntil(work.catch(() => {})) },
  }) as Services;
}

export default {
  ...product,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/bench/hit") return bench.fetch(request, env, ctx);
    return product.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env, unknown>;
