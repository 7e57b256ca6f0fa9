/**
 * npm run db:migrate: applies the migrations in drizzle/ to the database in DATABASE_URL (idempotent: each
 * migration is recorded once in drizzle.__drizzle_migrations). For Neon, use the direct (not pooled) connection
 * string with sslmode=require. Exits 2 without DATABASE_URL, 1 when a migration fails.
 */
import { readFileSync } from "node:fs";
import { applyMigrations, MIGRATIONS_FOLDER } from "./lib/migrate";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is not set: DATABASE_URL='postgres://…' npm run db:migrate");
  process.exit(2);
}

const journal = JSON.parse(readFileSync(`${MIGRATIONS_FOLDER}/meta/_journal.json`, "utf8")) as {
  entries: { tag: string }[];
};
const host = (() => {
  try {
    return new URL(databaseUrl).host;
  } catch {
    console.error("DATABASE_URL is not a URL (postgres://user:password@host/database)");
    return process.exit(2);
  }
})();
try {
  await applyMigrations(databaseUrl);
  console.log(`${journal.entries.length} migrations applied or already present on ${host}`);
} catch (err) {
  console.error(`migration failed on ${host}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
