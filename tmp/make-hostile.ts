import { base64PhotoVcard, foldedNoteVcard, longLineMbox, quotedPrintableNoteVcard, slackZipBomb } from "../bench/lib/import-hostile-files";
const dir = "/tmp/imports-hostile";
await slackZipBomb(`${dir}/slack-bomb.zip`);
await longLineMbox(`${dir}/line-24mb.mbox`, 24);
await foldedNoteVcard(`${dir}/folded-note-24mb.vcf`, 24);
await quotedPrintableNoteVcard(`${dir}/qp-note-24mb.vcf`, 24);
await base64PhotoVcard(`${dir}/photo-24mb.vcf`, 24);
