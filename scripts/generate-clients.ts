/**
 * npm run clients:generate [-- --check]: regenerates the client libraries' types from the API's OpenAPI
 * document (clients/typescript/src/generated/openapi.ts, clients/python/unified_memory/_generated.py), the
 * clients' and the console's operation tables (clients/typescript/src/generated/operations.ts, the same
 * _generated.py, web/console/js/operations.js) and docs/api-reference.md from the API's operation table.
 * --check writes nothing and exits 1 naming the files that regeneration would change.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generateClientFiles, staleFiles } from "./lib/clients/generate";
import { ROOT } from "./lib/dev-secret";

const files = await generateClientFiles();
const stale = staleFiles(files);
if (process.argv.includes("--check")) {
  if (stale.length > 0) {
    console.error(`Out of date (run npm run clients:generate): ${stale.join(", ")}`);
    process.exit(1);
  }
  console.log("The generated client types, operation tables and API reference match the contract.");
} else {
  for (const file of files) {
    mkdirSync(dirname(`${ROOT}${file.path}`), { recursive: true });
    writeFileSync(`${ROOT}${file.path}`, file.content);
  }
  console.log(stale.length > 0 ? `Regenerated ${stale.join(", ")}` : "Nothing changed.");
}
