/**
 * The events a memory's changes send, end to end through the worker: a dismissal (`memory.updated`, reason
 * `dismissal`), a delete that redacts (`memory.redacted` for every subject whose versions lost statements) and
 * an erase (`subject.erased`, by the hashed id only) reach the subscribed receiver of their own workspace,
 * verified with the standardwebhooks library, with ids and counts and never a statement's or an item's words;
 * another workspace's receiver gets none of them. And the outbox: an erase whose event the queue refuses still
 * commits, keeps the event, does not retry it in a loop, and delivers it once the queue takes it again.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { erasedName } from "../src/domain/audit";
import type { WebhookPayload } from "../src/domain/webhook-events";
import { generateWebhookSecret } from "../src/domain/webhook-signature";
import { userKey } from "../src/domain/workspaces";
import type { Env } from "../src/env";
import worker from "../src/index";
import { item, warmUpWorker } from "./support/items";
import {
  clearAlarm,
  FakeGenerator,
  hoursAgo,
  installAgent,
  runAlarm,
  seedMemory,
  services,
  statement,
  testDb,
} from "./support/memory-agent";
import { receiver } from "./support/webhook-receiver";
import { sendAs } from "./support/worker-calls";
import { registerMembersIn } from "./support/workspaces";

beforeAll(warmUpWorker);
const agents: string[] = [];
afterEach(async () => {
  for (const key of agents.splice(0)) await clearAlarm(key);
});

const ALL_MEMORY_EVENTS = ["memory.updated", "memory.redacted", "subject.erased"] as const;
const newWorkspace = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

/** A receiver subscribed to every memory event of `workspace`, with the secret its deliveries verify with. */
async function subscribed(workspace: string) {
  const hooks = receiver(workspace);
  const secret = generateWebhookSecret();
  await services().webhooks.create(
    workspace,
    { url: hooks.url, events: [...ALL_MEMORY_EVENTS] },
    secret,
    new Date(),
  );
  return { ...hooks, secret };
}

