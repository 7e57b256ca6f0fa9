import { base64PhotoVcard } from "../bench/lib/import-hostile-files";
await base64PhotoVcard("/tmp/imports-hostile/photo-23mb.vcf", 23);
