/** Values crossing the Postgres boundary by hand: uuid[] parameters and json / text[] results of raw queries. */
import { sql } from "drizzle-orm";

/** A uuid[] parameter (drizzle would expand a bare JS array into a parenthesised list). */
export function uuidArray(ids: string[]) {
  return sql`${`{${ids.join(",")}}`}::uuid[]`;
}

export function parseJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

export function parseStringArray(value: unknown): string[] {
  const list = parseJson(value);
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === "string") : [];
}

/** A Postgres text[] printed as text: {a,b,"c d"}. */
export function parseTextArray(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value !== "string" || value.length < 2) return [];
  const inner = value.slice(1, -1);
  if (inner === "") return [];
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^,]+)/g;
  for (let m = re.exec(inner); m; m = re.exec(inner)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? ""));
  }
  return out;
}
