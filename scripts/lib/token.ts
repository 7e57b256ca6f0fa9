/** Signs development tokens (HS256), the same way a real issuer would for the `hs256` auth mode. */
import { createHmac } from "node:crypto";

export const ALL_SCOPES = ["memory:read", "items:write", "admin"] as const;

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

export function signDevToken(
  secret: string,
  userId: string,
  scopes: readonly string[] = ALL_SCOPES,
  ttlSeconds = 30 * 24 * 3600,
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = b64url(
    JSON.stringify({ sub: userId, scope: scopes.join(" "), iat: now, exp: now + ttlSeconds }),
  );
  const signature = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}
