import { z } from "zod";
import type { EmbeddingProvider, EmbeddingSettings } from "../domain/embeddings";
import { AppError } from "../domain/errors";
import type { LlmSettings } from "../domain/llm";
import type { DailyBudgets, ModelPrices } from "../domain/usage";

/** A setting that is missing or malformed; names the setting so start-up errors are actionable. */
export class ConfigError extends AppError {
  constructor(readonly issues: { setting: string; message: string }[]) {
    super(
      "config_invalid",
      `Invalid configuration: ${issues.map((i) => `${i.setting}: ${i.message}`).join("; ")}`,
    );
    this.name = "ConfigError";
  }
}

const intSetting = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const modelRef = z
  .string()
  .regex(/^(anthropic|openai):\S+$/, 'must look like "anthropic:<model>" or "openai:<model>"')
  .transform((value) => {
    const [provider, ...rest] = value.split(":");
    return { provider: provider as "anthropic" | "openai", model: rest.join(":") };
  });

/** `workers-ai:<model>` (the AI binding) or `openai:<model>` (an OpenAI-compatible embeddings endpoint). */
const embeddingModelRef = z
  .string()
  .regex(/^(workers-ai|openai):\S+$/, 'must look like "workers-ai:<model>" or "openai:<model>"')
  .transform((value) => {
    const at = value.indexOf(":");
    return {
      provider: value.slice(0, at) as EmbeddingProvider,
      model: value.slice(at + 1),
    };
  });

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const optionalUrl = optionalString.pipe(z.url().optional());

