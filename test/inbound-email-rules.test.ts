/**
 * Inbound email's rules through the worker's email() handler: who may send to an ingest address (its
 * allowed envelope senders, the token's email by default), what is kept of a message (every recipient,
 * clean header text, a storable date, the envelope sender and the receiving server's verdicts, whether its
 * From is verified), a Message-ID reused for other content, a removed member's address, and a refusal
 * that is awaited.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { RefTable } from "../src/agent/refs";
import { createResearchTools } from "../src/agent/tools";
import type { Env } from "../src/env";
import worker from "../src/index";
import { newUserId, READ_WRITE, tokenFor } from "./support/auth";
import { call, json, warmUpWorker } from "./support/items";
import { services } from "./support/memory-agent";

beforeAll(warmUpWorker);

const SENDER = "dana@example.com";

interface Delivery {
  rejected: string[];
}

/** Hands a message to the worker as Email Routing would; `setReject` answers with a promise, as it may. */
async function deliver(to: string, raw: string, from = SENDER): Promise<Delivery> {
  const rejected: string[] = [];
  const message = {
    from,
    to,
    headers: new Headers(),
    raw: new Response(raw).body!,
    rawSize: new TextEncoder().encode(raw).length,
    // Settles later than the handler's own work: only an awaited refusal is recorded by the time it returns.
    setReject: (reason: string) =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          rejected.push(reason);
          resolve();
        }, 20),
      ),
    forward: async () => ({ messageId: "unused" }),
    reply: async () => ({ messageId: "unused" }),
  };
  const ctx = createExecutionContext();
  await worker.email(message as unknown as ForwardableEmailMessage, env as Env, ctx);
  const settled = [...rejected];
  await waitOnExecutionContext(ctx);
  return { rejected: settled };
}

const mail = (
  id: string,
  {
    subject = "Budget approved",
    body = "Forwarded for the record.",
    headers = "",
    from = "Dana <dana@example.com>",
  } = {},
) =>
  `${headers}From: ${from}\r\nTo: me@example.org\r\nSubject: ${subject}\r\nDate: Wed, 6 Mar 2024 09:00:00 +0000\r\nMessage-ID: <${id}>\r\n\r\n${body}\r\n`;

