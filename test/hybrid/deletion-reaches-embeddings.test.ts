/**
 * Deletion reaches the embeddings at once: after each way of losing access to an item (the owner deletes
 * it, unshares it, a sharee leaves it, a member leaves the team it is shared with, the owner erases
 * themselves), no search in any mode returns it to whoever lost it, in the very next request; a deleted or
 * erased item's chunks are gone from the database.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "../support/auth";
import { call, ingest, item, warmUpWorker } from "../support/items";
import { registerMembers } from "../support/workspaces";
import { chunkCount, externalIds, MODES, search, untilIndexed } from "./support";

beforeAll(warmUpWorker);

const QUERY = "q=zephyr%20harbour%20launch";
const secret = (externalId: string, sharedWith: string[]) =>
  item({ externalId, body: "The zephyr harbour launch moves to Tuesday, say nothing yet.", sharedWith });

/** Sees it in every mode (so its absence later means something). */
async function findsInEveryMode(user: string, externalId: string): Promise<void> {
  for (const mode of MODES) {
    expect(externalIds(await search(user, `${QUERY}&mode=${mode}`)), `${user} ${mode}`).toContain(externalId);
  }
}
async function findsInNoMode(user: string, externalId: string): Promise<void> {
  for (const mode of MODES) {
    expect(externalIds(await search(user, `${QUERY}&mode=${mode}`)), `${user} ${mode}`).not.toContain(
      externalId,
    );
  }
}

async function setUp(sharedWith: (sharee: string, team: string) => string[]) {
  const [owner, sharee, admin] = [newUserId("own"), newUserId("sha"), newUserId("adm")];
  const team = `t${crypto.randomUUID().slice(0, 8)}`;
  await registerMembers(owner, sharee, admin);
  const put = await call(admin, "PUT", `/teams/${team}`, {
    body: { name: "Harbour", members: [owner, sharee] },
    scopes: ["admin"],
  });
  expect(put.status).toBe(201);
  const [outcome] = await ingest(owner, [secret("s", sharedWith(sharee, team))]);
  await untilIndexed(owner, [outcome!.id]);
  await findsInEveryMode(owner, "s");
  await findsInEveryMode(sharee, "s");
  return { owner, sharee, admin, team, id: outcome!.id };
}

describe("losing access to an item, in every search mode", () => {
  it("the owner deletes it: nobody finds it, and its chunks are gone", async () => {
    const { owner, sharee, id } = await setUp((sharee) => [sharee]);
    expect((await call(owner, "DELETE", `/items/${id}`)).status).toBe(204);
    await findsInNoMode(owner, "s");
    await findsInNoMode(sharee, "s");
    expect(await chunkCount([id])).toBe(0);
  });

  it("the owner unshares it: the former sharee no longer finds it, the owner still does", async () => {
    const { owner, sharee } = await setUp((sharee) => [sharee]);
    await ingest(owner, [secret("s", [])]);
    await findsInNoMode(sharee, "s");
    expect(externalIds(await search(owner, `${QUERY}&mode=keyword`))).toContain("s");
  });

  it("a sharee leaves the share: they no longer find it, the owner still does", async () => {
    const { owner, sharee, id } = await setUp((sharee) => [sharee]);
    expect((await call(sharee, "DELETE", `/items/${id}`)).status).toBe(204);
    await findsInNoMode(sharee, "s");
    await findsInEveryMode(owner, "s");
  });

  it("a member leaves the team it is shared with: they no longer find it", async () => {
    const { owner, sharee, admin, team } = await setUp((_sharee, team) => [`team:${team}`]);
    const put = await call(admin, "PUT", `/teams/${team}`, {
      body: { name: "Harbour", members: [owner] },
      scopes: ["admin"],
    });
    expect(put.status).toBe(200);
    await findsInNoMode(sharee, "s");
    await findsInEveryMode(owner, "s");
  });

  it("the owner erases themselves: the sharee no longer finds it, and its chunks are gone", async () => {
    const { owner, sharee, id } = await setUp((sharee, team) => [sharee, `team:${team}`]);
    expect((await call(owner, "DELETE", "/me")).status).toBe(204);
    await findsInNoMode(sharee, "s");
    expect(await chunkCount([id])).toBe(0);
  });
});