/** The events the receiver got, each verified, once `done` holds for them (the queue delivers within seconds). */
async function verifiedWhen(
  hooks: Awaited<ReturnType<typeof subscribed>>,
  done: (events: WebhookPayload[]) => boolean,
): Promise<WebhookPayload[]> {
  for (let i = 0; i < 100; i++) {
    const got = await hooks.received();
    const events = got.map((d) => new Webhook(hooks.secret).verify(d.body, d.headers) as WebhookPayload);
    if (done(events)) return events;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the receiver did not get the deliveries within 20 s");
}

const ofType = (events: WebhookPayload[], type: string) => events.filter((e) => e.type === type);

const outboxOf = async (workspace: string) =>
  (
    await testDb().execute(sql`
      select attempts, last_error, next_attempt_at > now() as later from webhook_outbox where workspace_id = ${workspace}`)
  ).rows;

describe("a memory's changes", () => {
  it("are announced to their own workspace's receivers with ids and counts, never words", async () => {
    const acme = newWorkspace("acme");
    const [adaKey, bobKey] = [userKey(acme, "ada"), userKey(acme, "bob")];
    agents.push(adaKey, bobKey);
    await registerMembersIn(acme, "ada", "bob");
    const hooks = await subscribed(acme);
    const stranger = await subscribed(newWorkspace("other"));
    const ada = { user: "ada", workspace: acme };
    // Ada's agent runs only when the test runs its alarm (its clock is a year ahead), with this generator.
    const generator = new FakeGenerator();
    await installAgent(adaKey, generator);
    const ingested = await sendAs(ada, "POST", "/items", {
      items: [
        item({ externalId: "quokka", body: "Ada leads the quokka launch.", sharedWith: ["bob"] }),
        item({ externalId: "wombat", body: "Ada plans the wombat review." }),
        item({ externalId: "koala", body: "Ada hosts the koala offsite." }),
      ],
    });
    const [quokka, wombat, koala] = ((await ingested.json()) as { items: { id: string }[] }).items.map(
      (i) => i.id,
    );
    generator.push({ kind: "accept", statements: [statement("Work", "Hosts the koala offsite", koala!)] });
    const adaVersion = await seedMemory(
      adaKey,
      [
        { ...statement("Work", "Leads the quokka launch", quokka!), id: "s-quokka" },
        { ...statement("Work", "Plans the wombat review", wombat!), id: "s-wombat" },
      ],
      { generatedAt: hoursAgo(1) },
    );
    await seedMemory(
      bobKey,
      [{ ...statement("People", "Works with Ada on the quokka launch", quokka!), id: "s-bob" }],
      { generatedAt: hoursAgo(1) },
    );

    const dismissed = await sendAs(ada, "POST", "/memory/statements/s-wombat/dismiss", { reason: "old" });
    expect(dismissed.status).toBe(201);
    const [update] = await verifiedWhen(hooks, (e) => e.length >= 1);
    expect(update).toMatchObject({
      type: "memory.updated",
      workspaceId: acme,
      data: {
        subject: "ada",
        version: adaVersion,
        previousVersion: adaVersion,
        reason: "dismissal",
        statements: { added: 0, removed: 1, kept: 1 },
      },
    });

    // Deleting the shared item redacts both memories that cite it: one event per subject.
    expect((await sendAs(ada, "DELETE", `/items/${quokka}`)).status).toBe(204);
    const redacted = ofType(
      await verifiedWhen(hooks, (e) => ofType(e, "memory.redacted").length >= 2),
      "memory.redacted",
    );
    const bySubject = (e: WebhookPayload) => JSON.stringify(e.data);
    expect(redacted.sort((a, b) => bySubject(a).localeCompare(bySubject(b))).map((e) => e.data)).toEqual([
      { subject: "ada", version: adaVersion, versionsRedacted: 1 },
      { subject: "bob", version: expect.any(String), versionsRedacted: 1 },
    ]);
    // The redaction asked ada's agent for a new memory: announced as made because of the redaction.
    await runAlarm(adaKey);
    const rebuilt = ofType(
      await verifiedWhen(hooks, (e) => ofType(e, "memory.updated").length >= 2),
      "memory.updated",
    )[1];
    expect(rebuilt?.data).toMatchObject({ subject: "ada", previousVersion: adaVersion, reason: "redaction" });

    expect((await sendAs({ user: "bob", workspace: acme }, "DELETE", "/me")).status).toBe(204);
    const events = await verifiedWhen(hooks, (e) => ofType(e, "subject.erased").length >= 1);
    expect(ofType(events, "subject.erased")).toEqual([
      {
        type: "subject.erased",
        timestamp: expect.any(String),
        workspaceId: acme,
        data: { subject: await erasedName(acme, "bob") },
      },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/quokka|wombat|koala|leads|plans|hosts/i);
    expect(await stranger.received()).toEqual([]);
    expect(await outboxOf(acme)).toEqual([]);
  });

  it("commit with their event when the queue refuses it, which is sent later, once, without a loop", async () => {
    const acme = newWorkspace("refused");
    await registerMembersIn(acme, "carl");
    const hooks = await subscribed(acme);
    let refusals = 0;
    const refusing = {
      ...(env as Env),
      WEBHOOK_QUEUE: {
        send: async () => {
          refusals++;
          throw new Error("Queue send failed: the queue is unavailable");
        },
        sendBatch: async () => {
          refusals++;
          throw new Error("Queue send failed: the queue is unavailable");
        },
      },
    } as unknown as Env;
    const carl = { user: "carl", workspace: acme };
    expect((await sendAs(carl, "DELETE", "/me", undefined, refusing)).status).toBe(204);
    expect(refusals).toBe(1);
    expect(await outboxOf(acme)).toMatchObject([
      { attempts: 1, later: true, last_error: expect.stringMatching(/queue refused .*unavailable/) },
    ]);

    // The cron runs every few minutes: before the event is due again it does not even ask the queue.
    const cron = async (workerEnv: Env) => {
      const ctx = createExecutionContext();
      await worker.scheduled(
        createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }),
        workerEnv,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    };
    await cron(refusing);
    expect(refusals).toBe(1);
    expect(await outboxOf(acme)).toMatchObject([{ attempts: 1 }]);

    // Its delay has passed (30 s, moved here instead of waited for) and the queue takes events again.
    await testDb().execute(sql`
      update webhook_outbox set next_attempt_at = now() - interval '1 second' where workspace_id = ${acme}`);
    await cron(env as Env);
    expect(await outboxOf(acme)).toEqual([]);
    const [erased, ...more] = await verifiedWhen(hooks, (e) => e.length >= 1);
    expect(erased).toMatchObject({
      type: "subject.erased",
      data: { subject: await erasedName(acme, "carl") },
    });
    expect(more).toEqual([]);
  });
});

describe("a people correction", () => {
  it("is announced as person.corrected with its id and kind, made and withdrawn, never the identifiers", async () => {
    const acme = newWorkspace("acme-people");
    await registerMembersIn(acme, "ada");
    const hooks = receiver(acme);
    const secret = generateWebhookSecret();
    await services().webhooks.create(
      acme,
      { url: hooks.url, events: ["person.corrected"] },
      secret,
      new Date(),
    );
    const ada = { user: "ada", workspace: acme };
    const ingested = await sendAs(ada, "POST", "/items", {
      items: [
        item({ externalId: "mail-1", author: "Ada Lovelace <ada@acme.com>", participants: [] }),
        item({
          source: "github",
          externalId: "pr-1",
          kind: "pull_request",
          author: undefined,
          participants: [],
          people: [{ role: "author", handles: [{ kind: "github", value: "ada-codes" }] }],
        }),
      ],
    });
    expect(ingested.status).toBe(200);
    const merged = await sendAs(ada, "POST", "/people/merge", {
      a: "email:ada@acme.com",
      b: "github:ada-codes",
    });
    expect(merged.status).toBe(201);
    const { id } = (await merged.json()) as { id: string };
    expect((await sendAs(ada, "DELETE", `/people/corrections/${id}`)).status).toBe(200);

    const events = await verifiedWhen({ ...hooks, secret }, (e) => e.length >= 2);
    const byWithdrawn = (e: WebhookPayload) => Number((e.data as { withdrawn: boolean }).withdrawn);
    expect(events.sort((a, b) => byWithdrawn(a) - byWithdrawn(b)).map((e) => [e.type, e.data])).toEqual([
      ["person.corrected", { correction: id, kind: "merge", withdrawn: false }],
      ["person.corrected", { correction: id, kind: "merge", withdrawn: true }],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/ada@acme\.com|ada-codes/);
  });
});
