import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("GET /health", () => {
  it("answers ok when the database answers", async () => {
    const res = await exports.default.fetch("http://local/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ok",
      database: "ok",
      embedder: { status: "not_configured" },
      llm: { status: "configured", fake: false },
      search: { modes: ["keyword"], default: "keyword" },
    });
  });

  it("answers 404 with the error envelope for an unknown route", async () => {
    const res = await exports.default.fetch("http://local/nope");
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code).toBe("not_found");
    expect(body.error.requestId).toEqual(expect.any(String));
  });
});
