/**
 * The import's size limits: one place for their CLI flags (in MB), their defaults and what each bounds.
 * A hostile or broken export stops at a limit with a reason instead of exhausting memory or time.
 */
import type { ImportEvent } from "./records";

export interface ImportLimits {
  /** A file read whole: on disk (.ics, .vtt/.srt, a Markdown note, a Slack JSON file) or inside a .zip. */
  maxFileBytes: number;
  /** A Slack export in all: the bytes kept from its .zip's entries, or its loose files together. */
  maxExportBytes: number;
  /** One record of a streamed file: an mbox message, an .eml file, a vCard, a GitHub or ChatGPT JSON record. */
  maxRecordBytes: number;
  /** One vCard value (a NOTE, an address…): cut at the limit, the cut named in metadata.truncatedValues. */
  maxValueBytes: number;
}

export type LimitName = keyof ImportLimits;

export const LIMIT_FLAGS: Record<LimitName, { flag: string; defaultMb: number }> = {
  maxFileBytes: { flag: "max-file-mb", defaultMb: 128 },
  // A Slack export is parsed whole, at about 5 bytes of memory per byte of JSON: 512 MB stays within
  // Node's default 4 GB heap (bench:import-slack: 94 MB of export → 650 MB peak RSS).
  maxExportBytes: { flag: "max-export-mb", defaultMb: 512 },
  maxRecordBytes: { flag: "max-record-mb", defaultMb: 64 },
  maxValueBytes: { flag: "max-value-mb", defaultMb: 1 },
};

const MB = 1024 * 1024;

export const DEFAULT_LIMITS: ImportLimits = {
  maxFileBytes: LIMIT_FLAGS.maxFileBytes.defaultMb * MB,
  maxExportBytes: LIMIT_FLAGS.maxExportBytes.defaultMb * MB,
  maxRecordBytes: LIMIT_FLAGS.maxRecordBytes.defaultMb * MB,
  maxValueBytes: LIMIT_FLAGS.maxValueBytes.defaultMb * MB,
};

/** `128 MB (--max-file-mb)`: a limit as the reports name it. */
export function limitText(limits: ImportLimits, name: LimitName): string {
  return `${Number((limits[name] / MB).toFixed(3))} MB (--${LIMIT_FLAGS[name].flag})`;
}

/** The limits from the flags given (`{ "max-file-mb": "0.5" }`), the defaults for the others; a string names a bad flag. */
export function limitsFromFlags(values: Record<string, unknown>): ImportLimits | string {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of Object.keys(LIMIT_FLAGS) as LimitName[]) {
    const { flag } = LIMIT_FLAGS[name];
    const given = values[flag];
    if (given === undefined) continue;
    const bytes = typeof given === "string" ? megabytesToBytes(given) : null;
    if (bytes === null) return `--${flag} must be a number of MB above 0, such as 128 or 0.5`;
    limits[name] = bytes;
  }
  return limits;
}

/** Megabytes as a flag gives them (decimals allowed: 0.5) → bytes; null when not a positive number. */
export function megabytesToBytes(text: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) return null;
  const bytes = Math.floor(Number(text) * MB);
  return bytes >= 1 && bytes <= 64 * 1024 * MB ? bytes : null;
}

/** The error for a file too big to read whole, or null when it fits. */
export function oversizedFile(
  file: { path: string; size: number },
  limits: ImportLimits,
): ImportEvent | null {
  if (file.size <= limits.maxFileBytes) return null;
  return {
    type: "error",
    message: `the file is ${file.size} bytes, over ${limitText(limits, "maxFileBytes")}: not read`,
    at: { file: file.path, position: "file" },
  };
}
