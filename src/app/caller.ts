/**
 * Who is asking, as every entry point hands it to an operation: the authenticated user of a workspace, the
 * subject key their own memory and items are addressed by, and what their token allows.
 */
import { AppError } from "../domain/errors";

export type Scope = "memory:read" | "items:write" | "admin";
export const SCOPES: readonly Scope[] = ["memory:read", "items:write", "admin"];

export interface Caller {
  /** The token's `sub`: the user's name inside their workspace, as the API shows it. */
  userId: string;
  /** The workspace the request acts in (the configured claim, or the default workspace). */
  workspaceId: string;
  /** The caller's subject key (domain/workspaces.ts): what every store and agent is addressed by. */
  subjectKey: string;
  scopes: Set<Scope>;
  /** The token's `email` claim, when it is a string and not marked unverified (`email_verified: false`). */
  email?: string;
}

/** `admin` implies every scope. */
export function hasScope(caller: Caller, scope: Scope): boolean {
  return caller.scopes.has(scope) || caller.scopes.has("admin");
}

/** 403 `forbidden` unless the caller holds `scope`. */
export function requireScope(caller: Caller, scope: Scope): void {
  if (!hasScope(caller, scope)) throw new AppError("forbidden", `This token lacks the "${scope}" scope`);
}
