/** Sign-in codes' scheme: random codes of one shape, a hash that is not the code, a seal only its code opens. */
import { describe, expect, it } from "vitest";
import {
  newSignInCode,
  SIGN_IN_CODE_PATTERN,
  sealToken,
  signInCodeHash,
  unsealToken,
} from "../../src/domain/sign-in-codes";

describe("sign-in codes", () => {
  it("are 32 random bytes in base64url, a new one each time", () => {
    const codes = new Set(Array.from({ length: 50 }, newSignInCode));
    expect(codes.size).toBe(50);
    for (const code of codes) expect(code).toMatch(SIGN_IN_CODE_PATTERN);
  });

  it("are kept by their SHA-256, which does not contain the code", async () => {
    const code = newSignInCode();
    const hash = await signInCodeHash(code);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(await signInCodeHash(code));
    expect(hash).not.toContain(code);
  });

  it("seal a token that only the same code unseals, differently each time", async () => {
    const code = newSignInCode();
    const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl";
    const sealed = await sealToken(token, code);
    expect(sealed).not.toContain(token.split(".")[1]);
    expect(await sealToken(token, code)).not.toBe(sealed);
    expect(await unsealToken(sealed, code)).toBe(token);
    await expect(unsealToken(sealed, newSignInCode())).rejects.toThrow();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("AA") ? "BB" : "AA"}`;
    await expect(unsealToken(tampered, code)).rejects.toThrow();
  });
});
