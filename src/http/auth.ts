/**
 * Bearer-token authentication. Two modes, chosen by configuration:
 * - `hs256`: tokens signed with a shared secret; `alg` pinned to HS256.
 * - `jwks`: tokens signed by an identity provider's keys (RS256 or ES256 only, never a symmetric
 *   algorithm), fetched from its JWKS URL and cached per isolate; issuer and audience are required.
 * The caller is the token's `sub`; scopes come from the `scope` claim (space-separated string or array).
 */
import type { Context, MiddlewareHandler } from "hono";
import { decode, verify, verifyWithJwks } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import type { JWTPayload } from "hono/utils/jwt/types";
import { type Caller, requireScope as checkScope, SCOPES, type Scope } from "../app/caller";
import type { Auth } from "../config/config";
import { AppError } from "../domain/errors";
import { DEFAULT_WORKSPACE, nameProblem, userKey } from "../domain/workspaces";
import { admitMember } from "../memory/cached-membership";
import type { AppEnv } from "./context";
import { protectedResourceMetadataUrl } from "./protected-resource";

const JWKS_ALGORITHMS = ["RS256", "ES256"] as const;
const JWKS_TTL_MS = 10 * 60_000;
/** An unknown `kid` refetches the key set at most this often (key rotation without a fetch storm). */
const JWKS_REFETCH_MIN_MS = 30_000;

export interface AuthenticateOptions {
  /** Where the auth settings come from; defaults to the request's parsed config. */
  auth?: Auth | ((c: Context<AppEnv>) => Auth);
  /** Check (and register) workspace membership through services.workspaces; on unless turned off. */
  membership?: boolean;
  /**
   * True for a request that will read the caller's own memory (GET /memory): their memory's cache entry is
   * read together with their admission (one cache round trip) and set as `ownMemoryEntry`.
   */
  readsOwnMemory?: (c: Context<AppEnv>) => boolean;
}

/**
 * Verifies the bearer token and sets `caller` ({ userId, workspaceId, key, scopes }); 401 `unauthorized`
 * otherwise. Then the workspace admits the caller: a first call registers them as a member, and a member
 * an admin removed is refused with 403 until added back. An active member's admission is answered from
 * the edge cache when it holds it (no database round trip; memory/cached-membership.ts), and the cached
 * entry, with the member's teams, is set as `membership` for the routes (null on a miss). With
 * `readsOwnMemory`, the same cache read fetches the caller's memory entry, set as `ownMemoryEntry` for this
 * request's readMemory (so a GET /memory hit is one cache read, not two).
 */
export function authenticate(options: AuthenticateOptions = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth =
      typeof options.auth === "function" ? options.auth(c) : (options.auth ?? c.get("services").config.auth);
    const token = bearerToken(c.req.header("authorization"));
    if (!token) throw unauthorized(c, auth, "Missing bearer token", false);
    const payload = await verifyToken(token, auth).catch((err: unknown) => {
      if (err instanceof AppError) throw err;
      throw unauthorized(c, auth, "Invalid or expired token");
    });
    const caller = callerFrom(c, auth, payload);
    if (options.membership !== false) {
      const memoryOf = options.readsOwnMemory?.(c) ? caller.subjectKey : undefined;
      const { admitted, membership, memory } = await admitMember(
        c.get("services"),
        caller.workspaceId,
        caller.userId,
        memoryOf,
      );
      if (admitted === "removed") {
        throw new AppError("forbidden", "You were removed from this workspace; an admin can add you back");
      }
      c.set("membership", membership);
      if (memoryOf !== undefined && memory !== undefined) {
        c.set("ownMemoryEntry", { subject: memoryOf, memory });
      }
    }
    c.set("caller", caller);
    await next();
  };
}

/** 403 `forbidden` unless the caller holds `scope` (or `admin`, which implies every scope). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.get("caller");
    if (!caller) throw new AppError("unauthorized", "Not authenticated");
    checkScope(caller, scope);
    await next();
  };
}

/**
 * The bearer token of a request that authenticate() admitted, and when it expires (its `exp`, which
 * authentication requires).
 */
export function presentedToken(c: Context<AppEnv>): { token: string; expiresAt: Date } {
  const token = bearerToken(c.req.header("authorization"));
  const exp = token === null ? undefined : decode(token).payload.exp;
  if (token === null || typeof exp !== "number") throw new AppError("unauthorized", "Not authenticated");
  return { token, expiresAt: new Date(exp * 1000) };
}

function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer[ ]+([A-Za-z0-9_.~+/=-]+)\s*$/i);
  return match?.[1] ?? null;
}

