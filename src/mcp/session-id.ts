/**
 * The stateless server's session id for clients of the older protocol era: their name and version arrive
 * only in `initialize`, so the answer to it carries them in `Mcp-Session-Id`, signed with a key derived
 * from the caller's bearer token; a later request's id is verified and names the client for the audit. No
 * state is kept: an id that does not verify (altered, or sent with another token) names nobody.
 */
import { safeAuditText } from "../domain/audit";
import { bytesFromBase64Url, bytesToBase64Url } from "../domain/base64url-bytes";

const PREFIX = "um1";
const MAX_NAME = 100;
const MAX_VERSION = 50;

export interface ClientInfo {
  name: string;
  version: string;
}

/** The session id naming `info`, for the answer to `initialize`. */
export async function sessionIdFor(token: string, info: ClientInfo): Promise<string> {
  const payload = bytesToBase64Url(
    new TextEncoder().encode(
      JSON.stringify({ n: safeAuditText(info.name, MAX_NAME), v: safeAuditText(info.version, MAX_VERSION) }),
    ),
  );
  return `${PREFIX}.${payload}.${bytesToBase64Url(await sign(token, payload))}`;
}

/** The client a request's session id names, when it verifies; null otherwise. */
export async function clientOfSessionId(token: string, sessionId: string | null): Promise<ClientInfo | null> {
  const [prefix, payload, signature, ...rest] = sessionId?.split(".") ?? [];
  if (prefix !== PREFIX || !payload || !signature || rest.length > 0 || sessionId!.length > 1000) return null;
  const expected = bytesToBase64Url(await sign(token, payload));
  if (!equalInConstantTime(expected, signature)) return null;
  try {
    const { n, v } = JSON.parse(new TextDecoder().decode(bytesFromBase64Url(payload))) as {
      n?: unknown;
      v?: unknown;
    };
    return typeof n === "string" && typeof v === "string" ? { name: n, version: v } : null;
  } catch {
    return null;
  }
}

async function sign(token: string, payload: string): Promise<Uint8Array> {
  const material = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`mcp-session\u001f${token}`),
  );
  const key = await crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload)));
}

function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
