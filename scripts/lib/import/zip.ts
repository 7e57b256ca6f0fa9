/** The text files inside a .zip (a Slack export), with their paths inside the archive. */
import { unzipSync } from "fflate";

export function unzipTextFiles(
  bytes: Uint8Array,
  accept: (name: string) => boolean,
): { path: string; text: string }[] {
  const entries = unzipSync(bytes, { filter: (file) => !file.name.endsWith("/") && accept(file.name) });
  const decoder = new TextDecoder("utf-8");
  return Object.entries(entries)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, data]) => ({ path, text: decoder.decode(data) }));
}
