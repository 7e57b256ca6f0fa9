/**
 * Workspaces (tenants), members and teams, and the one string every layer uses for a subject: its key.
 *
 * Inside a workspace a subject is named as the API names it: a user id (`ada`) or a team (`team:payments`).
 * Its key qualifies that name with the workspace: `<workspace>\x1f<name>`, except in the default workspace,
 * where the key is the name itself (so a single-tenant setup keeps plain ids). The separator is a control
 * character that no user id, team id or workspace id may contain, so a key always names exactly one
 * (workspace, name) pair and nothing a caller writes can name a subject of another workspace.
 * Items' owner_id and shared_with, memories, versions, runs and Durable Object names all hold keys.
 */

export const DEFAULT_WORKSPACE = "default";
export const TEAM_PREFIX = "team:";
/** What an erased user's events and usage are named by (domain/audit.ts erasedName): never a user id. */
export const ERASED_PREFIX = "erased:";
const SEPARATOR = "\u001f";

export const MAX_USER_ID_LENGTH = 255;
export const MAX_WORKSPACE_ID_LENGTH = 128;
export const MAX_TEAM_ID_LENGTH = 64;
export const MAX_TEAM_NAME_LENGTH = 200;
/** A team has at most this many members. */
export const MAX_TEAM_MEMBERS = 1000;

const hasControlCharacter = (value: string): boolean =>
  [...value].some((ch) => {
    const code = ch.charCodeAt(0);
    return code < 0x20 || code === 0x7f;
  });
const WORKSPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;
const TEAM_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The one rule for the names a caller gives (a token's `sub` or workspace claim, a member in a path or a
 * team's member list, a team id, a `sharedWith` target): what is wrong with `value` as a name of `kind`,
 * or null when it is usable. Nothing is trimmed anywhere: "pia " is not "pia", so a name with surrounding
 * whitespace is refused rather than silently read as another.
 */
export function nameProblem(value: unknown, kind: "user" | "team" | "workspace"): string | null {
  if (typeof value !== "string" || value === "") return "must be a non-empty string";
  if (value.trim() !== value) return "must not start or end with whitespace";
  if (kind === "team") {
    if (value.length > MAX_TEAM_ID_LENGTH) return `must be at most ${MAX_TEAM_ID_LENGTH} characters`;
    return TEAM_ID.test(value)
      ? null
      : "must be letters, digits, '.', '_' or '-', starting with a letter or digit";
  }
  if (kind === "workspace") {
    if (value.length > MAX_WORKSPACE_ID_LENGTH)
      return `must be at most ${MAX_WORKSPACE_ID_LENGTH} characters`;
    return WORKSPACE_ID.test(value)
      ? null
      : "must be letters, digits, '.', '_', ':', '@' or '-', starting with a letter or digit";
  }
  if (value.length > MAX_USER_ID_LENGTH) return `must be at most ${MAX_USER_ID_LENGTH} characters`;
  if (hasControlCharacter(value)) return "must not contain control characters";
  if (!value.isWellFormed()) return "must be valid Unicode (no lone surrogates)";
  if (value.startsWith(TEAM_PREFIX)) return `must not start with "${TEAM_PREFIX}", which names a team`;
  if (value.startsWith(ERASED_PREFIX)) {
    return `must not start with "${ERASED_PREFIX}", which names an erased user`;
  }
  return null;
}

/** A user id (a JWT `sub`): printable, at most 255 characters, no surrounding whitespace, never `team:…` or `erased:…`. */
export const isUserId = (value: unknown): value is string => nameProblem(value, "user") === null;

export const isWorkspaceId = (value: unknown): value is string => nameProblem(value, "workspace") === null;

export const isTeamId = (value: unknown): value is string => nameProblem(value, "team") === null;

/** What is wrong with a `sharedWith` target (`ada` or `team:payments`) by the same rule; null if nothing. */
export function shareTargetProblem(target: string): string | null {
  return target.startsWith(TEAM_PREFIX)
    ? nameProblem(target.slice(TEAM_PREFIX.length), "team")
    : nameProblem(target, "user");
}

export interface SubjectRef {
  workspace: string;
  kind: "user" | "team";
  /** The user id, or the team id (without the `team:` prefix). */
  id: string;
}

/** The key of a name (`ada`, `team:payments`) in a workspace. */
export function qualify(workspace: string, name: string): string {
  return workspace === DEFAULT_WORKSPACE ? name : `${workspace}${SEPARATOR}${name}`;
}

export const userKey = (workspace: string, userId: string): string => qualify(workspace, userId);
export const teamKey = (workspace: string, teamId: string): string =>
  qualify(workspace, `${TEAM_PREFIX}${teamId}`);

/** The name inside its workspace, as the API shows it: `ada` or `team:payments`. */
export function localName(key: string): string {
  const at = key.indexOf(SEPARATOR);
  return at < 0 ? key : key.slice(at + 1);
}

export function workspaceOf(key: string): string {
  const at = key.indexOf(SEPARATOR);
  return at < 0 ? DEFAULT_WORKSPACE : key.slice(0, at);
}

export function parseSubjectKey(key: string): SubjectRef {
  const name = localName(key);
  const workspace = workspaceOf(key);
  return name.startsWith(TEAM_PREFIX)
    ? { workspace, kind: "team", id: name.slice(TEAM_PREFIX.length) }
    : { workspace, kind: "user", id: name };
}

export const isTeamKey = (key: string): boolean => localName(key).startsWith(TEAM_PREFIX);

/**
 * A `sharedWith` target as a caller writes it (`ada` or `team:payments`), checked for form only (whether
 * the workspace knows it is the store's question); null if it can name nobody (see shareTargetProblem).
 */
export function shareTargetKey(workspace: string, target: string): string | null {
  if (shareTargetProblem(target) !== null) return null;
  return target.startsWith(TEAM_PREFIX)
    ? teamKey(workspace, target.slice(TEAM_PREFIX.length))
    : userKey(workspace, target);
}

export interface Team {
  id: string;
  name: string;
  members: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Member {
  userId: string;
  joinedAt: Date;
  /** Set while an admin has removed the member (their token is refused until they are added back). */
  removedAt: Date | null;
  /** The address an admin tied the member to (PUT /members/:user), which people recognise as theirs. */
  email: string | null;
}
