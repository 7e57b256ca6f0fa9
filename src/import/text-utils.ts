/** Small pure helpers the import parsers share: paths, dates found in names, JSON records. */
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

/** Top-level JSON values written one after another ("[...][...]", as `gh api --paginate` prints pages). */
function concatenatedValues(text: string): string[] | null {
  const values: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "]" || c === "}") {
      depth--;
      if (depth < 0) return null;
      if (depth === 0) values.push(text.slice(start, i + 1));
    } else if (depth === 0 && !/\s/.test(c ?? "")) return null;
  }
  return depth === 0 ? values : null;
}

/**
 * Records of a JSON array, of concatenated arrays (paginated output), or of NDJSON (one JSON value per line);
 * each says where it was. A bad NDJSON line is its own record error; the others still parse.
 */
export function splitJsonRecords(text: string): { value?: unknown; error?: string; position: string }[] {
  const body = stripBom(text).trim();
  if (body === "") return [];
  if (body.startsWith("[")) {
    const pages = concatenatedValues(body);
    if (!pages) return [{ error: "not valid JSON", position: "file" }];
    const out: { value?: unknown; error?: string; position: string }[] = [];
    for (const [p, page] of pages.entries()) {
      try {
        const parsed: unknown = JSON.parse(page);
        const list = Array.isArray(parsed) ? parsed : [parsed];
        const prefix = pages.length > 1 ? `page ${p + 1} ` : "";
        list.forEach((value, i) => {
          out.push({ value, position: `${prefix}record ${i + 1}` });
        });
      } catch (error) {
        out.push({ error: `not valid JSON: ${(error as Error).message}`, position: `page ${p + 1}` });
      }
    }
    return out;
  }
  const out: { value?: unknown; error?: string; position: string }[] = [];
  stripBom(text)
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        out.push({ value: JSON.parse(line), position: `line ${i + 1}` });
      } catch (error) {
        out.push({ error: `not valid JSON: ${(error as Error).message}`, position: `line ${i + 1}` });
      }
    });
  return out;
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
 * The JSON objects of a file (an array, concatenated arrays or NDJSON), each with where it came from; a record
 * that is not valid JSON or not an object is an `error` event naming `what` it should have been.
 */
export function* jsonObjects(
  file: { path: string; text: string },
  what: string,
): Iterable<{ value: Record<string, unknown>; at: RecordPosition } | ImportEvent> {
  for (const record of splitJsonRecords(file.text)) {
    const at = { file: file.path, position: record.position };
    if (record.error !== undefined) yield { type: "error", message: record.error, at };
    else if (!isRecord(record.value)) {
      yield { type: "error", message: `${what} is not a JSON object`.trim(), at };
    } else yield { value: record.value, at };
  }
}
