/** What the import prints: the progress line (terminal only), the summary table, the JSON line. */
import type { ApiItem } from "../../../src/import/batches";
import type { ImportSummary } from "../../../src/import/run-import";

export function progressLine(
  summary: ImportSummary,
  bytes: { read: number; total: number },
  elapsedMs: number,
): string {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const rate = summary.items / seconds;
  const fraction = bytes.total > 0 ? bytes.read / bytes.total : 0;
  const eta = fraction > 0.01 ? Math.round((seconds / fraction) * (1 - fraction)) : null;
  return [
    `${summary.records.toLocaleString("en")} records`,
    `${Math.round(rate).toLocaleString("en")} items/s`,
    `${megabytes(bytes.read)} of ${megabytes(bytes.total)} read`,
    eta === null ? "ETA …" : `ETA ${duration(eta)}`,
  ].join(" · ");
}

export function summaryTable(
  summary: ImportSummary,
  options: { dryRun: boolean; elapsedMs: number },
): string {
  const rows: [string, string | number][] = [
    ["format", summary.format],
    ["files", summary.files],
    ["records read", summary.records],
    [options.dryRun ? "items (dry run, not sent)" : "items sent", summary.items],
  ];
  if (!options.dryRun)
    rows.push(
      ["  created", summary.created],
      ["  updated", summary.updated],
      ["  unchanged", summary.unchanged],
    );
  rows.push(["skipped", summary.skipped]);
  for (const [reason, count] of Object.entries(summary.skippedReasons).sort((a, b) => b[1] - a[1]))
    rows.push([`  ${reason}`, count]);
  rows.push(["errors", summary.errors.length], ["time", duration(options.elapsedMs / 1000)]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(
    ([k, v]) => `${k.padEnd(width)}  ${typeof v === "number" ? v.toLocaleString("en") : v}`,
  );
  const shown = summary.errors.slice(0, 20).map((e) => `  ${e.file} ${e.position}: ${e.message}`);
  if (shown.length > 0) lines.push("", "Errors:", ...shown);
  if (summary.errors.length > shown.length)
    lines.push(`  … and ${summary.errors.length - shown.length} more (--json lists them all)`);
  return lines.join("\n");
}

export function samplesText(samples: ApiItem[]): string {
  return samples
    .map((s, i) => `Sample ${i + 1}:\n${JSON.stringify({ ...s, body: clip(s.body, 300) }, null, 2)}`)
    .join("\n\n");
}

/** The --json line: the contract's keys (plus the skip reasons). */
export function jsonLine(summary: ImportSummary): string {
  const { format, files, records, items, created, updated, unchanged, skipped, errors, skippedReasons } =
    summary;
  return JSON.stringify({
    format,
    files,
    records,
    items,
    created,
    updated,
    unchanged,
    skipped,
    errors,
    skippedReasons,
  });
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${Math.round(seconds % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
