/** Tokens for tests, signed like a real issuer would (hono's jwt `sign`) with the worker's test secret. */
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import type { JWTPayload } from "hono/utils/jwt/types";

export const READ_WRITE = ["memory:read", "items:write"] as const;

/** A fresh user id: tests share one database, so every test makes its own users. */
export const newUserId = (label = "user") => `${label}-${crypto.randomUUID()}`;

export async function tokenFor(
  userId: string,
  scopes: readonly string[] = READ_WRITE,
  claims: Partial<JWTPayload> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { sub: userId, scope: scopes.join(" "), iat: now, exp: now + 600, ...claims };
  return sign(payload, String(env.AUTH_JWT_SECRET), "HS256");
}

export async function bearer(
  userId: string,
  scopes: readonly string[] = READ_WRITE,
): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await tokenFor(userId, scopes)}` };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the JWKS endpoint started in global setup (PUT/GET /jwks/<name>). */
    jwksServerUrl: string;
  }
}
