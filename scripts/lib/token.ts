/** Signs development tokens (HS256), the same way a real issuer would for the `hs256` auth mode. */
import { createHmac } from "node:crypto";
import { MAX_SESSION_SECONDS } from "../../src/domain/sign-in-codes";
import { readDevVars } from "./dev-secret";

export const ALL_SCOPES = ["memory:read", "items:write", "admin"] as const;

/** The claim the service reads the workspace from when AUTH_WORKSPACE_CLAIM is not set. */
export const DEFAULT_WORKSPACE_CLAIM = "org_id";

export interface DevTokenOptions {
  /** Lifetime (default 30 days). */
  ttlSeconds?: number;
  /** The workspace the token acts in; absent: no claim, i.e. the service's default workspace. */
  workspace?: string;
  /** The claim that carries `workspace` (default: devWorkspaceClaim()). */
  workspaceClaim?: string;
}

const b64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

/**
 * The claim the local service reads the workspace from: AUTH_WORKSPACE_CLAIM from the environment or
 * .dev.vars (as for the secret), else `org_id`.
 */
export function devWorkspaceClaim(): string {
  return process.env.AUTH_WORKSPACE_CLAIM || readDevVars().AUTH_WORKSPACE_CLAIM || DEFAULT_WORKSPACE_CLAIM;
}

export function signDevToken(
  secret: string,
  userId: string,
  scopes: readonly string[] = ALL_SCOPES,
  options: DevTokenOptions = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const ttlSeconds = options.ttlSeconds ?? 30 * 24 * 3600;
  const claims: Record<string, unknown> = {
    sub: userId,
    scope: scopes.join(" "),
    iat: now,
    exp: now + ttlSeconds,
  };
  if (options.workspace !== undefined) {
    claims[options.workspaceClaim ?? devWorkspaceClaim()] = options.workspace;
  }
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify(claims));
  const signature = createHmac("sha256", secret).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

/**
 * A console sign-in link for `userId`: a token of `scopes` that lives as long as a console session may
 * (12 hours, less a minute for clock skew) is turned into a one-time, ten-minute code by the service at
 * `url`; the link carries the code, never the token.
 */
export async function signInLink(
  url: string,
  secret: string,
  userId: string,
  scopes: readonly string[] = ALL_SCOPES,
  options: Omit<DevTokenOptions, "ttlSeconds"> = {},
): Promise<string> {
  const token = signDevToken(secret, userId, scopes, { ...options, ttlSeconds: MAX_SESSION_SECONDS - 60 });
  const res = await fetch(`${url}/auth/sign-in-codes`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 201) {
    throw new Error(`${url} answered ${res.status} to POST /auth/sign-in-codes: ${await res.text()}`);
  }
  const { code } = (await res.json()) as { code: string };
  return `${url}/console/#code=${code}`;
}
