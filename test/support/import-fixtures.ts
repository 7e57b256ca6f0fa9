/// <reference types="vite/client" />
/** The import fixtures (test/fixtures/import, all ASCII files), loaded by vite at build time: name → text. */
const eml = import.meta.glob<string>("../fixtures/import/eml/*.eml", {
  query: "?raw",
  import: "default",
  eager: true,
});
const ics = import.meta.glob<string>("../fixtures/import/ics/*.ics", {
  query: "?raw",
  import: "default",
  eager: true,
});
const vcf = import.meta.glob<string>("../fixtures/import/vcf/*.vcf", {
  query: "?raw",
  import: "default",
  eager: true,
});

const byName = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([path, text]) => [path.split("/").pop()!, text]));

export const fixtures = { eml: byName(eml), ics: byName(ics), vcf: byName(vcf) };

export const bytes = (text: string) => new TextEncoder().encode(text);

/** Latin-1 bytes of a string whose characters are all below U+0100. */
export const latin1Bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
