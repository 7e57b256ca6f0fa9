/**
 * Sign-in codes through the worker: a code is exchanged for the token that asked for it exactly once, also
 * when exchanges race (a row lock, so this file runs on PostgreSQL too); a used, expired, unknown or
 * malformed code is a clear 4xx; the table holds the code's hash and the token sealed, never either in the
 * clear; a long-lived token gets no code; an erase takes the caller's codes with it.
 */
import { env, exports } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/config";
import { createDb } from "../src/db/client";
import { signInCodeHash } from "../src/domain/sign-in-codes";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { warmUpWorker } from "./support/items";

const db = createDb(parseConfig(env));

const post = (path: string, body: unknown, token?: string) =>
  exports.default.fetch(`http://local${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

const exchange = (code: unknown) => post("/auth/exchange", { code });

async function codeFor(token: string): Promise<{ code: string; expiresAt: string }> {
  const res = await post("/auth/sign-in-codes", {}, token);
  expect(res.status).toBe(201);
  return (await res.json()) as { code: string; expiresAt: string };
}

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, code: error.code, message: error.message };
}

const rowOf = async (code: string) =>
  (
    await db.execute<{ owner_id: string; sealed_token: string | null; used: boolean | string }>(
      sql`select owner_id, sealed_token, used_at is not null as used from sign_in_codes
          where code_hash = ${await signInCodeHash(code)}`,
    )
  ).rows[0];

beforeAll(warmUpWorker);

describe("sign-in codes", () => {
  it("exchanges a code once for the token that asked for it, which then reads the API", async () => {
    const user = newUserId("sign-in");
    const token = await tokenFor(user, [...READ_WRITE, "admin"]);
    const { code, expiresAt } = await codeFor(token);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Ten minutes at most (here the token's own ten minutes).
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);

    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const session = ((await first.json()) as { token: string }).token;
    expect(session).toBe(token);
    const teams = await exports.default.fetch("http://local/teams", {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(teams.status).toBe(200);

    expect(await errorOf(await exchange(code))).toEqual({
      status: 410,
      code: "sign_in_code_spent",
      message: "This sign-in code was already used: each works once",
    });
  });

  it("keeps the code's hash and the token sealed, and forgets the sealed token once the code is used", async () => {
    const user = newUserId("sign-in-stored");
    const token = await tokenFor(user);
    const { code } = await codeFor(token);
    const stored = await rowOf(code);
    expect(stored?.owner_id).toBe(user);
    expect(stored?.sealed_token).toEqual(expect.any(String));
    const everything = JSON.stringify(
      (await db.execute(sql`select * from sign_in_codes where owner_id = ${user}`)).rows,
    );
    expect(everything).not.toContain(code);
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(token.split(".")[1]);

    expect((await exchange(code)).status).toBe(200);
    expect(await rowOf(code)).toMatchObject({ sealed_token: null });
  });

  it("spends a code once when exchanges race: one gets the token, the others a 410", async () => {
    const token = await tokenFor(newUserId("sign-in-race"));
    const { code } = await codeFor(token);
    const answers = await Promise.all(Array.from({ length: 6 }, () => exchange(code)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 410, 410, 410, 410, 410]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(((await winner.json()) as { token: string }).token).toBe(token);
  });

  it("refuses an expired code with a 410, and the code stays refused", async () => {
    const { code } = await codeFor(await tokenFor(newUserId("sign-in-expired")));
    await db.execute(
      sql`update sign_in_codes set expires_at = now() - interval '1 second'
          where code_hash = ${await signInCodeHash(code)}`,
    );
    const expired = await errorOf(await exchange(code));
    expect(expired).toMatchObject({ status: 410, code: "sign_in_code_spent" });
    expect(expired.message).toContain("expired");
    expect(await rowOf(code)).toMatchObject({ sealed_token: null });
    expect((await exchange(code)).status).toBe(410);
  });

  it("refuses an unknown code with a 404 and a malformed one with a 422", async () => {
    expect(await errorOf(await exchange("A".repeat(43)))).toMatchObject({ status: 404, code: "not_found" });
    for (const bad of ["short", `${"A".repeat(43)}\n`, `${"A".repeat(42)}=`, 42, null]) {
      expect((await exchange(bad)).status).toBe(422);
    }
    expect((await post("/auth/exchange", { code: "A".repeat(43), token: "x" })).status).toBe(422);
  });

  it("gives no code without a token, nor for a token that lives longer than a console session", async () => {
    expect((await post("/auth/sign-in-codes", {})).status).toBe(401);
    const now = Math.floor(Date.now() / 1000);
    const longLived = await tokenFor(newUserId("sign-in-long"), READ_WRITE, { exp: now + 30 * 86_400 });
    const refused = await errorOf(await post("/auth/sign-in-codes", {}, longLived));
    expect(refused).toMatchObject({ status: 400, code: "bad_request" });
    expect(refused.message).toContain("12 hours");
    expect(refused.message).not.toContain(longLived);
    const session = await tokenFor(newUserId("sign-in-session"), READ_WRITE, { exp: now + 12 * 3600 - 60 });
    expect((await post("/auth/sign-in-codes", {}, session)).status).toBe(201);
  });

  it("takes the caller's unused codes with an erase", async () => {
    const user = newUserId("sign-in-erase");
    const token = await tokenFor(user);
    const { code } = await codeFor(token);
    const erased = await exports.default.fetch("http://local/me", {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(erased.status).toBe(204);
    expect(await rowOf(code)).toBeUndefined();
    expect((await exchange(code)).status).toBe(404);
  });
});
