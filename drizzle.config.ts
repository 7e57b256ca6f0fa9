import { defineConfig } from "drizzle-kit";

/**
 * `npm run db:generate` needs no database; `npx drizzle-kit migrate` (and `studio`) connect to DATABASE_URL.
 * `npm run db:migrate` applies the same migrations without drizzle-kit (scripts/migrate.ts).
 */
const url = process.env.DATABASE_URL;

export default defineConfig({
  dialect: "postgresql",
  schema: ["./src/db/schema.ts", "./src/db/schema-people.ts"],
  out: "./drizzle",
  ...(url ? { dbCredentials: { url } } : {}),
});
