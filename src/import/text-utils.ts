/** Small pure helpers the import parsers share: paths, dates found in names, JSON records as objects. */
import type { JsonRecord } from "./json-records";
import type { ImportEvent, RecordPosition } from "./records";

/** Forward slashes, no leading "./" or "/": the stable form of a path inside an export. */
export function normalizePath(path: string): string {
  return path
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/{2,}/g, "/");
}

export function baseName(path: string): string {
  const parts = normalizePath(path).split("/");
  return parts[parts.length - 1] ?? path;
}

export function dirName(path: string): string {
  const normalized = normalizePath(path);
  const cut = normalized.lastIndexOf("/");
  return cut < 0 ? "" : normalized.slice(0, cut);
}

/** Resolves "." and ".." segments; a path that climbs above the root keeps its leading "..". */
export function joinPath(dir: string, relative: string): string {
  const out: string[] = [];
  for (const part of `${dir}/${relative}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Unix seconds (a number or a string such as Slack's "1458165461.000002") as ISO 8601 UTC. */
export function isoFromEpochSeconds(seconds: number | string): string | null {
  const value = typeof seconds === "number" ? seconds : Number(seconds);
  if (!Number.isFinite(value) || value <= 0) return null;
  const date = new Date(Math.round(value * 1000));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const valid = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): string | null => {
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  return date.toISOString();
};

/**
 * A date (and time, when present) written in a file name, as ISO 8601 UTC: Zoom's
 * "GMT20240124-202901", "2024-01-24 14.30", "2024-01-24T14:30:00", "20240124". Null when there is none.
 */
export function dateInName(name: string): string | null {
  const zoom = /GMT(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(name);
  if (zoom) {
    const [y, mo, d, h, mi, s] = zoom.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return valid(y, mo, d, h, mi, s);
  }
  const dashed = /(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[ T_](\d{2})[-:.h](\d{2})(?:[-:.](\d{2}))?)?(?!\d)/.exec(
    name,
  );
  if (dashed) {
    const [y, mo, d] = dashed.slice(1, 4).map(Number) as [number, number, number];
    const [h, mi, s] = dashed.slice(4, 7).map((v) => (v === undefined ? 0 : Number(v))) as [
      number,
      number,
      number,
    ];
    return valid(y, mo, d, h, mi, s);
  }
  const compact = /(?<!\d)(20\d{2}|19\d{2})(\d{2})(\d{2})(?!\d)/.exec(name);
  if (compact) {
    const [y, mo, d] = compact.slice(1, 4).map(Number) as [number, number, number];
    return valid(y, mo, d);
  }
  return null;
}

/** A date or date-time given by a person or a front-matter field, as ISO 8601 with zone; null if unreadable. */
export function isoFromLooseDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return dateInName(text);
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return null;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const date = new Date(hasZone ? text.replace(" ", "T") : `${text.replace(" ", "T")}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/**
 * A JSON record (json-records.ts) as an object with where it came from, or the event it is instead: an
 * `error` when it is not valid JSON or not an object (naming `what` it should have been), a `skipped` when
 * it was over the size limit.
 */
export function jsonObject(
  record: JsonRecord,
  path: string,
  what: string,
): { value: Record<string, unknown>; at: RecordPosition } | ImportEvent {
  const at = { file: path, position: record.position };
  if (record.type === "error") return { type: "error", message: record.message, at };
  if (record.type === "skipped") return { type: "skipped", reason: record.reason, at };
  if (!isRecord(record.value)) return { type: "error", message: `${what} is not a JSON object`.trim(), at };
  return { value: record.value, at };
}
