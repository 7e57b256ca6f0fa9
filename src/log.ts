/**
 * The structured log line the worker writes: one JSON object a line, `{level, msg, ...fields}`, to the console
 * stream of its level (Workers Logs and `wrangler tail` keep the level). Fields are ids, counts and codes: an
 * error goes in through the error model's `logFields`, never as its message, which could quote a user's content.
 */
export type LogLevel = "info" | "warn" | "error";

export function logLine(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}
