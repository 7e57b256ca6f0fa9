import { env, exports } from "cloudflare:workers";
import { Hono } from "hono";
import { sign } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { errorModel } from "../src/composition";
import type { Auth } from "../src/config/config";
import { authenticate, requireScope } from "../src/http/auth";
import type { AppEnv } from "../src/http/context";
import { errorResponse } from "../src/http/errors";
import { newUserId, tokenFor } from "./support/auth";
import { warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

const SECRET = String(env.AUTH_JWT_SECRET);
const now = () => Math.floor(Date.now() / 1000);
const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Calls the real worker's GET /items with an Authorization header. */
const callWorker = (authorization?: string) =>
  exports.default.fetch("http://local/items", { headers: authorization ? { authorization } : {} });

const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; requestId: string } }).error;

/** A small app with the same middleware and error mapping, for auth settings the test worker does not use. */
function appWith(auth: Auth) {
  const app = new Hono<AppEnv>();
  app.use(authenticate({ auth, membership: false }));
  app.get("/whoami", requireScope("memory:read"), (c) => {
    const caller = c.get("caller");
    return c.json({ userId: caller.userId, scopes: [...caller.scopes].sort() });
  });
  app.onError((err, c) => errorResponse(err, c, errorModel));
  return (token: string) => app.request("/whoami", { headers: { authorization: `Bearer ${token}` } });
}