/** `https://app.example` or `http://localhost:5173`: a scheme, a host and maybe a port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

const rawSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// connection string"),
  /** Local stand-in for Neon's endpoints (http://host:port). Never set in production. */
  NEON_LOCAL_ENDPOINT: optionalUrl,
  /** Every database round trip is abandoned after this long (the request then answers 503). */
  DATABASE_QUERY_TIMEOUT_MS: intSetting(4000, 100, 60_000),

  AUTH_JWT_SECRET: optionalString.pipe(z.string().min(32, "must be at least 32 characters").optional()),
  AUTH_JWKS_URL: optionalUrl,
  AUTH_ISSUER: optionalString,
  AUTH_AUDIENCE: optionalString,
  /** The JWT claim naming the caller's workspace; a token without it acts in the default workspace. */
  AUTH_WORKSPACE_CLAIM: optionalString.transform((v) => v ?? "org_id"),
  /** The JWT claim holding the caller's email address (ties them to it among people; unverified ones are ignored). */
  AUTH_EMAIL_CLAIM: optionalString.transform((v) => v ?? "email"),

  /** Browser origins allowed to call /mcp (comma-separated); requests with any other Origin are refused. */
  MCP_ALLOWED_ORIGINS: optionalString.transform((v) =>
    (v ?? "")
      .split(",")
      .map((o) => o.trim())
      .filter((o) => o !== ""),
  ),

  /**
   * Browser origins (comma-separated, e.g. https://app.example) whose pages may call the API and /mcp
   * across origins: their preflights are answered and their answers carry the CORS headers. Default none.
   */
  CORS_ALLOWED_ORIGINS: optionalString.pipe(
    z
      .string()
      .optional()
      .transform((v) =>
        (v ?? "")
          .split(",")
          .map((o) => o.trim())
          .filter((o) => o !== ""),
      )
      .pipe(
        z.array(
          z.string().superRefine((o, ctx) => {
            if (!isOrigin(o))
              ctx.addIssue({ code: "custom", message: `"${o}" is not an origin like https://app.example` });
          }),
        ),
      ),
  ),

  GENERATOR_MODEL: optionalString.pipe(modelRef.optional()),
  JUDGE_MODEL: optionalString.pipe(modelRef.optional()),
  ANTHROPIC_API_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
  OPENAI_BASE_URL: optionalUrl,
  LLM_TIMEOUT_SECONDS: intSetting(120, 1, 600),
  /**
   * "true" says the models are the fake LLM of `npm run dev -- --fake-llm` (set by it): /health tells, and
   * the console marks generated output as the fake model's.
   */
  LLM_FAKE: optionalString
    .pipe(z.enum(["true", "false"], 'must be "true" or "false"').optional())
    .transform((v) => v === "true"),

  /** Unset: no embeddings, search is keyword-only. */
  EMBEDDING_MODEL: optionalString.pipe(embeddingModelRef.optional()),
  /** openai: the embeddings endpoint's base URL (default OPENAI_BASE_URL, else api.openai.com). */
  EMBEDDING_BASE_URL: optionalUrl,
  /**
   * openai: asks the model for vectors of this length (text-embedding-3-*); workers-ai: must match the
   * model's. At most 4,000, the longest vector pgvector's HNSW index takes (as halfvec).
   */
  EMBEDDING_DIMENSIONS: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number("must be a whole number").int("must be a whole number").min(1).max(4000).optional()),

  /** Hours; fractions allowed (e.g. 0.01 = 36 s) so benchmarks and demos can make memories stale quickly. */
  MEMORY_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  MIN_REFRESH_INTERVAL_MINUTES: intSetting(60, 0, 24 * 60),
  /** "false" turns the edge cache off even with a MEMORY_CACHE binding (to measure reads without it). */
  MEMORY_CACHE_ENABLED: optionalString
    .pipe(z.enum(["true", "false"], 'must be "true" or "false"').optional())
    .transform((v) => v !== "false"),
  INGEST_DEBOUNCE_SECONDS: intSetting(300, 0, 24 * 3600),
  /** "true" lets webhooks reach http://127.0.0.1, localhost and [::1] (dev and tests); never in production. */
  WEBHOOKS_ALLOW_LOCAL: optionalString
    .pipe(z.enum(["true", "false"], 'must be "true" or "false"').optional())
    .transform((v) => v === "true"),
  MAX_RUN_ATTEMPTS: intSetting(4, 1, 20),
  RETRY_BASE_SECONDS: intSetting(60, 1, 24 * 3600),
  RUN_LEASE_SECONDS: intSetting(900, 30, 3600),

  SWEEP_PAGE_SIZE: intSetting(1000, 1, 10_000),
  SWEEP_MAX_DISPATCH: intSetting(900, 1, 100_000),
  SWEEP_SPREAD_MINUTES: intSetting(60, 0, 24 * 60),

  AGENT_MAX_TURNS: intSetting(12, 1, 100),
  AGENT_MAX_TOOL_CALLS: intSetting(40, 1, 500),
  AGENT_MAX_TOKENS: intSetting(200_000, 1000, 10_000_000),
  AGENT_WALL_SECONDS: intSetting(300, 5, 840),
  /** Salvage: a draft with a few bad statements is accepted without them if at least this share survives. */
  SALVAGE_MIN_SHARE: z.coerce.number().min(0).max(1).default(0.7),

  /** The domain of private ingest addresses (Cloudflare Email Routing sends its mail to the worker). */
  INGEST_EMAIL_DOMAIN: optionalString.pipe(
    z
      .string()
      .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, "must be a domain name")
      .optional(),
  ),
  INGEST_EMAIL_MAX_BYTES: intSetting(10 * 1024 * 1024, 1024, 25 * 1024 * 1024),

  /** Audit events older than this many days are pruned by the daily cron. */
  AUDIT_RETENTION_DAYS: intSetting(400, 1, 36_500),
  /** JSON: USD per million input/output tokens by model, e.g. {"claude-sonnet-4-5":{"input":3,"output":15}}. */
  MODEL_PRICES: optionalString.transform((value, ctx) => {
    if (value === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
    const prices = modelPrices.safeParse(parsed);
    if (!prices.success) {
      ctx.addIssue({
        code: "custom",
        message:
          'must map model names to {"input": USD per million tokens, "output": USD per million tokens}',
      });
      return z.NEVER;
    }
    return prices.data;
  }),
  /** Per subject per day (UTC): a run that would start past it ends as budget_exhausted without an LLM call. */
  DAILY_RUN_BUDGET_USD: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number("must be a number").positive().optional()),
  DAILY_TOKEN_BUDGET: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number("must be a whole number").int("must be a whole number").positive().optional()),
});

