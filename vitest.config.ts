import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/** Shared by every test: the HS256 secret tokens are signed with. */
export const TEST_JWT_SECRET = "test-secret-that-is-long-enough-for-hs256-0123456789";

export default defineConfig({
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
          FAKE_LLM_URL: inject("fakeLlmUrl"),
          ANTHROPIC_BASE_URL: `${inject("fakeLlmUrl")}/anthropic`,
          OPENAI_BASE_URL: `${inject("fakeLlmUrl")}/openai/v1`,
          ANTHROPIC_API_KEY: "test-key",
          OPENAI_API_KEY: "test-key",
          GENERATOR_MODEL: "anthropic:fake-generator",
          JUDGE_MODEL: "openai:fake-judge",
        },
      },
    })),
  ],
  test: {
    globalSetup: ["./test/support/node/global-setup.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
