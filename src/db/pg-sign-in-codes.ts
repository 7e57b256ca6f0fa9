/** Sign-in codes in Postgres (sign_in_codes): one statement to create a code, one to spend it. */
import { sql } from "drizzle-orm";
import type { SignInCodes } from "../domain/sign-in-codes";
import type { Db } from "./client";

interface ClaimedRow extends Record<string, unknown> {
  sealed_token: string | null;
  was_used: boolean | string;
  expired: boolean | string;
}

const isTrue = (v: unknown): boolean => v === true || v === "t" || v === "true";

export function createPgSignInCodes(db: Db): SignInCodes {
  return {
    async create({ hash, subjectKey, sealedToken, expiresAt }) {
      // Codes expired a day ago are of no use even to explain a refusal: each new code prunes them.
      await db.execute(sql`
        with pruned as (delete from sign_in_codes where expires_at < ${expiresAt.toISOString()}::timestamptz - interval '1 day')
        insert into sign_in_codes (code_hash, owner_id, sealed_token, expires_at)
        values (${hash}, ${subjectKey}, ${sealedToken}, ${expiresAt.toISOString()})`);
    },
    async redeem(hash, now) {
      // The row is locked before it is read: of two attempts at once, the second waits for the first and
      // then sees it used. Any attempt spends the code and clears its sealed token (an expired code's too).
      const result = await db.execute<ClaimedRow>(sql`
        with claimed as (
          select code_hash, sealed_token, used_at is not null as was_used,
                 expires_at <= ${now.toISOString()}::timestamptz as expired
          from sign_in_codes where code_hash = ${hash} for update
        ), spent as (
          update sign_in_codes set used_at = ${now.toISOString()}, sealed_token = null
          where code_hash in (select code_hash from claimed where not was_used)
          returning code_hash
        )
        select sealed_token, was_used, expired from claimed`);
      const row = result.rows[0];
      if (!row) return { outcome: "unknown" };
      if (isTrue(row.expired)) return { outcome: "expired" };
      if (isTrue(row.was_used) || row.sealed_token === null) return { outcome: "used" };
      return { outcome: "redeemed", sealedToken: row.sealed_token };
    },
  };
}