const modelPrices = z.record(
  z.string().min(1),
  z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict(),
);

export type Auth = (
  | { kind: "hs256"; secret: string; issuer?: string; audience?: string }
  | { kind: "jwks"; jwksUrl: string; issuer: string; audience: string }
) & { workspaceClaim: string; emailClaim?: string };

export interface Config {
  databaseUrl: string;
  neonLocalEndpoint?: string;
  queryTimeoutMs: number;
  auth: Auth;
  mcp: { allowedOrigins: string[] };
  /** Origins whose browser pages may call across origins (CORS); /mcp also needs mcp.allowedOrigins. */
  cors: { allowedOrigins: string[] };
  llm: LlmSettings;
  embeddings?: EmbeddingSettings;
  memory: {
    ttlMs: number;
    minIntervalMs: number;
    ingestDebounceMs: number;
    maxAttempts: number;
    retryBaseMs: number;
    runLeaseMs: number;
  };
  /** The edge cache (used only when the worker also has its MEMORY_CACHE binding). */
  memoryCache: { enabled: boolean };
  sweep: { pageSize: number; maxDispatch: number; spreadMs: number };
  budgets: { maxTurns: number; maxToolCalls: number; maxTokens: number; wallMs: number };
  salvage: { minShare: number };
  inboundEmail: { domain: string; maxBytes: number };
  audit: { retentionDays: number };
  webhooks: { allowLocal: boolean };
  usage: { prices: ModelPrices; daily: DailyBudgets };
}

type RawEnv = Record<string, unknown>;

/** Parses the worker's environment once into a typed Config, or throws a ConfigError naming each bad setting. */
export function parseConfig(env: RawEnv): Config {
  const strings = Object.fromEntries(
    Object.entries(env).filter(([, v]) => typeof v === "string" || typeof v === "number"),
  );
  const parsed = rawSchema.safeParse(strings);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        setting: String(issue.path[0] ?? "(config)"),
        message: issue.message,
      })),
    );
  }
  const c = parsed.data;
  return {
    databaseUrl: c.DATABASE_URL,
    neonLocalEndpoint: c.NEON_LOCAL_ENDPOINT,
    queryTimeoutMs: c.DATABASE_QUERY_TIMEOUT_MS,
    auth: parseAuth(c),
    mcp: { allowedOrigins: c.MCP_ALLOWED_ORIGINS },
    cors: { allowedOrigins: c.CORS_ALLOWED_ORIGINS },
    llm: {
      generator: c.GENERATOR_MODEL,
      judge: c.JUDGE_MODEL ?? c.GENERATOR_MODEL,
      anthropic: { apiKey: c.ANTHROPIC_API_KEY, baseUrl: c.ANTHROPIC_BASE_URL },
      openai: { apiKey: c.OPENAI_API_KEY, baseUrl: c.OPENAI_BASE_URL },
      timeoutMs: c.LLM_TIMEOUT_SECONDS * 1000,
      fake: c.LLM_FAKE,
    },
    embeddings: parseEmbeddings(c),
    memory: {
      ttlMs: Math.round(c.MEMORY_TTL_HOURS * 3600_000),
      minIntervalMs: c.MIN_REFRESH_INTERVAL_MINUTES * 60_000,
      ingestDebounceMs: c.INGEST_DEBOUNCE_SECONDS * 1000,
      maxAttempts: c.MAX_RUN_ATTEMPTS,
      retryBaseMs: c.RETRY_BASE_SECONDS * 1000,
      runLeaseMs: c.RUN_LEASE_SECONDS * 1000,
    },
    memoryCache: { enabled: c.MEMORY_CACHE_ENABLED },
    sweep: {
      pageSize: c.SWEEP_PAGE_SIZE,
      maxDispatch: c.SWEEP_MAX_DISPATCH,
      spreadMs: c.SWEEP_SPREAD_MINUTES * 60_000,
    },
    budgets: {
      maxTurns: c.AGENT_MAX_TURNS,
      maxToolCalls: c.AGENT_MAX_TOOL_CALLS,
      maxTokens: c.AGENT_MAX_TOKENS,
      wallMs: c.AGENT_WALL_SECONDS * 1000,
    },
    salvage: { minShare: c.SALVAGE_MIN_SHARE },
    inboundEmail: { domain: c.INGEST_EMAIL_DOMAIN ?? "ingest.localhost", maxBytes: c.INGEST_EMAIL_MAX_BYTES },
    audit: { retentionDays: c.AUDIT_RETENTION_DAYS },
    webhooks: { allowLocal: c.WEBHOOKS_ALLOW_LOCAL },
    usage: {
      prices: c.MODEL_PRICES,
      daily: {
        ...(c.DAILY_RUN_BUDGET_USD === undefined ? {} : { usd: c.DAILY_RUN_BUDGET_USD }),
        ...(c.DAILY_TOKEN_BUDGET === undefined ? {} : { tokens: c.DAILY_TOKEN_BUDGET }),
      },
    },
  };
}

