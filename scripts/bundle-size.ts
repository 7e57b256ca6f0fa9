/**
 * npm run bundle:size: bundles the worker as `wrangler deploy` would (`wrangler deploy --dry-run --outdir`, no
 * account needed) and fails when the gzip size of the modules it would upload passes BUDGET_GZIP_KIB. Cloudflare's
 * limit is 3 MB gzip on the Workers Free plan and 10 MB on Paid; the budget sits at half the Free limit, so an
 * unnoticed heavy dependency fails CI long before a deploy would.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_GZIP_KIB = 1536;

const outdir = mkdtempSync(join(tmpdir(), "unified-memory-bundle-"));
try {
  const build = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir], {
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  if (build.status !== 0) {
    console.error(`wrangler deploy --dry-run failed:\n${build.stdout}${build.stderr}`);
    process.exit(1);
  }
  // The modules wrangler would upload: everything it wrote except source maps and its README.
  const modules = readdirSync(outdir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && !entry.name.endsWith(".map") && entry.name !== "README.md",
  );
  let raw = 0;
  let gzip = 0;
  for (const entry of modules) {
    const bytes = readFileSync(join(entry.parentPath, entry.name));
    raw += bytes.length;
    gzip += gzipSync(bytes).length;
  }
  const kib = (n: number) => (n / 1024).toFixed(1);
  const line = `worker bundle: ${modules.length} module(s), ${kib(raw)} KiB, ${kib(gzip)} KiB gzip (budget ${BUDGET_GZIP_KIB} KiB gzip)`;
  if (gzip > BUDGET_GZIP_KIB * 1024) {
    console.error(`${line}: over budget`);
    process.exit(1);
  }
  console.log(line);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