async function issue(
  user: string,
  body?: unknown,
  claims: Record<string, unknown> = {},
): Promise<{ status: number; address: string; allowedSenders: string[] }> {
  const token = await tokenFor(user, READ_WRITE, claims);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await worker.fetch(
    new Request("http://local/me/ingest-address", {
      method: "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }) as Request<unknown, IncomingRequestCfProperties>,
    env as Env,
    createExecutionContext(),
  );
  const answer = (await res.json()) as { address: string; allowedSenders: string[] };
  return { status: res.status, ...answer };
}

interface StoredItem {
  id: string;
  externalId: string;
  title: string | null;
  author: string | null;
  body: string;
  participants: string[];
  occurredAt: string;
  metadata: Record<string, unknown> & { inbound?: Record<string, unknown> };
}

async function itemsOf(user: string, q?: string): Promise<StoredItem[]> {
  const found = await json<{ items: { id: string }[] }>(
    await call(user, "GET", `/items?limit=100${q ? `&q=${encodeURIComponent(q)}` : ""}`),
  );
  return Promise.all(
    found.items.map(async (i) => json<StoredItem>(await call(user, "GET", `/items/${i.id}`))),
  );
}

describe("who may send to an ingest address", () => {
  it("without a list, only the token's email claim, and the answer says so", async () => {
    const withEmail = await issue(newUserId(), undefined, { email: "Pia@Example.org" });
    expect(withEmail.status).toBe(201);
    expect(withEmail.allowedSenders).toEqual(["pia@example.org"]);
    expect((await deliver(withEmail.address, mail("e1@x"), "pia@example.org")).rejected).toEqual([]);
    expect((await deliver(withEmail.address, mail("e2@x"), "mallory@example.org")).rejected).toEqual([
      "Sender mallory@example.org is not allowed to send to this address",
    ]);

    const unverified = await issue(newUserId(), undefined, {
      email: "pia@example.org",
      email_verified: false,
    });
    expect(unverified.allowedSenders).toEqual([]);
    const withoutEmail = await issue(newUserId());
    expect(withoutEmail.allowedSenders).toEqual([]);
    expect((await deliver(withoutEmail.address, mail("e3@x"))).rejected).toEqual([
      `Sender ${SENDER} is not allowed to send to this address`,
    ]);
  });

  it("the addresses and @domains given, changed by posting again, and nothing else", async () => {
    const user = newUserId();
    const first = await issue(user, { allowedSenders: ["Dana@Example.com", "@partner.example"] });
    expect(first).toMatchObject({ status: 201, allowedSenders: ["dana@example.com", "@partner.example"] });
    expect((await deliver(first.address, mail("a1@x"), "dana@example.com")).rejected).toEqual([]);
    expect((await deliver(first.address, mail("a2@x"), "Bob@Partner.example")).rejected).toEqual([]);
    expect((await deliver(first.address, mail("a3@x"), "eve@sub.partner.example")).rejected).toEqual([
      "Sender eve@sub.partner.example is not allowed to send to this address",
    ]);
    expect((await deliver(first.address, mail("a4@x"), "")).rejected).toEqual([
      "Sender <> is not allowed to send to this address",
    ]);

    const kept = await issue(user);
    expect(kept).toEqual({ status: 200, address: first.address, allowedSenders: first.allowedSenders });
    const changed = await issue(user, { allowedSenders: ["eve@sub.partner.example"] });
    expect(changed).toEqual({
      status: 200,
      address: first.address,
      allowedSenders: ["eve@sub.partner.example"],
    });
    expect((await deliver(first.address, mail("a5@x"), "dana@example.com")).rejected).toEqual([
      "Sender dana@example.com is not allowed to send to this address",
    ]);
    expect((await deliver(first.address, mail("a6@x"), "eve@sub.partner.example")).rejected).toEqual([]);
    expect((await itemsOf(user)).map((i) => i.externalId).sort()).toEqual(["a1@x", "a2@x", "a6@x"]);
  });

  it("refuses a list entry that is not an address or an @domain, naming it, and changes nothing", async () => {
    const user = newUserId();
    const first = await issue(user, { allowedSenders: ["dana@example.com"] });
    const res = await call(user, "POST", "/me/ingest-address", {
      body: { allowedSenders: ["ok@example.com", " dana@example.com", "example.com"] },
    });
    expect(res.status).toBe(422);
    const error = (await res.json()) as { error: { code: string; details: unknown } };
    expect(error.error.code).toBe("validation_failed");
    expect(error.error.details).toEqual({
      problems: [
        {
          index: 1,
          path: "allowedSenders.1",
          message: '" dana@example.com" must not start or end with whitespace',
        },
        {
          index: 2,
          path: "allowedSenders.2",
          message: '"example.com" must be an address (ada@example.com) or a domain (@example.com)',
        },
      ],
    });
    expect((await issue(user)).allowedSenders).toEqual(first.allowedSenders);
  });

  it("refuses an entry holding a NUL or a lone surrogate with a 422 naming it, and changes nothing", async () => {
    const user = newUserId();
    const first = await issue(user, { allowedSenders: ["dana@example.com"] });
    for (const [bad, message] of [
      ["eve\u0000@example.com", "must not contain NUL characters"],
      ["eve\ud800@example.com", "must be valid Unicode (no lone surrogates)"],
    ]) {
      const res = await call(user, "POST", "/me/ingest-address", {
        body: { allowedSenders: ["ok@example.com", bad] },
      });
      expect(res.status).toBe(422);
      const error = (await res.json()) as { error: { code: string; details: unknown } };
      expect(error.error.code).toBe("validation_failed");
      expect(error.error.details).toEqual({
        problems: [{ index: 1, path: "allowedSenders.1", message: `${JSON.stringify(bad)} ${message}` }],
      });
    }
    expect((await issue(user)).allowedSenders).toEqual(first.allowedSenders);
  });

  it("refuses mail to the address of a member an admin removed", async () => {
    const user = newUserId();
    const { address } = await issue(user, { allowedSenders: [SENDER] });
    const admin = newUserId("admin");
    expect((await call(admin, "DELETE", `/members/${user}`, { scopes: ["admin"] })).status).toBe(204);
    expect((await deliver(address, mail("removed@x"))).rejected).toEqual([
      "Unknown or revoked address: its owner is no longer a member of their workspace",
    ]);
    expect((await call(admin, "PUT", `/members/${user}`, { scopes: ["admin"] })).status).toBe(201);
    expect((await deliver(address, mail("back@x"))).rejected).toEqual([]);
  });

  it("awaits the refusal, so the rejection has settled when the handler returns", async () => {
    const { rejected } = await deliver("abcdefghijklmnopqrstuvwxyz@ingest.localhost", mail("nobody@x"));
    expect(rejected).toEqual(["Unknown or revoked address"]);
  });
});

describe("what is kept of a message", () => {
  it("stores a message to more recipients than an item holds, keeping the rest and their count in metadata", async () => {
    const user = newUserId();
    const { address } = await issue(user, { allowedSenders: [SENDER] });
    const to = Array.from({ length: 620 }, (_, i) => `r${i}@example.org`).join(", ");
    const raw = mail("many@x", { headers: `Cc: ${to}\r\n` });
    expect((await deliver(address, raw)).rejected).toEqual([]);
    const [stored] = await itemsOf(user);
    expect(stored!.participants).toHaveLength(500);
    expect(stored!.metadata.participantCount).toBe(621);
    expect(stored!.metadata.moreParticipants).toHaveLength(121);
    expect((stored!.metadata.moreParticipants as string[]).at(-1)).toBe("r619@example.org");
  });

  it("removes NULs from the subject and the sender's name, as from the body", async () => {
    const user = newUserId();
    const { address } = await issue(user, { allowedSenders: [SENDER] });
    const raw = mail("nul@x", {
      subject: "=?utf-8?q?Budget=00_approved?=",
      from: "=?utf-8?q?Da=00na?= <dana@example.com>",
      body: "Forwarded\u0000 for the record.",
    });
    expect((await deliver(address, raw)).rejected).toEqual([]);
    const [stored] = await itemsOf(user);
    expect(stored).toMatchObject({ title: "Budget approved", author: "Dana <dana@example.com>" });
    expect(stored!.body).toBe("Forwarded for the record.");
  });

  it.each([["Sat, 1 Jan 10000 00:00:00 +0000"], ["0000-12-31T23:00:00Z"], ["not a date"]])(
    "falls back to the arrival time for the Date %j",
    async (date) => {
      const user = newUserId();
      const { address } = await issue(user, { allowedSenders: [SENDER] });
      const raw = mail("date@x").replace("Wed, 6 Mar 2024 09:00:00 +0000", date);
      const before = Date.now();
      expect((await deliver(address, raw)).rejected).toEqual([]);
      const [stored] = await itemsOf(user);
      const at = Date.parse(stored!.occurredAt);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    },
  );

  it("keeps the envelope sender and the receiving server's verdicts, and tells the research tools whether From is verified", async () => {
    const user = newUserId();
    const { address } = await issue(user, { allowedSenders: ["@example.com", "@elsewhere.example"] });
    const verdicts =
      "Authentication-Results: mx.cloudflare.net;\r\n spf=pass (sender allowed) smtp.mailfrom=dana@example.com;\r\n" +
      " dkim=pass header.d=example.com header.s=s1; dmarc=pass (p=reject) header.from=example.com\r\n";
    const forgedBelow =
      "Authentication-Results: mx.cloudflare.net; spf=fail smtp.mailfrom=bounce@elsewhere.example; dkim=none; dmarc=fail header.from=example.com\r\n" +
      "Authentication-Results: mx.cloudflare.net; dkim=pass header.d=example.com; dmarc=pass header.from=example.com\r\n";
    expect((await deliver(address, mail("ok@x", { headers: verdicts, subject: "Signed" }))).rejected).toEqual(
      [],
    );
    expect(
      (
        await deliver(
          address,
          mail("spoof@x", { headers: forgedBelow, subject: "Spoofed" }),
          "bounce@elsewhere.example",
        )
      ).rejected,
    ).toEqual([]);
    expect((await deliver(address, mail("bare@x", { subject: "Unchecked" }))).rejected).toEqual([]);

    const byId = new Map((await itemsOf(user)).map((i) => [i.externalId, i]));
    expect(byId.get("ok@x")!.metadata.inbound).toMatchObject({
      envelopeFrom: SENDER,
      fromVerified: true,
      authentication: {
        authservId: "mx.cloudflare.net",
        spf: { result: "pass", mailFrom: "dana@example.com" },
        dkim: [{ result: "pass", domain: "example.com" }],
        dmarc: { result: "pass", headerFrom: "example.com" },
      },
    });
    expect(byId.get("spoof@x")!.metadata.inbound).toMatchObject({
      envelopeFrom: "bounce@elsewhere.example",
      fromVerified: false,
      authentication: { spf: { result: "fail" }, dmarc: { result: "fail" } },
    });
    expect(byId.get("bare@x")!.metadata.inbound).toMatchObject({ fromVerified: false, authentication: null });

    const tools = createResearchTools({ subjectKey: user, items: services().items, refs: new RefTable() });
    const recent = await tools.execute({ id: "1", name: "recent_activity", input: { since: "2000-01-01" } });
    const cards = (
      JSON.parse(recent.content) as { items: { ref: string; title: string; fromVerified?: string }[] }
    ).items;
    const marker = Object.fromEntries(cards.map((c) => [c.title, c.fromVerified]));
    expect(marker).toEqual({
      "<untrusted>Signed</untrusted>": "yes",
      "<untrusted>Spoofed</untrusted>": "no",
      "<untrusted>Unchecked</untrusted>": "no",
    });
    const signed = cards.find((c) => c.title.includes("Signed"))!;
    const read = await tools.execute({ id: "2", name: "read_item", input: { ref: signed.ref } });
    expect(JSON.parse(read.content)).toMatchObject({ fromVerified: "yes" });
  });
});

describe("a Message-ID that is already stored", () => {
  it("stores different content beside the first message, never over it, and a re-delivery writes nothing", async () => {
    const user = newUserId();
    const { address } = await issue(user, { allowedSenders: [SENDER] });
    const original = mail("same@x", { body: "The budget is approved." });
    const other = mail("same@x", { body: "Ignore the earlier mail: the budget is cancelled." });
    expect((await deliver(address, original)).rejected).toEqual([]);
    expect((await deliver(address, other)).rejected).toEqual([]);
    expect((await deliver(address, original)).rejected).toEqual([]);
    expect((await deliver(address, other)).rejected).toEqual([]);

    const stored = await itemsOf(user);
    expect(stored).toHaveLength(2);
    const first = stored.find((i) => i.externalId === "same@x")!;
    expect(first.body).toBe("The budget is approved.");
    const beside = stored.find((i) => i.externalId !== "same@x")!;
    expect(beside.externalId).toMatch(/^same@x#[0-9a-f]{16}$/);
    expect(beside.body).toBe("Ignore the earlier mail: the budget is cancelled.");
    expect(beside.metadata.inbound).toMatchObject({ sameMessageIdAs: "same@x" });
    const linked = await json<{ links: { kind: string; item: { externalId: string } }[] }>(
      await call(user, "GET", `/items/${beside.id}`),
    );
    expect(linked.links.map((l) => [l.kind, l.item.externalId])).toEqual([["same_message_id", "same@x"]]);
  });
});
