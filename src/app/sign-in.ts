/**
 * Sign-in links without a token in them: a caller turns the token they present into a one-time, ten-minute
 * code, and the console exchanges the code for that token (domain/sign-in-codes.ts). Only a token that
 * expires within MAX_SESSION_SECONDS is handed over, so a console session is bounded whoever made the link.
 */
import { AppError } from "../domain/errors";
import {
  MAX_SESSION_SECONDS,
  newSignInCode,
  SIGN_IN_CODE_TTL_SECONDS,
  sealToken,
  signInCodeHash,
  unsealToken,
} from "../domain/sign-in-codes";
import type { Caller } from "./caller";
import type { Services } from "./services";

/** The presented bearer token and when it expires (verified by authentication). */
export interface PresentedToken {
  token: string;
  expiresAt: Date;
}

/** A new code for the caller's own token, and until when it can be exchanged. */
export async function createSignInCode(
  services: Services,
  caller: Caller,
  presented: PresentedToken,
): Promise<{ code: string; expiresAt: Date }> {
  const now = services.clock.now().getTime();
  const lifetime = presented.expiresAt.getTime() - now;
  if (lifetime > MAX_SESSION_SECONDS * 1000) {
    throw new AppError(
      "bad_request",
      `A sign-in code hands over the token that asks for it, and only a token that expires within ` +
        `${MAX_SESSION_SECONDS / 3600} hours; this one expires at ${presented.expiresAt.toISOString()}. ` +
        "Ask with a shorter-lived token.",
    );
  }
  const code = newSignInCode();
  const expiresAt = new Date(Math.min(now + SIGN_IN_CODE_TTL_SECONDS * 1000, presented.expiresAt.getTime()));
  await services.signInCodes.create({
    hash: await signInCodeHash(code),
    subjectKey: caller.subjectKey,
    sealedToken: await sealToken(presented.token, code),
    expiresAt,
  });
  return { code, expiresAt };
}

/** The token a code vouches for; the code is spent by the first attempt, whatever its outcome. */
export async function exchangeSignInCode(services: Services, code: string): Promise<{ token: string }> {
  const redemption = await services.signInCodes.redeem(await signInCodeHash(code), services.clock.now());
  switch (redemption.outcome) {
    case "redeemed":
      return { token: await unsealToken(redemption.sealedToken, code) };
    case "unknown":
      throw new AppError("not_found", "No such sign-in code");
    case "used":
      throw new AppError("sign_in_code_spent", "This sign-in code was already used: each works once");
    case "expired":
      throw new AppError(
        "sign_in_code_spent",
        `This sign-in code expired: each works for ${SIGN_IN_CODE_TTL_SECONDS / 60} minutes`,
      );
  }
}
