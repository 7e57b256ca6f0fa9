/**
 * HEAD honours If-None-Match wherever GET does: a HEAD of the caller's memory, or of a team's, with the
 * current ETag is a 304 with that ETag, as the GET is; another ETag is a 200 without a body.
 */
import { afterEach, describe, expect, it } from "vitest";
import { teamKey } from "../src/domain/workspaces";
import { newUserId, READ_WRITE } from "./support/auth";
import { call, item } from "./support/items";
import {
  agentStub,
  clearAlarm,
  FakeGenerator,
  hoursAgo,
  ingestSettled,
  installAgent,
  runAlarm,
  seedMemory,
  statement,
} from "./support/memory-agent";
import { registerMembers } from "./support/workspaces";

const used: string[] = [];
afterEach(async () => {
  for (const id of used.splice(0)) await clearAlarm(id);
});

async function expectConditional(userId: string, path: string, version: string) {
  const etag = `"${version}"`;
  const get = await call(userId, "GET", path, { headers: { "if-none-match": etag } });
  expect(get.status).toBe(304);
  const head = await call(userId, "HEAD", path, { headers: { "if-none-match": etag } });
  expect(head.status).toBe(304);
  expect(head.headers.get("etag")).toBe(etag);
  expect(await head.text()).toBe("");
  const other = await call(userId, "HEAD", path, { headers: { "if-none-match": '"other"' } });
  expect(other.status).toBe(200);
  expect(other.headers.get("etag")).toBe(etag);
  expect(await other.text()).toBe("");
}

describe("HEAD with If-None-Match", () => {
  it("is a 304 for the caller's current memory, as GET is", async () => {
    const me = newUserId("head");
    used.push(me);
    await registerMembers(me);
    await installAgent(me, null);
    const [id] = await ingestSettled(me, [item({ externalId: "head-1" })]);
    const version = await seedMemory(me, [statement("Work", "Heads the team", id!)], {
      generatedAt: hoursAgo(1),
    });
    await expectConditional(me, "/memory", version);
  });

  it("is a 304 for a memory its agent generated (and the edge cache holds), as GET is", async () => {
    const me = newUserId("head-generated");
    used.push(me);
    await registerMembers(me);
    const generator = new FakeGenerator();
    await installAgent(me, generator);
    const [id] = await ingestSettled(me, [item({ externalId: "head-gen" })]);
    generator.push({ kind: "accept", statements: [statement("Work", "Heads the launch", id!)] });
    await agentStub(me).requestRefresh(me, "manual");
    expect(await runAlarm(me)).toBe(true);
    const read = await call(me, "GET", "/memory");
    const version = ((await read.json()) as { version: string }).version;
    await expectConditional(me, "/memory", version);
  });

  it("is a 304 for a team's current memory, as GET is", async () => {
    const me = newUserId("head-member");
    const team = `head-${crypto.randomUUID().slice(0, 8)}`;
    const key = teamKey("default", team);
    used.push(me, key);
    await registerMembers(me);
    await installAgent(me, null);
    const created = await call(newUserId("head-admin"), "PUT", `/teams/${team}`, {
      body: { name: "Head", members: [me] },
      scopes: [...READ_WRITE, "admin"],
    });
    expect(created.status).toBe(201);
    const [id] = await ingestSettled(me, [item({ externalId: "head-team", sharedWith: [`team:${team}`] })]);
    const version = await seedMemory(key, [statement("Work", "Ships together", id!)], {
      generatedAt: hoursAgo(1),
    });
    await expectConditional(me, `/teams/${team}/memory`, version);
  });
});
