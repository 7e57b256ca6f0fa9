import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * The client libraries against `npm run dev`: their live suite and the packed-install check, the `clients`
 * project, not `node`. Both build clients/typescript/dist and clients/python in place, so they never run side by side.
 */
const CLIENTS_SUITE = ["test/node/clients.test.ts", "test/node/client-packages.test.ts"];

/**
 * The web console in Chromium against `npm run dev` on its embedded database, the `console` project, not `node`:
 * a third of the Node tests' time, so CI can run it in the column that would otherwise finish first.
 */
const CONSOLE_SUITE = [
  "test/node/console.test.ts",
  "test/node/console-import.test.ts",
  "test/node/console-webhooks.test.ts",
];

/**
 * Worker tests whose outcome depends on the database engine (SQL semantics, pgvector, limits of what Postgres
 * stores, locks and transactions): the `database` project, which CI runs on PostgreSQL and on PGlite. Every other
 * worker test goes through the same driver and stand-in whatever the engine, so the `workers` project runs once.
 */
const ENGINE_DEPENDENT = [
  "test/migrations.test.ts", // the schema, extensions and indexes the migrations build
  "test/neon-local.test.ts", // the stand-in for Neon's endpoints over each backend
  "test/items-store.test.ts", // the ItemStore adapter's SQL
  "test/items-access.test.ts", // the access rule, in SQL
  "test/items-search.test.ts", // full-text search and its ranking
  "test/term-frequency.test.ts", // ts_rank_cd of a term split by its phrases
  "test/keyword-statistics.test.ts", // N and df counted in SQL over what the viewer may see
  "test/search-modes.test.ts", // the keyword channel's variants (tsquery)
  "test/item-chunks.test.ts", // chunk writes, HNSW indexes, vector search plans
  "test/vector-retrieval.test.ts", // pgvector end to end
  "test/hostile-input.test.ts", // values Postgres cannot store (NUL, dates out of range)
  "test/workspaces.test.ts", // the access-loss invariant: redaction in the same transaction
  "test/memory-dismissal-fence.test.ts", // the run's write fence, by row locks
  "test/erase-race.test.ts", // an erase against queued work, by transaction order
  "test/audit-delivery.test.ts", // idempotent batch writes (on conflict do nothing)
  "test/usage.test.ts", // the usage ledger's sums
  "test/sign-in-codes.test.ts", // a code spent once when exchanges race (a row lock)
  "test/people-api.test.ts", // people evidence written in the upsert's transaction, read through the access rule in SQL
];

/** Shared by every test: the HS256 secret tokens are signed with. */
export const TEST_JWT_SECRET = "test-secret-that-is-long-enough-for-hs256-0123456789";

/**
 * The worker under test, inside workerd. `faults` puts a TCP proxy the tests control between the worker
 * and the database's endpoint, so they can make the database unreachable or hung under a running worker.
 * `hybrid` configures an embedding model (the fake LLM's embeddings through the OpenAI SDK), so ingest
 * feeds the real embeddings queue and search defaults to hybrid; the other projects are keyword-only.
 */
const workerProject = (
  name: "workers" | "database" | "faults" | "hybrid",
  include: string[],
  exclude: string[] = [],
) => ({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      // The production worker, with the MemoryAgent built from test collaborators (constructor injection).
      main: "./test/support/worker-under-test.ts",
      miniflare: {
        bindings: {
          DATABASE_URL: inject("databaseUrl"),
          NEON_LOCAL_ENDPOINT: inject("neonLocalEndpoint"),
          DATABASE_BACKEND: inject("databaseBackend"),
          AUTH_JWT_SECRET: TEST_JWT_SECRET,
          // Webhook receivers in the tests listen on http://127.0.0.1.
          WEBHOOKS_ALLOW_LOCAL: "true",
          FAKE_LLM_URL: inject("fakeLlmUrl"),
          ANTHROPIC_BASE_URL: `${inject("fakeLlmUrl")}/anthropic`,
          OPENAI_BASE_URL: `${inject("fakeLlmUrl")}/openai/v1`,
          ANTHROPIC_API_KEY: "test-key",
          OPENAI_API_KEY: "test-key",
          GENERATOR_MODEL: "anthropic:fake-generator",
          JUDGE_MODEL: "openai:fake-judge",
          ...(name === "hybrid"
            ? {
                EMBEDDING_MODEL: "openai:fake-embedding",
                EMBEDDING_BASE_URL: `${inject("fakeLlmUrl")}/openai/v1`,
              }
            : {}),
          // A loaded test machine can take seconds for a query: only the fault tests use a short deadline.
          ...(name === "faults"
            ? { FAULT_PROXY_URL: inject("faultProxyUrl"), DATABASE_QUERY_TIMEOUT_MS: "1500" }
            : { DATABASE_QUERY_TIMEOUT_MS: "15000" }),
        },
      },
    })),
  ],
  test: {
    name,
    globalSetup: ["./test/support/node/global-setup.ts"],
    include,
    exclude,
    // One workerd for all of a project's files instead of one each (starting one costs seconds of CPU): the files
    // already share the project's database, and each uses users of its own.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    projects: [
      // Pure code (agent, import, domain, memory with fakes, eval): plain Node, no workerd, database or servers.
      {
        test: {
          name: "unit",
          environment: "node",
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      workerProject(
        "workers",
        ["test/**/*.test.ts"],
        [
          "test/unit/**",
          "test/deploy/**",
          "test/faults/**",
          "test/node/**",
          "test/postgres/**",
          "test/hybrid/**",
          ...ENGINE_DEPENDENT,
        ],
      ),
      // On a real PostgreSQL, also the locking behaviour PGlite cannot show (one backend for every connection),
      // in the same workerd (a workerd of its own for four files cost about 20 s of a CI column).
      workerProject("database", [
        ...ENGINE_DEPENDENT,
        ...(process.env.TEST_DATABASE_URL ? ["test/postgres/**/*.test.ts"] : []),
      ]),
      workerProject("hybrid", ["test/hybrid/**/*.test.ts"]),
      workerProject("faults", ["test/faults/**/*.test.ts"]),
      ...(process.env.TEST_DATABASE_URL
        ? [
            // The deploy guide's commands (npm run db:migrate, drizzle-kit migrate) on fresh databases of that server.
            {
              test: {
                name: "deploy",
                environment: "node",
                include: ["test/deploy/**/*.test.ts"],
                testTimeout: 120_000,
              },
            },
          ]
        : []),
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          exclude: [...CLIENTS_SUITE, ...CONSOLE_SUITE],
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      // The console in Chromium against `npm run dev` on its embedded database, whatever TEST_DATABASE_URL says.
      {
        test: {
          name: "console",
          environment: "node",
          include: CONSOLE_SUITE,
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      // Both client libraries against `npm run dev`: on its embedded database, or with TEST_DATABASE_URL on
      // a fresh database on that server. Apart from `node`, so CI runs it once, on PostgreSQL, beside `node`.
      {
        test: {
          name: "clients",
          environment: "node",
          include: CLIENTS_SUITE,
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