async function verifyToken(token: string, auth: Auth): Promise<JWTPayload> {
  if (auth.kind === "hs256") {
    return verify(token, await hmacKey(auth.secret), {
      alg: "HS256",
      ...(auth.issuer ? { iss: auth.issuer } : {}),
      ...(auth.audience ? { aud: auth.audience } : {}),
    });
  }
  return verifyJwks(token, auth);
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

/** The HS256 secret as a verification key, imported once per isolate (not on every request). */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    hmacKeys.set(secret, key);
  }
  return key;
}

async function verifyJwks(token: string, auth: Extract<Auth, { kind: "jwks" }>): Promise<JWTPayload> {
  const verification = { iss: auth.issuer, aud: auth.audience };
  const keys = await jwksKeys(auth.jwksUrl, tokenKid(token));
  return verifyWithJwks(token, { keys, verification, allowedAlgorithms: JWKS_ALGORITHMS });
}

/** The header's `kid`, only to decide whether the cached key set is current; verification comes after. */
function tokenKid(token: string): string | undefined {
  const kid: unknown = decode(token).header.kid;
  return typeof kid === "string" ? kid : undefined;
}

interface CachedJwks {
  keys: HonoJsonWebKey[];
  fetchedAt: number;
}

const jwksCache = new Map<string, CachedJwks>();

/** The key set for `url`, cached per isolate; refetched when stale or when it lacks `kid` (rotation). */
async function jwksKeys(url: string, kid: string | undefined): Promise<HonoJsonWebKey[]> {
  const now = Date.now();
  const cached = jwksCache.get(url);
  const fresh = cached && now - cached.fetchedAt < JWKS_TTL_MS;
  const knowsKid = cached && (kid === undefined || cached.keys.some((k) => k.kid === kid));
  const mayRefetch = !cached || now - cached.fetchedAt >= JWKS_REFETCH_MIN_MS;
  if (cached && fresh && (knowsKid || !mayRefetch)) return cached.keys;

  let keys: HonoJsonWebKey[];
  try {
    const res = await fetch(url, { headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`JWKS answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error("JWKS has no keys array");
    keys = body.keys.filter((k): k is HonoJsonWebKey => typeof k === "object" && k !== null);
  } catch (err) {
    if (cached) return cached.keys;
    throw new AppError(
      "auth_unavailable",
      "The token issuer's keys could not be fetched; try again shortly.",
      {
        retryAfterSeconds: 5,
        retryable: true,
        cause: err,
      },
    );
  }
  jwksCache.set(url, { keys, fetchedAt: now });
  return keys;
}

function callerFrom(c: Context<AppEnv>, auth: Auth, payload: JWTPayload): Caller {
  const sub = payload.sub;
  const subProblem = nameProblem(sub, "user");
  if (subProblem !== null) {
    throw unauthorized(c, auth, `Token has no usable subject: its "sub" ${subProblem}`);
  }
  if (typeof payload.exp !== "number") throw unauthorized(c, auth, "Token has no expiry");
  const claim = payload[auth.workspaceClaim];
  const workspaceId = claim === undefined || claim === null || claim === "" ? DEFAULT_WORKSPACE : claim;
  const workspaceProblem = nameProblem(workspaceId, "workspace");
  if (workspaceProblem !== null) {
    throw unauthorized(
      c,
      auth,
      `Token's "${auth.workspaceClaim}" claim is not a usable workspace id: it ${workspaceProblem}`,
    );
  }
  const userId = sub as string;
  const workspace = workspaceId as string;
  const claimed = payload[auth.emailClaim ?? "email"];
  const email = typeof claimed === "string" && payload.email_verified !== false ? claimed : null;
  return {
    userId,
    workspaceId: workspace,
    subjectKey: userKey(workspace, userId),
    scopes: parseScopes(payload.scope ?? payload.scp),
    ...(email === null ? {} : { email }),
  };
}

function parseScopes(claim: unknown): Set<Scope> {
  const values =
    typeof claim === "string"
      ? claim.split(/\s+/)
      : Array.isArray(claim)
        ? claim.filter((s): s is string => typeof s === "string")
        : [];
  return new Set(SCOPES.filter((scope) => values.includes(scope)));
}

/**
 * RFC 6750: a challenge on every 401; `invalid_token` only when a token was presented; RFC 9728
 * `resource_metadata` when an authorization server is configured (JWKS mode).
 */
function unauthorized(c: Context<AppEnv>, auth: Auth, message: string, presented = true): AppError {
  const params = presented ? ['error="invalid_token"'] : [];
  const metadataUrl = protectedResourceMetadataUrl(c, auth);
  if (metadataUrl) params.push(`resource_metadata="${metadataUrl}"`);
  c.header("WWW-Authenticate", params.length > 0 ? `Bearer ${params.join(", ")}` : "Bearer");
  return new AppError("unauthorized", message);
}
