/**
 * npm run -s token -- <userId> [scopes...] [--workspace <id>] [--link]: prints a dev JWT (all scopes by
 * default) on stdout. With --workspace, the token acts in that workspace: the id goes in the claim the
 * service reads (AUTH_WORKSPACE_CLAIM from the environment or .dev.vars, default `org_id`); without it, the
 * token has no such claim and acts in the default workspace. With --link it prints a console sign-in link
 * instead, made by the service at UNIFIED_MEMORY_URL (default http://127.0.0.1:$PORT, 8787): a one-time
 * code for a 12-hour token, never the token itself.
 */
import { parseArgs } from "node:util";
import { isUserId, isWorkspaceId } from "../src/domain/workspaces";
import { devSecret } from "./lib/dev-secret";
import { ALL_SCOPES, signDevToken, signInLink } from "./lib/token";

const USAGE =
  "usage: npm run -s token -- <userId> [memory:read items:write admin] [--workspace <id>] [--link]";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const parsed = (() => {
  try {
    return parseArgs({
      options: { workspace: { type: "string", short: "w" }, link: { type: "boolean" } },
      allowPositionals: true,
    });
  } catch (err) {
    return fail(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
})();
const [userId, ...scopes] = parsed.positionals;
const { workspace, link } = parsed.values;
if (!userId) fail(USAGE);
if (!isUserId(userId)) fail(`not a usable user id: ${JSON.stringify(userId)}`);
const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
if (unknown.length > 0) fail(`unknown scope(s): ${unknown.join(", ")}; known: ${ALL_SCOPES.join(" ")}`);
if (workspace !== undefined && !isWorkspaceId(workspace)) {
  fail(
    `not a usable workspace id: ${JSON.stringify(workspace)} (letters, digits and . _ : @ -, starting with a letter or digit, at most 128)`,
  );
}
const granted = scopes.length > 0 ? scopes : ALL_SCOPES;
if (link) {
  const url = process.env.UNIFIED_MEMORY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
  signInLink(url.replace(/\/+$/, ""), devSecret(), userId, granted, { workspace }).then(
    (signIn) => process.stdout.write(`${signIn}\n`),
    (err: unknown) =>
      fail(`no sign-in link from ${url}: ${err instanceof Error ? err.message : String(err)}`),
  );
} else {
  process.stdout.write(`${signDevToken(devSecret(), userId, granted, { workspace })}\n`);
}