function parseEmbeddings(c: z.infer<typeof rawSchema>): EmbeddingSettings | undefined {
  if (!c.EMBEDDING_MODEL) {
    const stray = (["EMBEDDING_BASE_URL", "EMBEDDING_DIMENSIONS"] as const).filter((k) => c[k] !== undefined);
    if (stray.length > 0) {
      throw new ConfigError(stray.map((setting) => ({ setting, message: "set EMBEDDING_MODEL too" })));
    }
    return undefined;
  }
  const { provider, model } = c.EMBEDDING_MODEL;
  if (provider === "workers-ai") {
    if (c.EMBEDDING_BASE_URL) {
      throw new ConfigError([
        { setting: "EMBEDDING_BASE_URL", message: "workers-ai embeddings go through the AI binding" },
      ]);
    }
    return { provider, model, dimensions: c.EMBEDDING_DIMENSIONS };
  }
  const baseUrl = c.EMBEDDING_BASE_URL ?? c.OPENAI_BASE_URL;
  if (!baseUrl && !c.OPENAI_API_KEY) {
    throw new ConfigError([
      { setting: "EMBEDDING_MODEL", message: "openai embeddings need OPENAI_API_KEY or EMBEDDING_BASE_URL" },
    ]);
  }
  return { provider, model, dimensions: c.EMBEDDING_DIMENSIONS, baseUrl, apiKey: c.OPENAI_API_KEY };
}

function parseAuth(c: z.infer<typeof rawSchema>): Auth {
  if (c.AUTH_JWKS_URL) {
    const missing = (["AUTH_ISSUER", "AUTH_AUDIENCE"] as const).filter((k) => !c[k]);
    if (missing.length > 0) {
      throw new ConfigError(missing.map((setting) => ({ setting, message: "required with AUTH_JWKS_URL" })));
    }
    return {
      kind: "jwks",
      jwksUrl: c.AUTH_JWKS_URL,
      issuer: c.AUTH_ISSUER!,
      audience: c.AUTH_AUDIENCE!,
      workspaceClaim: c.AUTH_WORKSPACE_CLAIM,
      emailClaim: c.AUTH_EMAIL_CLAIM,
    };
  }
  if (c.AUTH_JWT_SECRET) {
    return {
      kind: "hs256",
      secret: c.AUTH_JWT_SECRET,
      issuer: c.AUTH_ISSUER,
      audience: c.AUTH_AUDIENCE,
      workspaceClaim: c.AUTH_WORKSPACE_CLAIM,
      emailClaim: c.AUTH_EMAIL_CLAIM,
    };
  }
  throw new ConfigError([
    {
      setting: "AUTH_JWT_SECRET",
      message: "set AUTH_JWT_SECRET, or AUTH_JWKS_URL with AUTH_ISSUER and AUTH_AUDIENCE",
    },
  ]);
}

const cache = new WeakMap<object, Config>();

/** Parses once per env object (one per isolate in Workers). */
export function configFor(env: object): Config {
  let config = cache.get(env);
  if (!config) {
    config = parseConfig(env as RawEnv);
    cache.set(env, config);
  }
  return config;
}
