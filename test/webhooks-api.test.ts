/**
 * Webhooks over HTTP, through the real wiring: an admin registers a receiver and gets its secret once; a test
 * event and a new memory version travel the real queue to the consumer and reach the receiver, which verifies
 * them with the standardwebhooks library; the deliveries log shows each attempt. Refusals: a private or
 * plain-http address in production terms, an unknown event, a non-admin, another workspace.
 */
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { READ_WRITE } from "./support/auth";
import { item, warmUpWorker } from "./support/items";
import {
  clearAlarm,
  FakeGenerator,
  ingestSettled,
  installAgent,
  runAlarm,
  statement,
} from "./support/memory-agent";
import { receiver } from "./support/webhook-receiver";
import { sendAs } from "./support/worker-calls";

const ADMIN = [...READ_WRITE, "admin"] as const;

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const send = (
  user: string,
  method: string,
  path: string,
  body?: unknown,
  scopes: readonly string[] = ADMIN,
  workspace?: string,
) => sendAs({ user, scopes, ...(workspace ? { workspace } : {}) }, method, path, body);

interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
}

/** The endpoint's deliveries once `done` holds for them (the queue delivers within seconds), else throws. */
async function deliveriesWhen(
  admin: string,
  id: string,
  done: (deliveries: Delivery[]) => boolean,
  workspace?: string,
): Promise<Delivery[]> {
  for (let i = 0; i < 100; i++) {
    const res = await send(admin, "GET", `/webhooks/${id}/deliveries`, undefined, ADMIN, workspace);
    const { deliveries } = (await res.json()) as { deliveries: Delivery[] };
    if (done(deliveries)) return deliveries;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the deliveries did not arrive within 20 s");
}

describe("webhooks over HTTP", () => {
  it("register a receiver, show its secret once, and deliver a test event it verifies", async () => {
    const workspace = `wh-${crypto.randomUUID().slice(0, 8)}`;
    const hooks = receiver(workspace);
    const created = await send(
      "root",
      "POST",
      "/webhooks",
      {
        url: hooks.url,
        events: ["memory.updated", "subject.erased"],
        description: "the team's bot",
      },
      ADMIN,
      workspace,
    );
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string; secret: string; enabled: boolean };
    expect(endpoint).toMatchObject({ enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const listed = await (await send("root", "GET", "/webhooks", undefined, ADMIN, workspace)).json();
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);

    expect(
      (await send("root", "POST", `/webhooks/${endpoint.id}/test`, undefined, ADMIN, workspace)).status,
    ).toBe(202);
    const [delivery] = await deliveriesWhen(
      "root",
      endpoint.id,
      (d) => d[0]?.status === "delivered",
      workspace,
    );
    expect(delivery).toMatchObject({ eventType: "webhook.test", attempts: 1, lastStatus: 204 });
    const [got] = await hooks.received();
    expect(new Webhook(endpoint.secret).verify(got!.body, got!.headers)).toMatchObject({
      type: "webhook.test",
      workspaceId: workspace,
      data: { endpointId: endpoint.id },
    });

    // A rotation answers the new secret once; deliveries verify with either during the grace period.
    const rotated = (await (
      await send("root", "POST", `/webhooks/${endpoint.id}/rotate-secret`, undefined, ADMIN, workspace)
    ).json()) as { secret: string };
    expect(rotated.secret).not.toBe(endpoint.secret);
    await send("root", "POST", `/webhooks/${endpoint.id}/test`, undefined, ADMIN, workspace);
    await deliveriesWhen(
      "root",
      endpoint.id,
      (d) => d.length === 2 && d.every((x) => x.status === "delivered"),
      workspace,
    );
    const [, second] = await hooks.received();
    expect(() => new Webhook(endpoint.secret).verify(second!.body, second!.headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(second!.body, second!.headers)).not.toThrow();

    const patched = await send(
      "root",
      "PATCH",
      `/webhooks/${endpoint.id}`,
      { enabled: false },
      ADMIN,
      workspace,
    );
    expect(await patched.json()).toMatchObject({ enabled: false });
    expect(
      (await send("root", "DELETE", `/webhooks/${endpoint.id}`, undefined, ADMIN, workspace)).status,
    ).toBe(204);
    expect((await send("root", "GET", `/webhooks/${endpoint.id}`, undefined, ADMIN, workspace)).status).toBe(
      404,
    );
  });

  it("announce a new memory version to the subject's workspace with counts, never its words", async () => {
    const user = `ada-${crypto.randomUUID().slice(0, 8)}`;
    const hooks = receiver(`memory-${user}`);
    const created = (await (
      await send("root", "POST", "/webhooks", { url: hooks.url, events: ["memory.updated"] })
    ).json()) as { id: string; secret: string };
    try {
      const [itemId] = await ingestSettled(user, [
        item({ externalId: "launch", title: "Quokka launch", body: "Ada leads the quokka launch." }),
      ]);
      agents.push(user);
      const generator = new FakeGenerator({
        kind: "accept",
        statements: [statement("Work", "Leads the quokka launch", itemId!)],
      });
      const { stub } = await installAgent(user, generator);
      await stub.requestRefresh(user, "manual");
      await runAlarm(user);
      const deliveries = await deliveriesWhen("root", created.id, (d) =>
        d.some((x) => x.status === "delivered" && x.eventType === "memory.updated"),
      );
      expect(deliveries.length).toBeGreaterThan(0);
      const mine = (await hooks.received())
        .map(
          (got) => new Webhook(created.secret).verify(got.body, got.headers) as { data: { subject: string } },
        )
        .filter((payload) => payload.data.subject === user);
      expect(mine).toMatchObject([
        {
          type: "memory.updated",
          data: {
            subject: user,
            previousVersion: null,
            reason: "refresh",
            statements: { added: 1, removed: 0, kept: 0 },
          },
        },
      ]);
      expect(JSON.stringify(mine)).not.toMatch(/quokka/i);
    } finally {
      await send("root", "DELETE", `/webhooks/${created.id}`);
    }
  });

  it("refuse addresses deliveries must not reach, unknown events, non-admins and other workspaces", async () => {
    const workspace = `wh-${crypto.randomUUID().slice(0, 8)}`;
    const post = (body: unknown, scopes: readonly string[] = ADMIN) =>
      send("root", "POST", "/webhooks", body, scopes, workspace);
    for (const url of [
      "https://169.254.169.254/latest",
      "https://10.0.0.8/hook",
      "http://hooks.example.com/",
      "https://user:pw@hooks.example.com/",
    ]) {
      const res = await post({ url, events: ["memory.updated"] });
      expect(res.status, url).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^url /);
    }
    const unknown = await post({ url: "https://hooks.example.com/", events: ["memory.eaten"] });
    expect(unknown.status).toBe(400);
    expect(
      (await post({ url: "https://hooks.example.com/", events: ["memory.updated"] }, READ_WRITE)).status,
    ).toBe(403);

    const mine = (await (
      await post({ url: "https://hooks.example.com/", events: ["memory.updated"] })
    ).json()) as { id: string };
    const other = `wh-${crypto.randomUUID().slice(0, 8)}`;
    for (const [method, path, body] of [
      ["GET", `/webhooks/${mine.id}`, undefined],
      ["PATCH", `/webhooks/${mine.id}`, { url: "https://evil.example.com/" }],
      ["DELETE", `/webhooks/${mine.id}`, undefined],
      ["POST", `/webhooks/${mine.id}/rotate-secret`, undefined],
      ["GET", `/webhooks/${mine.id}/deliveries`, undefined],
    ] as const) {
      expect((await send("root", method, path, body, ADMIN, other)).status, `${method} ${path}`).toBe(404);
    }
    expect((await send("root", "GET", "/webhooks/not-a-uuid", undefined, ADMIN, workspace)).status).toBe(400);
  });
});
