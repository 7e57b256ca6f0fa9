/** The usage ledger's pure parts: pricing a day, the daily budgets, and the settings they come from. */
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/config";
import { budgetExceeded, nextUtcMidnight, usageDay } from "../../src/domain/usage";

const prices = { big: { input: 3, output: 15 } };
const base = { DATABASE_URL: "postgres://x@localhost/db", AUTH_JWT_SECRET: "s".repeat(32) };

describe("usage", () => {
  it("prices each model it knows, shows tokens only for the others, and adds the totals beside them", () => {
    const day = usageDay(
      {
        subjectKey: "ada",
        date: "2027-01-01",
        runs: 2,
        succeeded: 1,
        rejected: 0,
        failed: 0,
        budgetExhausted: 1,
        byModel: {
          big: { inputTokens: 1_000_000, outputTokens: 100_000, calls: 4 },
          small: { inputTokens: 10, outputTokens: 5, calls: 1 },
        },
        reads: 7,
      },
      prices,
    );
    expect(day).toMatchObject({ llmCalls: 5, inputTokens: 1_000_010, outputTokens: 100_005, reads: 7 });
    expect(day.byModel.big?.estimatedCostUsd).toBe(4.5);
    expect(day.byModel.small?.estimatedCostUsd).toBeNull();
    expect(day.estimatedCostUsd).toBe(4.5);
  });

  it("stops at a token or a dollar budget once today's usage reaches it, not before", () => {
    const today = { big: { inputTokens: 600, outputTokens: 400, calls: 2 } };
    expect(budgetExceeded(today, { tokens: 1001 }, prices)).toBeNull();
    expect(budgetExceeded(today, { tokens: 1000 }, prices)).toMatch(/1000 tokens/);
    expect(budgetExceeded(today, { usd: 0.0078 }, prices)).toMatch(/USD/);
    expect(budgetExceeded(today, { usd: 0.0079 }, prices)).toBeNull();
    expect(
      budgetExceeded({ unknown: { inputTokens: 1e9, outputTokens: 0, calls: 1 } }, { usd: 1 }, prices),
    ).toBeNull();
    expect(nextUtcMidnight(new Date("2027-01-01T23:59:59Z")).toISOString()).toBe("2027-01-02T00:00:00.000Z");
  });

  it("reads MODEL_PRICES, the budgets and the retention from settings, and names a bad one", () => {
    const config = parseConfig({
      ...base,
      MODEL_PRICES: JSON.stringify(prices),
      DAILY_RUN_BUDGET_USD: "2.5",
      DAILY_TOKEN_BUDGET: "100000",
    });
    expect(config.usage).toEqual({ prices, daily: { usd: 2.5, tokens: 100_000 } });
    expect(config.audit.retentionDays).toBe(400);
    expect(parseConfig(base).usage).toEqual({ prices: {}, daily: {} });
    for (const [setting, value] of [
      ["MODEL_PRICES", "{not json"],
      ["MODEL_PRICES", '{"m":{"input":1}}'],
      ["DAILY_TOKEN_BUDGET", "1.5"],
      ["DAILY_RUN_BUDGET_USD", "-1"],
      ["AUDIT_RETENTION_DAYS", "0"],
    ] as const) {
      expect(() => parseConfig({ ...base, [setting]: value }), setting).toThrow(ConfigError);
    }
  });
});
