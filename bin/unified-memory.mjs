#!/usr/bin/env node
// `unified-memory import <format> <path>...`: the package's command (runs the TypeScript CLI through tsx).
import { register } from "tsx/esm/api";

const [command, ...rest] = process.argv.slice(2);
if (command !== "import") {
  process.stderr.write("Usage: unified-memory import <format> <path>... [options]\n");
  process.exit(2);
}
register();
const { main } = await import("../scripts/import.ts");
process.exitCode = await main(rest);
