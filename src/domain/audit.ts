/**
 * The audit trail's vocabulary and ports: what an event is, where the entry points send finished events (an
 * AuditSink, the queue), and the append-only store they end in. Never item text, never query text.
 */

import { sha256Hex } from "./sha256";
import { ERASED_PREFIX } from "./workspaces";

export const AUDIT_ACTIONS = [
  "memory.read",
  "memory.version.read",
  "memory.diff.read",
  "memory.versions.list",
  "memory.runs.list",
  "memory.dismissals.list",
  "item.read",
  "items.search",
  "item.delete",
  "item.unshare",
  "statement.dismiss",
  "dismissal.withdraw",
  "me.erase",
  "member.add",
  "member.remove",
  "team.change",
  "audit.export",
  "webhook.create",
  "webhook.update",
  "webhook.delete",
  "webhook.rotate_secret",
  "webhook.test",
  "people.read",
  "person.merge",
  "person.split",
  "person.distinct",
  "person.correction.withdraw",
  "import.create",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_CHANNELS = ["http", "mcp", "email", "cron"] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** One event as it is sent and stored (instants as ISO strings, so it crosses a queue unchanged). */
export interface AuditEvent {
  id: string;
  at: string;
  workspaceId: string;
  /** Names inside the workspace (`ada`, `team:payments`), or `erased:<hash>` after an erase. */
  actor: string;
  subject: string;
  action: AuditAction;
  channel: AuditChannel;
  /** The MCP client's name/version from its initialize, else the User-Agent's product; null if neither. */
  client: string | null;
  requestId: string;
  /** The memory version served, when one was. */
  version: string | null;
  /** The items read or returned (ids only). */
  itemIds: string[];
  /** A search's query as a hash (hex SHA-256), never its text; null without a query. */
  queryHash: string | null;
  /** The answer's status (304s and refusals included), as HTTP would give it. */
  status: number;
}

/** Where entry points hand finished events (the audit queue); throws when they could not be handed over. */
export interface AuditSink {
  send(events: AuditEvent[]): Promise<void>;
}

export interface AuditFilter {
  workspaceId: string;
  actor?: string;
  subject?: string;
  action?: AuditAction;
  since?: Date;
  until?: Date;
  limit: number;
  cursor?: string;
}

export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

/** The append-only table: written once by id, read newest first, pruned by age, hashed on erase. */
export interface AuditStore {
  /** Writes each event once: an id already stored is skipped (a retried message adds nothing). */
  write(events: AuditEvent[]): Promise<void>;
  list(filter: AuditFilter): Promise<AuditPage>;
  /** Deletes events older than `before`; how many. */
  prune(before: Date): Promise<number>;
  /**
   * Replaces the user's name with `erased:<hash>` in every event of the workspace naming them, and in any
   * such event written later that happened before `at` (one still in flight).
   */
  eraseUser(workspaceId: string, userId: string, at: Date): Promise<void>;
}

/** The one-way name an erased user's events carry: SHA-256 of workspace, separator and user id (hex, 32). */
export async function erasedName(workspaceId: string, userId: string): Promise<string> {
  return `${ERASED_PREFIX}${(await sha256Hex(`${workspaceId}\u001f${userId}`)).slice(0, 32)}`;
}

/** A search's queryHash is this hash of its text. */
export { sha256Hex };

/** Browsers by the product token that names them in a `Mozilla/5.0 (…)` User-Agent, most specific first. */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bHeadlessChrome\/(\d+)/, "HeadlessChrome"],
  [/\b(?:Chrome|CriOS)\/(\d+)/, "Chrome"],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
];

/**
 * The product of a User-Agent (`curl/8.5.0` of `curl/8.5.0 (x86_64)`), bounded; for a browser's
 * `Mozilla/5.0 (…) … Chrome/131.0.0.0 Safari/537.36`, the browser and its major version (`Chrome/131`);
 * null without one.
 */
export function userAgentProduct(header: string | null | undefined): string | null {
  const first = header?.trim().split(/\s+/)[0];
  if (!first) return null;
  if (first.startsWith("Mozilla/")) {
    for (const [pattern, name] of BROWSERS) {
      const match = pattern.exec(header ?? "");
      if (match) return `${name}/${match[1]}`;
    }
  }
  return safeAuditText(first, 100);
}

/** The bounds of an event's strings, in UTF-16 units (what the audit consumer accepts). */
export const AUDIT_TEXT_LIMITS = { name: 400, client: 200, requestId: 100 } as const;

/**
 * Text any audit event can carry and the table can hold: NUL and lone surrogates replaced by U+FFFD, cut
 * at `max` UTF-16 units without splitting a surrogate pair.
 */
export function safeAuditText(value: string, max: number): string {
  const clean = value.replaceAll("\u0000", "\uFFFD").toWellFormed();
  if (clean.length <= max) return clean;
  const last = clean.charCodeAt(max - 1);
  return clean.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
