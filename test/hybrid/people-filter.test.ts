/** The person filter in every search mode, with the vector channel: items naming any identifier of the person. */
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "../support/auth";
import { call, ingest, item, json, warmUpWorker } from "../support/items";
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
    await untilIndexed(
      user,
      written.map((w) => w.id),
    );
    const people = await json<{ people: { id: string; name: string }[] }>(
      await call(user, "GET", "/people?q=lovelace"),
    );
    const ada = people.people[0]!;
    for (const mode of MODES) {
      const page = await search(user, `q=zephyr%20harbour%20launch&mode=${mode}&person=${ada.id}`);
      expect(externalIds(page).sort(), mode).toEqual(["chat", "chat-id-only", "mail"]);
    }
  });
});
