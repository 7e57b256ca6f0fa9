import { describe, expect, it } from "vitest";
import { unzipTextFiles, type ZipLimits, type ZipRead } from "../../src/import/zip";
import { bytesSource, type RandomAccess } from "../../src/import/zip-directory";
import { zipOf } from "../support/import-hostile";

const MB = 1024 * 1024;
const limits = (entryMb: number, totalMb: number): ZipLimits => ({
  maxEntryBytes: entryMb * MB,
  entryLimit: `${entryMb} MB (--max-file-mb)`,
  maxTotalBytes: totalMb * MB,
  totalLimit: `${totalMb} MB (--max-export-mb)`,
});

async function read(source: RandomAccess, zipLimits: ZipLimits): Promise<ZipRead[]> {
  const out: ZipRead[] = [];
  for await (const entry of unzipTextFiles(source, (name) => name.endsWith(".json"), zipLimits))
    out.push(entry);
  return out;
}

/** A RandomAccess that records the length of every read. */
function recording(bytes: Uint8Array): RandomAccess & { reads: number[] } {
  const inner = bytesSource(bytes);
  const source = {
    size: inner.size,
    reads: [] as number[],
    read: async (offset: number, length: number) => {
      const slice = await inner.read(offset, length);
      source.reads.push(slice.length);
      return slice;
    },
  };
  return source;
}

describe("reading a .zip within limits", () => {
  it("reads the text entries it is asked for, shallow ones (an export's lists) first", async () => {
    const zip = zipOf({ "general/2024-01-01.json": '[{"ts":"1"}]', "users.json": "[]", "notes.txt": "no" });
    expect(await read(bytesSource(zip), limits(1, 10))).toEqual([
      { type: "file", path: "users.json", text: "[]" },
      { type: "file", path: "general/2024-01-01.json", text: '[{"ts":"1"}]' },
    ]);
  });

  it("stops an entry that inflates past the per-file limit with an error naming it and the limit, and reads the next", async () => {
    const zip = zipOf({ "a.json": "[1]", "bomb/2024-01-01.json": "A".repeat(3 * MB), "b.json": "[2]" });
    // (Entries are read shallow first: the bomb's folder makes it come last.)
    expect(zip.length).toBeLessThan(20_000);
    expect(await read(bytesSource(zip), limits(1, 10))).toEqual([
      { type: "file", path: "a.json", text: "[1]" },
      { type: "file", path: "b.json", text: "[2]" },
      {
        type: "error",
        path: "bomb/2024-01-01.json",
        message: "bomb/2024-01-01.json inflates to more than 1 MB (--max-file-mb): not read",
      },
    ]);
  });

  it("does not trust declared sizes: 4 GB declared and a few bytes inside is read; 100 bytes declared and 3 MB inside is stopped", async () => {
    const zip = zipOf(
      { "honest.json": "[true]", "liar.json": "B".repeat(3 * MB) },
      { "honest.json": 0xfffffff0, "liar.json": 100 },
    );
    expect(await read(bytesSource(zip), limits(1, 10))).toEqual([
      { type: "file", path: "honest.json", text: "[true]" },
      {
        type: "error",
        path: "liar.json",
        message: "liar.json inflates to more than 1 MB (--max-file-mb): not read",
      },
    ]);
  });

  it("stops inflating at the limit instead of inflating the whole entry", async () => {
    const zip = zipOf({ "bomb.json": new Uint8Array(40 * MB) });
    const source = recording(zip);
    const [entry] = await read(source, limits(1, 10));
    expect(entry?.type).toBe("error");
    // Reads: the archive's tail, its directory, the entry's local header, then its compressed bytes
    // (~40 KB here) in 16 KB slices: the first slice already inflates past 1 MB, so it is the only one.
    expect(zip.length).toBeGreaterThan(35_000);
    expect(source.reads.slice(3)).toEqual([16 * 1024]);
  });

  it("stops the archive once the entries kept pass the total limit, naming the entry and how many were not read", async () => {
    const piece = `"${"x".repeat(600 * 1024)}"`;
    const zip = zipOf({ "1.json": piece, "2.json": piece, "3.json": piece, "4.json": piece });
    const entries = await read(bytesSource(zip), limits(1, 1.5));
    expect(entries.map((e) => [e.type, e.path])).toEqual([
      ["file", "1.json"],
      ["file", "2.json"],
      ["error", "3.json"],
    ]);
    expect(entries[2]).toMatchObject({
      message:
        "the archive's files inflate to more than 1.5 MB (--max-export-mb): stopped at 3.json; it and the 1 entry after it were not read",
    });
  });

  it("keeps entries stopped at their own limit out of the total, so the rest of the archive still imports", async () => {
    const zip = zipOf({
      "bomb1.json": "A".repeat(4 * MB),
      "bomb2.json": "A".repeat(4 * MB),
      "bomb3.json": "A".repeat(4 * MB),
      "ok.json": "[]",
    });
    const entries = await read(bytesSource(zip), limits(1, 1.5));
    expect(entries.map((e) => [e.path, e.type === "error" ? e.message : e.text])).toEqual([
      ["bomb1.json", "bomb1.json inflates to more than 1 MB (--max-file-mb): not read"],
      ["bomb2.json", "bomb2.json inflates to more than 1 MB (--max-file-mb): not read"],
      ["bomb3.json", "bomb3.json inflates to more than 1 MB (--max-file-mb): not read"],
      ["ok.json", "[]"],
    ]);
  });

  it("reports an archive that is not a zip, and a corrupt entry, as errors", async () => {
    expect(await read(bytesSource(new TextEncoder().encode("not a zip at all")), limits(1, 10))).toEqual([
      { type: "error", path: "archive", message: "not a zip archive (no end of central directory)" },
    ]);
    const zip = zipOf({ "a.json": "A".repeat(100_000), "b.json": "[]" });
    // Damage the first entry's compressed bytes (they start after its 30-byte local header and name).
    const damaged = zip.slice();
    damaged.fill(0xff, 36, 60);
    const entries = await read(bytesSource(damaged), limits(1, 10));
    expect(entries[0]).toMatchObject({ type: "error", path: "a.json" });
    expect(entries[1]).toEqual({ type: "file", path: "b.json", text: "[]" });
  });
});
