/** Signs development tokens (HS256), the same way a real issuer would for the `hs256` auth mode. */
import { createHmac } from "node:crypto";
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
