/**
 * Starts what the tests need, on free ports: a real database (a fresh database on TEST_DATABASE_URL's
 * server, or the embedded PGlite), migrated, behind the local Neon stand-in.
 */

import pg from "pg";
import type { TestProject } from "vitest/node";
import {
  EMBEDDED_MAX_CLIENT_CONNECTIONS,
  startEmbeddedPostgres,
} from "../../../scripts/lib/embedded-postgres";
import { applyMigrations, createFreshDatabase, dropDatabase } from "../../../scripts/lib/migrate";
import { startNeonLocal } from "../../../scripts/lib/neon-local";
import { BACKFILL_CLAIM, backfillClaimKey } from "../../../src/db/pg-embedding-index";
import { startFakeLlm } from "./fake-llm/server";
import { startFaultProxy } from "./fault-proxy";
import { startJwksServer } from "./jwks-server";
import { startOpenApiValidator } from "./openapi-validator";
import { startWebhookReceiver } from "./webhook-receiver";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    neonLocalEndpoint: string;
    databaseBackend: "postgres" | "pglite";
    /** The fake LLM server (test/support/node/fake-llm): Anthropic at /anthropic, OpenAI at /openai/v1, control at /__control. */
    fakeLlmUrl: string;
    /** Base URL of a JWKS endpoint the auth tests publish their keys to (PUT/GET /jwks/<name>). */
    jwksServerUrl: string;
    /** The `faults` project only: control URL of the TCP proxy between the worker and the database endpoint. */
    faultProxyUrl: string;
    /** POST /validate an OpenAPI document: { valid, version, errors } (test/support/node/openapi-validator.ts). */
    openApiValidatorUrl: string;
    /** Webhook receivers: POST /hooks/<name>, PUT/GET /__control/<name> (test/support/node/webhook-receiver.ts). */
    webhookReceiverUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  const embedded = adminUrl ? null : await startEmbeddedPostgres();
  const databaseUrl = adminUrl ? await createFreshDatabase(adminUrl, "um_test") : embedded!.url;
  await applyMigrations(databaseUrl);
  await claimTestEmbeddingModel(databaseUrl);
  const neonLocal = await startNeonLocal({
    databaseUrl,
    maxConnections: embedded ? EMBEDDED_MAX_CLIENT_CONNECTIONS : undefined,
  });

  // The fault tests reach the database through a proxy they can stop and pause.
  const faultProxy = project.name === "faults" ? await startFaultProxy(new URL(neonLocal.url)) : null;

  project.provide("databaseUrl", databaseUrl);
  project.provide("neonLocalEndpoint", faultProxy?.url ?? neonLocal.url);
  project.provide("faultProxyUrl", faultProxy?.controlUrl ?? "");
  project.provide("databaseBackend", adminUrl ? "postgres" : "pglite");
  const fakeLlm = await startFakeLlm();
  project.provide("fakeLlmUrl", fakeLlm.url);
  const jwks = await startJwksServer();
  project.provide("jwksServerUrl", jwks.url);
  const openApiValidator = await startOpenApiValidator();
  project.provide("openApiValidatorUrl", openApiValidator.url);
  const webhookReceiver = await startWebhookReceiver();
  project.provide("webhookReceiverUrl", webhookReceiver.url);

  return async () => {
    await fakeLlm.close();
    await jwks.close();
    await webhookReceiver.close();
    await faultProxy?.close();
    await openApiValidator.close();
    await neonLocal.close();
    if (adminUrl) await dropDatabase(adminUrl, databaseUrl);
    await embedded?.close();
  };
}

/**
 * The hybrid project's fake embedding model counts as configured before the first test, so no backfill
 * starts behind the tests' backs (the tests embed what they mean to); embed-consumer.test.ts switches a
 * model on for existing items itself.
 */
async function claimTestEmbeddingModel(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("insert into sweep_cursors (name, after_key) values ($1, $2) on conflict do nothing", [
      BACKFILL_CLAIM,
      backfillClaimKey({ model: "openai:fake-embedding", dimensions: null }),
    ]);
  } finally {
    await client.end();
  }
}
