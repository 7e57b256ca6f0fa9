/** The person filter in every search mode, with the vector channel: items naming any identifier of the person. */
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "../support/auth";
import { call, ingest, item, json, warmUpWorker } from "../support/items";
import { registerMembers } from "../support/workspaces";
import { externalIds, MODES, search, untilIndexed } from "./support";

beforeAll(warmUpWorker);

describe("GET /items?person= with an embedding model", () => {
  it("keeps to the person's items in hybrid, keyword and semantic search", async () => {
    const user = newUserId("people-hybrid");
    const body = "The zephyr harbour launch moves to Tuesday.";
    const written = await ingest(user, [
      item({ externalId: "mail", body, author: "Ada Lovelace <ada@acme.com>", participants: [] }),
      item({
        source: "slack",
        externalId: "chat",
        kind: "message",
        body,
        author: undefined,
        participants: [],
        people: [
          {
            role: "author",
            name: "Ada Lovelace",
            email: "ada@acme.com",
            handles: [{ kind: "slack", value: "T1/U5" }],
          },
        ],
      }),
      item({
        source: "slack",
        externalId: "chat-id-only",
        kind: "message",
        body,
        author: undefined,
        participants: [],
        people: [{ role: "author", handles: [{ kind: "slack", value: "T1/U5" }] }],
      }),
      item({ externalId: "other", body, author: "Carl <carl@acme.com>", participants: [] }),
    ]);
    // Another owner's items by the same person: one shared with the user, one not (the owner's items are
    // read through the text index with the people keys: another owner's must never come with them).
    const colleague = newUserId("people-hybrid-other");
    await registerMembers(user, colleague);
    const theirs = await ingest(colleague, [
      item({ externalId: "theirs", body, author: "Ada Lovelace <ada@acme.com>", participants: [] }),
      item({
        externalId: "shared",
        body,
        author: "Ada Lovelace <ada@acme.com>",
        participants: [],
        sharedWith: [user],
      }),
    ]);
    await untilIndexed(
      user,
      written.map((w) => w.id),
    );
    await untilIndexed(
      colleague,
      theirs.map((w) => w.id),
    );
    const people = await json<{ people: { id: string; name: string }[] }>(
      await call(user, "GET", "/people?q=lovelace"),
    );
    const ada = people.people[0]!;
    for (const mode of MODES) {
      const page = await search(user, `q=zephyr%20harbour%20launch&mode=${mode}&person=${ada.id}`);
      expect(externalIds(page).sort(), mode).toEqual(["chat", "chat-id-only", "mail", "shared"]);
    }
  });
});
