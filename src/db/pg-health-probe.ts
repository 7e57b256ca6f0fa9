/** HealthProbe over Postgres: one trivial query. */
import { sql } from "drizzle-orm";
import type { HealthProbe } from "../domain/health";
import type { Db } from "./client";

export function createPgHealthProbe(db: Db): HealthProbe {
  return {
    async databaseAnswers() {
      try {
        await db.execute(sql`select 1`);
        return true;
      } catch {
        return false;
      }
    },
  };
}
