/**
 * A newcomer's first requests arriving together, on PostgreSQL only (PGlite runs one statement at a time,
 * so it cannot race two inserts): every one is admitted and exactly one membership row is written.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import { createDb } from "../../src/db/client";
import { createPgWorkspaceStore } from "../../src/db/pg-workspace-store";
import { newUserId } from "../support/auth";

const db = createDb(parseConfig(env));
const workspaces = createPgWorkspaceStore(db);

describe("admitting a newcomer from concurrent first requests", () => {
  it("admits every request and writes one membership", async () => {
    for (let round = 0; round < 60; round++) {
      const workspace = `race-${crypto.randomUUID()}`;
      const user = newUserId();
      const answers = await Promise.all(Array.from({ length: 16 }, () => workspaces.admit(workspace, user)));
      expect(answers).toEqual(Array(16).fill("member"));
      const rows = await db.execute(
        sql`select count(*)::int as n from workspace_members where workspace_id = ${workspace}`,
      );
      expect(Number(rows.rows[0]?.n)).toBe(1);
    }
  });
});
