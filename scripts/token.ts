/** npm run -s token -- <userId> [scopes...]: prints a dev JWT (all scopes by default) on stdout. */
import { devSecret } from "./lib/dev-secret";
import { ALL_SCOPES, signDevToken } from "./lib/token";

const [userId, ...scopes] = process.argv.slice(2);
if (!userId) {
  console.error("usage: npm run -s token -- <userId> [memory:read items:write admin]");
  process.exit(2);
}
const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
if (unknown.length > 0) {
  console.error(`unknown scope(s): ${unknown.join(", ")}; known: ${ALL_SCOPES.join(" ")}`);
  process.exit(2);
}
process.stdout.write(`${signDevToken(devSecret(), userId, scopes.length > 0 ? scopes : ALL_SCOPES)}\n`);
