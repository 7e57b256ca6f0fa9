import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../src/env";
import worker from "../src/index";
import { newUserId } from "./support/auth";
import { call, json, warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

/** The envelope sender of the test's messages. */
const SENDER = "sender@example.net";

/** A message as Email Routing hands it to the worker (the fields the handler reads, plus the rest). */
function inbound(to: string, raw: string, rawSize = new TextEncoder().encode(raw).length, from = SENDER) {
  const rejected: string[] = [];
  const message = {
    from,
    to,
    headers: new Headers(),
    raw: new Response(raw).body!,
    rawSize,
    setReject: (reason: string) => rejected.push(reason),
    forward: async () => ({ messageId: "unused" }),
    reply: async () => ({ messageId: "unused" }),
  };
  return { message: message as unknown as ForwardableEmailMessage, rejected };
}

async function deliver(to: string, raw: string, rawSize?: number) {
  const { message, rejected } = inbound(to, raw, rawSize);
  const ctx = createExecutionContext();
  await worker.email(message, env as Env, ctx);
  await waitOnExecutionContext(ctx);
  return rejected;
}

const mail = (id: string, subject: string, extra = "") =>
  `From: Dana <dana@example.com>\r\nTo: me@example.org\r\nSubject: ${subject}\r\nDate: Wed, 6 Mar 2024 09:00:00 +0000\r\nMessage-ID: <${id}>\r\n${extra}\r\nForwarded for the record.\r\n`;

/** The user's address, accepting mail from the test's envelope sender. */
async function address(user: string): Promise<{ status: number; address: string }> {
  const res = await call(user, "POST", "/me/ingest-address", { body: { allowedSenders: [SENDER] } });
  return { status: res.status, address: (await json<{ address: string }>(res)).address };
}

describe("inbound email", () => {
  it("gives each user one private address, the same on every request", async () => {
    const user = newUserId();
    const first = await address(user);
    expect(first.status).toBe(201);
    expect(first.address).toMatch(/^[a-z2-7]{26}@ingest\.localhost$/);
    expect(await address(user)).toEqual({ status: 200, address: first.address });
    expect((await address(newUserId())).address).not.toBe(first.address);
  });

  it("turns a message sent to the address into the user's email item, threaded by In-Reply-To", async () => {
    const user = newUserId();
    const { address: to } = await address(user);
    expect(await deliver(to, mail("root-in@example.com", "Budget approved"))).toEqual([]);
    expect(
      await deliver(
        to,
        mail("reply-in@example.com", "Re: Budget approved", "In-Reply-To: <root-in@example.com>\r\n"),
      ),
    ).toEqual([]);
    const found = await json<{ items: { id: string; externalId: string; source: string }[] }>(
      await call(user, "GET", "/items?q=budget"),
    );
    expect(found.items.map((i) => [i.source, i.externalId]).sort()).toEqual([
      ["email", "reply-in@example.com"],
      ["email", "root-in@example.com"],
    ]);
    const reply = found.items.find((i) => i.externalId === "reply-in@example.com")!;
    const stored = await json<{ author: string; links: { kind: string; item: { externalId: string } }[] }>(
      await call(user, "GET", `/items/${reply.id}`),
    );
    expect(stored.author).toBe("Dana <dana@example.com>");
    expect(stored.links.map((l) => [l.kind, l.item.externalId])).toEqual([["reply", "root-in@example.com"]]);
  });

  it("rejects mail to an unknown address", async () => {
    expect(await deliver("abcdefghijklmnopqrstuvwxyz@ingest.localhost", mail("x@example.com", "hi"))).toEqual(
      ["Unknown or revoked address"],
    );
    expect(await deliver("someone@elsewhere.example", mail("y@example.com", "hi"))).toEqual([
      "Unknown or revoked address",
    ]);
  });

  it("rejects mail to a revoked address, and DELETE is a 404 once nothing is left to revoke", async () => {
    const user = newUserId();
    const { address: to } = await address(user);
    expect((await call(user, "DELETE", "/me/ingest-address")).status).toBe(204);
    expect(await deliver(to, mail("late@example.com", "too late"))).toEqual(["Unknown or revoked address"]);
    expect((await call(user, "DELETE", "/me/ingest-address")).status).toBe(404);
    const renewed = await address(user);
    expect(renewed.status).toBe(201);
    expect(renewed.address).not.toBe(to);
  });

  it("rejects an oversized message with the limit in the reason, and stores nothing", async () => {
    const user = newUserId();
    const { address: to } = await address(user);
    const reasons = await deliver(to, mail("huge@example.com", "huge"), 50 * 1024 * 1024);
    expect(reasons).toEqual([
      `Message too large: ${50 * 1024 * 1024} bytes; the limit is ${10 * 1024 * 1024} bytes`,
    ]);
    const found = await json<{ items: unknown[] }>(await call(user, "GET", "/items?q=huge"));
    expect(found.items).toEqual([]);
  });

  it("needs a token with items:write to get an address", async () => {
    const res = await call(newUserId(), "POST", "/me/ingest-address", { scopes: ["memory:read"] });
    expect(res.status).toBe(403);
  });
});