async function rsaKey(kid: string) {
  const pair = (await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const privateJwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as HonoJsonWebKey;
  const publicJwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as HonoJsonWebKey;
  return {
    privateJwk: { ...privateJwk, kid, alg: "RS256" },
    publicJwk: { ...publicJwk, kid, alg: "RS256", use: "sig" },
  };
}

async function ecKey(kid: string) {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const privateJwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as HonoJsonWebKey;
  const publicJwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as HonoJsonWebKey;
  return { privateJwk: { ...privateJwk, kid, alg: "ES256" }, publicJwk: { ...publicJwk, kid, alg: "ES256" } };
}

async function publishJwks(name: string, keys: HonoJsonWebKey[]): Promise<string> {
  const url = `${inject("jwksServerUrl")}/jwks/${name}`;
  const res = await fetch(url, { method: "PUT", body: JSON.stringify({ keys }) });
  expect(res.status).toBe(204);
  return url;
}

const claims = (userId: string, extra: Record<string, unknown> = {}) => ({
  sub: userId,
  scope: "memory:read",
  iat: now(),
  exp: now() + 300,
  ...extra,
});

describe("authentication with the HS256 secret (the test worker's setting)", () => {
  it("accepts a valid token and makes its subject the caller", async () => {
    const res = await callWorker(`Bearer ${await tokenFor(newUserId(), ["memory:read"])}`);
    expect(res.status).toBe(200);
  });

  it("answers 401 with the error envelope when the token is missing or not a bearer token", async () => {
    for (const header of [
      undefined,
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer not.a.jwt.at.all",
      "Bearer abc",
    ]) {
      const res = await callWorker(header);
      expect(res.status, String(header)).toBe(401);
      const error = await errorOf(res);
      expect(error.code).toBe("unauthorized");
      expect(error.requestId).toEqual(expect.any(String));
      expect(res.headers.get("www-authenticate")).toBe(
        header?.startsWith("Bearer ") ? 'Bearer error="invalid_token"' : "Bearer",
      );
    }
  });

  it("answers 401 for a bad signature, an expired token or one not valid yet", async () => {
    const user = newUserId();
    const otherSecret = await sign(claims(user), "another-secret-that-is-long-enough-0123456789", "HS256");
    const expired = await tokenFor(user, ["memory:read"], { exp: now() - 10 });
    const notYet = await tokenFor(user, ["memory:read"], { nbf: now() + 3600 });
    const valid = await tokenFor(user, ["memory:read"]);
    const [h, p] = valid.split(".");
    const tampered = `${h}.${b64url(JSON.stringify({ ...claims(newUserId()), scope: "admin" }))}.${valid.split(".")[2]}`;
    for (const token of [otherSecret, expired, notYet, tampered, `${h}.${p}.`]) {
      const res = await callWorker(`Bearer ${token}`);
      expect(res.status, token).toBe(401);
      expect((await errorOf(res)).code).toBe("unauthorized");
    }
  });

  it("answers 401 for a token without a subject or without an expiry", async () => {
    const noSub = await sign({ scope: "memory:read", exp: now() + 60 }, SECRET, "HS256");
    const emptySub = await sign({ sub: " ", scope: "memory:read", exp: now() + 60 }, SECRET, "HS256");
    const noExp = await sign({ sub: newUserId(), scope: "memory:read" }, SECRET, "HS256");
    for (const token of [noSub, emptySub, noExp])
      expect((await callWorker(`Bearer ${token}`)).status).toBe(401);
  });

  it('answers 401 for an unsigned token (alg "none")', async () => {
    const header = b64url(JSON.stringify({ alg: "none", typ: "JWT" }));
    const token = `${header}.${b64url(JSON.stringify(claims(newUserId())))}.`;
    expect((await callWorker(`Bearer ${token}`)).status).toBe(401);
  });

  it("answers 401 for a token signed RS256 (algorithm confusion), even with a valid RSA signature", async () => {
    const { privateJwk } = await rsaKey("k1");
    const token = await sign(claims(newUserId()), privateJwk, "RS256");
    expect((await callWorker(`Bearer ${token}`)).status).toBe(401);
  });

  it("answers 403 forbidden for a missing scope, and admin implies every scope", async () => {
    const user = newUserId();
    const writeOnly = await callWorker(`Bearer ${await tokenFor(user, ["items:write"])}`);
    expect(writeOnly.status).toBe(403);
    expect((await errorOf(writeOnly)).code).toBe("forbidden");
    expect((await callWorker(`Bearer ${await tokenFor(user, [])}`)).status).toBe(403);
    expect((await callWorker(`Bearer ${await tokenFor(user, ["admin"])}`)).status).toBe(200);
  });

  it("reads scopes from a space-separated string or an array, ignoring unknown ones", async () => {
    const call = appWith({ kind: "hs256", secret: SECRET, workspaceClaim: "org_id" });
    const user = newUserId();
    const asArray = await sign(
      claims(user, { scope: ["memory:read", "items:write", "openid"] }),
      SECRET,
      "HS256",
    );
    expect(await (await call(asArray)).json()).toEqual({
      userId: user,
      scopes: ["items:write", "memory:read"],
    });
    const asString = await sign(claims(user, { scope: "openid memory:read  profile" }), SECRET, "HS256");
    expect(await (await call(asString)).json()).toEqual({ userId: user, scopes: ["memory:read"] });
  });

  it("checks issuer and audience when they are configured", async () => {
    const call = appWith({
      kind: "hs256",
      secret: SECRET,
      issuer: "https://id.example",
      audience: "unified-memory",
      workspaceClaim: "org_id",
    });
    const user = newUserId();
    const good = await sign(
      claims(user, { iss: "https://id.example", aud: "unified-memory" }),
      SECRET,
      "HS256",
    );
    expect((await call(good)).status).toBe(200);
    const listed = await sign(
      claims(user, { iss: "https://id.example", aud: ["other", "unified-memory"] }),
      SECRET,
    );
    expect((await call(listed)).status).toBe(200);
    for (const extra of [
      { iss: "https://id.example", aud: "someone-else" },
      { iss: "https://id.example" },
      { iss: "https://evil.example", aud: "unified-memory" },
      { aud: "unified-memory" },
    ]) {
      const res = await call(await sign(claims(user, extra), SECRET, "HS256"));
      expect(res.status, JSON.stringify(extra)).toBe(401);
      expect((await errorOf(res)).code).toBe("unauthorized");
    }
  });
});

describe("authentication with a JWKS URL", () => {
  const issuer = "https://id.example";
  const audience = "unified-memory";

  it("accepts RS256 and ES256 tokens signed by keys in the set", async () => {
    const rsa = await rsaKey("rsa-1");
    const ec = await ecKey("ec-1");
    const jwksUrl = await publishJwks(`ok-${crypto.randomUUID()}`, [rsa.publicJwk, ec.publicJwk]);
    const call = appWith({ kind: "jwks", jwksUrl, issuer, audience, workspaceClaim: "org_id" });
    const user = newUserId();
    for (const key of [rsa.privateJwk, ec.privateJwk]) {
      const token = await sign(claims(user, { iss: issuer, aud: audience }), key);
      const res = await call(token);
      expect(res.status, key.alg).toBe(200);
      expect(await res.json()).toEqual({ userId: user, scopes: ["memory:read"] });
    }
  });

  it("answers 401 for the wrong audience or issuer, an unknown key, or a key it did not sign with", async () => {
    const rsa = await rsaKey("rsa-1");
    const stranger = await rsaKey("rsa-1");
    const jwksUrl = await publishJwks(`bad-${crypto.randomUUID()}`, [rsa.publicJwk]);
    const call = appWith({ kind: "jwks", jwksUrl, issuer, audience, workspaceClaim: "org_id" });
    const user = newUserId();
    const tokens = [
      await sign(claims(user, { iss: issuer, aud: "other-api" }), rsa.privateJwk),
      await sign(claims(user, { iss: "https://evil.example", aud: audience }), rsa.privateJwk),
      await sign(claims(user, { iss: issuer, aud: audience }), { ...rsa.privateJwk, kid: "unknown" }),
      await sign(claims(user, { iss: issuer, aud: audience }), stranger.privateJwk),
      await sign(claims(user, { iss: issuer, aud: audience, exp: now() - 5 }), rsa.privateJwk),
    ];
    for (const token of tokens) {
      const res = await call(token);
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe("unauthorized");
    }
  });

  it("answers 401 for an HS256 token signed with the public key (algorithm confusion) and for alg none", async () => {
    const rsa = await rsaKey("rsa-1");
    const jwksUrl = await publishJwks(`confusion-${crypto.randomUUID()}`, [rsa.publicJwk]);
    const call = appWith({ kind: "jwks", jwksUrl, issuer, audience, workspaceClaim: "org_id" });
    const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: "rsa-1" }));
    const payload = b64url(JSON.stringify(claims(newUserId(), { iss: issuer, aud: audience })));
    const hmacKey = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(JSON.stringify(rsa.publicJwk)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(`${header}.${payload}`));
    const signature = b64url(String.fromCharCode(...new Uint8Array(mac)));
    expect((await call(`${header}.${payload}.${signature}`)).status).toBe(401);
    const none = b64url(JSON.stringify({ alg: "none", kid: "rsa-1" }));
    expect((await call(`${none}.${payload}.`)).status).toBe(401);
  });

  it("caches the key set, so a token keeps verifying while the endpoint changes", async () => {
    const rsa = await rsaKey("rsa-1");
    const name = `cache-${crypto.randomUUID()}`;
    const jwksUrl = await publishJwks(name, [rsa.publicJwk]);
    const call = appWith({ kind: "jwks", jwksUrl, issuer, audience, workspaceClaim: "org_id" });
    const token = await sign(claims(newUserId(), { iss: issuer, aud: audience }), rsa.privateJwk);
    expect((await call(token)).status).toBe(200);
    await publishJwks(name, []);
    expect((await call(token)).status).toBe(200);
  });

  it("answers 503 auth_unavailable when the key set cannot be fetched", async () => {
    const rsa = await rsaKey("rsa-1");
    const call = appWith({
      kind: "jwks",
      jwksUrl: `${inject("jwksServerUrl")}/jwks/never-published-${crypto.randomUUID()}`,
      issuer,
      audience,
      workspaceClaim: "org_id",
    });
    const res = await call(await sign(claims(newUserId(), { iss: issuer, aud: audience }), rsa.privateJwk));
    expect(res.status).toBe(503);
    expect((await errorOf(res)).code).toBe("auth_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
  });
});
