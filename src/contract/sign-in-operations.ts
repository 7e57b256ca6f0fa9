/**
 * Signing in without a token in an address: a caller asks for a one-time sign-in code for the token they
 * present, and whoever opens the link exchanges the code for that token (app/sign-in.ts). Part of the
 * operation table (operations.ts).
 */
import { z } from "zod";
import { MAX_SESSION_SECONDS, SIGN_IN_CODE_PATTERN, SIGN_IN_CODE_TTL_SECONDS } from "../domain/sign-in-codes";
import { errorBody } from "./answers";
import { type Answer, operation } from "./operation";

const refusal = (description: string): Answer => ({ description, schema: errorBody });
const dateTime = z.iso.datetime({ offset: true });
const code = z.string().regex(SIGN_IN_CODE_PATTERN, "is not a sign-in code");

export const createSignInCode = operation({
  id: "createSignInCode",
  method: "POST",
  path: "/auth/sign-in-codes",
  access: "token",
  summary: "A one-time sign-in code for the presented token, to put in a sign-in link instead of the token",
  description:
    `The code can be exchanged once, within ${SIGN_IN_CODE_TTL_SECONDS / 60} minutes (sooner if the token ` +
    `expires sooner), for the token that asked for it; only a token that expires within ` +
    `${MAX_SESSION_SECONDS / 3600} hours is handed over. The service keeps the code's SHA-256 and the ` +
    "token sealed with a key derived from the code. A sign-in link is `/console/#code=<code>`.",
  answers: {
    201: {
      description: "The code and until when it can be exchanged",
      schema: z.object({ code: z.string(), expiresAt: dateTime }),
    },
    400: refusal(`The token expires more than ${MAX_SESSION_SECONDS / 3600} hours from now`),
  },
});

export const exchangeSignInCode = operation({
  id: "exchangeSignInCode",
  method: "POST",
  path: "/auth/exchange",
  access: "public",
  summary: "Exchange a sign-in code for its token; the first attempt spends the code",
  body: { schema: z.strictObject({ code }), required: true, maxBytes: 1024 },
  answers: {
    200: {
      description: "The token the code vouched for (a bearer token for the API)",
      schema: z.object({ token: z.string() }),
    },
    404: refusal("No such sign-in code"),
    410: refusal("The code was used already, or expired (sign_in_code_spent)"),
    422: refusal("The body is not { code } with a well-formed code"),
  },
});

export const signInOperations = [createSignInCode, exchangeSignInCode];
