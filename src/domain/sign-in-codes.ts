/**
 * Sign-in codes: a sign-in link carries a one-time code instead of a token, so what a browser keeps in its
 * history is spent within minutes. A code is a ten-minute voucher for the token that asked for it (a token
 * that expires within MAX_SESSION_SECONDS): the store keeps the code's SHA-256 and the token sealed with a
 * key derived from the code (AES-GCM), so neither the table nor the code alone is a credential, and the
 * exchange spends the code once. The port, the code scheme and the sealing (Web Crypto only).
 */

import { bytesFromBase64Url, bytesToBase64Url } from "./base64url-bytes";
import { sha256Hex } from "./sha256";

/** How long a code can be exchanged. */
export const SIGN_IN_CODE_TTL_SECONDS = 10 * 60;
/** The longest a token handed over by a code may still live: the console's session. */
export const MAX_SESSION_SECONDS = 12 * 3600;
/** 32 random bytes, unpadded base64url. */
export const SIGN_IN_CODE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What spending a code found: its sealed token, or why there is none. */
export type Redemption =
  | { outcome: "redeemed"; sealedToken: string }
  | { outcome: "unknown" | "used" | "expired" };

export interface SignInCodes {
  /** Stores a new code by its hash, for the subject, holding the sealed token until `expiresAt`. */
  create(code: { hash: string; subjectKey: string; sealedToken: string; expiresAt: Date }): Promise<void>;
  /**
   * Spends the code with this hash: at most one call ever gets its sealed token, also when several race;
   * any attempt marks it used and forgets the sealed token (an expired code's too).
   */
  redeem(hash: string, now: Date): Promise<Redemption>;
}

const encoder = new TextEncoder();

export const newSignInCode = (): string => bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));

/** What the store keys a code by: SHA-256 of the code, hex. */
export const signInCodeHash = (code: string): Promise<string> => sha256Hex(code);

/** The AES-GCM key a code seals its token with (HKDF of the code: not its stored hash). */
async function sealingKey(code: string) {
  const material = await crypto.subtle.importKey("raw", encoder.encode(code), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new Uint8Array(0),
      info: encoder.encode("unified-memory sign-in"),
    },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** The token sealed with the code: base64url of a random 12-byte IV and the ciphertext. */
export async function sealToken(token: string, code: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    await sealingKey(code),
    encoder.encode(token),
  );
  return bytesToBase64Url(new Uint8Array([...iv, ...new Uint8Array(sealed)]));
}

/** The token a code sealed; throws when the code is not the one that sealed it. */
export async function unsealToken(sealed: string, code: string): Promise<string> {
  const bytes = bytesFromBase64Url(sealed);
  const opened = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12) },
    await sealingKey(code),
    bytes.slice(12),
  );
  return new TextDecoder().decode(opened);
}
