/**
 * npx tsx bench/import-service-files.ts [DIR]
 *
 * The hostile files of bench/lib/import-hostile-files.ts, made to fit POST /imports's 25 MB, for measuring
 * imports through the service (docs/import.md, "Limits in the service"): a Slack .zip bomb, an mbox with a
 * 24 MB line, vCards with a 24 MB folded and a 24 MB quoted-printable NOTE, one with a 23 MB PHOTO, and one
 * just over the limit. Upload each to `npm run dev` with `curl --data-binary @FILE` and poll GET /imports/:id.
 */
import { mkdirSync } from "node:fs";
import {
  base64PhotoVcard,
  foldedNoteVcard,
  longLineMbox,
  quotedPrintableNoteVcard,
  slackZipBomb,
} from "./lib/import-hostile-files";

const dir = process.argv[2] ?? "/tmp/unified-memory-bench-service";
mkdirSync(dir, { recursive: true });
await slackZipBomb(`${dir}/slack-bomb.zip`);
await longLineMbox(`${dir}/line-24mb.mbox`, 24);
await foldedNoteVcard(`${dir}/folded-note-24mb.vcf`, 24);
await quotedPrintableNoteVcard(`${dir}/qp-note-24mb.vcf`, 24);
await base64PhotoVcard(`${dir}/photo-23mb.vcf`, 23);
await base64PhotoVcard(`${dir}/photo-24mb.vcf`, 24);
console.log(`written to ${dir}`);
