/** The local HS256 secret: AUTH_JWT_SECRET from the environment or .dev.vars, else one generated once under .data/. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SECRET_FILE = `${ROOT}.data/dev-jwt-secret`;

/** Parses .dev.vars (KEY=value lines, # comments, optional quotes). */
export function readDevVars(): Record<string, string> {
  const path = `${ROOT}.dev.vars`;
  if (!existsSync(path)) return {};
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/.exec(line);
    if (match?.[1]) vars[match[1]] = (match[2] ?? "").replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

export function devSecret(): string {
  const fromEnv = process.env.AUTH_JWT_SECRET ?? readDevVars().AUTH_JWT_SECRET;
  if (fromEnv) return fromEnv;
  if (existsSync(SECRET_FILE)) return readFileSync(SECRET_FILE, "utf8").trim();
  mkdirSync(`${ROOT}.data`, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(SECRET_FILE, secret, { mode: 0o600 });
  return secret;
}
