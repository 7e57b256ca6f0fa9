import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createWorkerApp } from "../src/composition";
import { ConfigError, parseConfig } from "../src/config/config";
import type { Env } from "../src/env";

const SECRET = "a-secret-that-is-at-least-32-characters-long";
const valid = { DATABASE_URL: "postgres://u@db.example/app", AUTH_JWT_SECRET: SECRET };

/** The settings named by the ConfigError that parseConfig throws for `env`. */
function badSettings(env: Record<string, unknown>): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^Invalid configuration: /);
    return (err as ConfigError).issues.map((i) => i.setting).sort();
  }
  throw new Error("parseConfig accepted the configuration");
}

describe("parseConfig", () => {
  it("parses a minimal configuration with the documented defaults", () => {
    const config = parseConfig(valid);
    expect(config.databaseUrl).toBe(valid.DATABASE_URL);
    expect(config.auth).toEqual({
      kind: "hs256",
      secret: SECRET,
      issuer: undefined,
      audience: undefined,
      workspaceClaim: "org_id",
      emailClaim: "email",
    });
    expect(config.memory.ttlMs).toBe(24 * 3600_000);
    expect(config.llm.generator).toBeUndefined();
    expect(config.neonLocalEndpoint).toBeUndefined();
  });

  it("names DATABASE_URL when it is missing or not a postgres URL", () => {
    expect(badSettings({ AUTH_JWT_SECRET: SECRET })).toEqual(["DATABASE_URL"]);
    expect(badSettings({ ...valid, DATABASE_URL: "mysql://db/app" })).toEqual(["DATABASE_URL"]);
  });

  it("names a model reference that is not provider:model", () => {
    expect(badSettings({ ...valid, GENERATOR_MODEL: "gpt-4o" })).toEqual(["GENERATOR_MODEL"]);
    expect(badSettings({ ...valid, JUDGE_MODEL: "mistral:large" })).toEqual(["JUDGE_MODEL"]);
    const config = parseConfig({ ...valid, GENERATOR_MODEL: "openai:llama3.1:8b" });
    expect(config.llm.generator).toEqual({ provider: "openai", model: "llama3.1:8b" });
    expect(config.llm.judge).toEqual(config.llm.generator);
  });

  it("requires an auth setting, and a secret long enough for HS256", () => {
    expect(badSettings({ DATABASE_URL: valid.DATABASE_URL })).toEqual(["AUTH_JWT_SECRET"]);
    expect(badSettings({ ...valid, AUTH_JWT_SECRET: "short" })).toEqual(["AUTH_JWT_SECRET"]);
  });

  it("requires issuer and audience with a JWKS URL, and prefers JWKS when both are set", () => {
    const jwks = {
      DATABASE_URL: valid.DATABASE_URL,
      AUTH_JWKS_URL: "https://id.example/.well-known/jwks.json",
    };
    expect(badSettings(jwks)).toEqual(["AUTH_AUDIENCE", "AUTH_ISSUER"]);
    expect(badSettings({ ...jwks, AUTH_ISSUER: "https://id.example" })).toEqual(["AUTH_AUDIENCE"]);
    expect(
      badSettings({ ...jwks, AUTH_JWKS_URL: "not a url", AUTH_ISSUER: "i", AUTH_AUDIENCE: "a" }),
    ).toEqual(["AUTH_JWKS_URL"]);
    const config = parseConfig({
      ...jwks,
      AUTH_ISSUER: "https://id.example",
      AUTH_AUDIENCE: "api",
      AUTH_JWT_SECRET: SECRET,
    });
    expect(config.auth).toEqual({
      kind: "jwks",
      jwksUrl: jwks.AUTH_JWKS_URL,
      issuer: "https://id.example",
      audience: "api",
      workspaceClaim: "org_id",
      emailClaim: "email",
    });
    expect(parseConfig({ ...valid, AUTH_WORKSPACE_CLAIM: "tenant" }).auth.workspaceClaim).toBe("tenant");
  });

  it("names numeric settings that are out of range or not numbers", () => {
    expect(badSettings({ ...valid, MEMORY_TTL_HOURS: "soon", AGENT_MAX_TURNS: "0" })).toEqual([
      "AGENT_MAX_TURNS",
      "MEMORY_TTL_HOURS",
    ]);
  });
});

describe("a worker with an invalid configuration", () => {
  it("answers 500 config_invalid naming the setting, instead of crashing", async () => {
    const env = { DATABASE_URL: "postgres://u@db.example/app" } as unknown as Env;
    const res = await createWorkerApp().fetch(
      new Request("http://local/items"),
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("config_invalid");
    expect(body.error.message).toMatch(/AUTH_JWT_SECRET/);
  });
});

describe("CORS_ALLOWED_ORIGINS", () => {
  it("is none by default, a list of origins when set, and names a value that is not an origin", () => {
    expect(parseConfig(valid).cors.allowedOrigins).toEqual([]);
    expect(
      parseConfig({ ...valid, CORS_ALLOWED_ORIGINS: "https://app.example, http://localhost:5173" }).cors
        .allowedOrigins,
    ).toEqual(["https://app.example", "http://localhost:5173"]);
    for (const bad of ["app.example", "https://app.example/", "https://app.example/path", "*"]) {
      expect(badSettings({ ...valid, CORS_ALLOWED_ORIGINS: bad }), bad).toEqual(["CORS_ALLOWED_ORIGINS"]);
    }
  });
});
