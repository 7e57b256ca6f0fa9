/**
 * Per-operation scope checks. The SDK turns a challenge into HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` before the tool runs, so OAuth clients
 * can step up; the rule is the HTTP API's (`admin` implies every scope).
 */
import type { ScopeChallengeHandler } from "@modelcontextprotocol/server";
import { type Caller, hasScope, type Scope } from "../app/caller";

export function needsScope(caller: Caller, scope: Scope): ScopeChallengeHandler {
  return () =>
    hasScope(caller, scope)
      ? undefined
      : { scopes: [scope], errorDescription: `This token lacks the ${scope} scope` };
}
