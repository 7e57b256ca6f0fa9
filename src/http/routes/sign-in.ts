/**
 * POST /auth/sign-in-codes → 201 { code, expiresAt }: a one-time code for the presented token;
 * POST /auth/exchange { code } → { token }: the token, once (app/sign-in.ts).
 */
import { createSignInCode, exchangeSignInCode } from "../../app/sign-in";
import * as op from "../../contract/operations";
import { presentedToken } from "../auth";
import { route } from "../operation-routes";
import { validBody } from "../validation";

export const signInRoutes = [
  route(op.createSignInCode, async (c) => {
    const created = await createSignInCode(c.get("services"), c.get("caller"), presentedToken(c));
    return c.json({ code: created.code, expiresAt: created.expiresAt.toISOString() }, 201);
  }),

  route(op.exchangeSignInCode, async (c, { body }) => {
    const { code } = validBody(op.exchangeSignInCode.body.schema, body, { key: "issues" });
    // The answer holds a credential: no cache may keep it.
    c.header("Cache-Control", "no-store");
    return c.json(await exchangeSignInCode(c.get("services"), code));
  }),
];
