/** HTTP hygiene: 405 with Allow, 415 for non-JSON bodies, headers on every answer, our own request ids. */
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newUserId } from "./support/auth";
import { call, item, json, warmUpWorker } from "./support/items";

beforeAll(warmUpWorker);

describe("a known path asked with another method", () => {
  it.each([
    ["PUT", "/items", "GET, HEAD, POST"],
    ["PATCH", "/items/00000000-0000-4000-8000-000000000000", "DELETE, GET, HEAD"],
    ["POST", "/memory", "GET, HEAD"],
    ["DELETE", "/memory/runs", "GET, HEAD"],
    ["GET", "/memory/refresh", "POST"],
    ["GET", "/me", "DELETE"],
    ["POST", "/health", "GET, HEAD"],
  ])("%s %s answers 405 with Allow: %s", async (method, path, allow) => {
    const res = await call(newUserId(), method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect((await json<{ error: { code: string } }>(res)).error.code).toBe("method_not_allowed");
  });

  it("GET / from a browser (Accept: text/html) redirects to the console; an API client gets the JSON 404", async () => {
    const browser = await exports.default.fetch("http://local/", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      redirect: "manual",
    });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/console/");
    const api = await exports.default.fetch("http://local/", { headers: { accept: "application/json" } });
    expect(api.status).toBe(404);
    expect((await json<{ error: { code: string } }>(api)).error.code).toBe("not_found");
  });

  it("an unknown path is still a 404", async () => {
    const res = await call(newUserId(), "GET", "/nowhere");
    expect(res.status).toBe(404);
    expect((await json<{ error: { code: string } }>(res)).error.code).toBe("not_found");
  });
});

describe("POST /items with a body that is not declared as JSON", () => {
  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])(
    "Content-Type %s is a 415",
    async (contentType) => {
      const res = await call(newUserId(), "POST", "/items", {
        body: JSON.stringify({ items: [item({ externalId: "a" })] }),
        headers: { "content-type": contentType },
      });
      expect(res.status).toBe(415);
      expect((await json<{ error: { code: string } }>(res)).error.code).toBe("unsupported_media_type");
    },
  );

  it("accepts application/json with a charset", async () => {
    const res = await call(newUserId(), "POST", "/items", {
      body: JSON.stringify({ items: [item({ externalId: "a" })] }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(200);
  });
});

describe("headers", () => {
  it("item reads are private, never stored, and not sniffed", async () => {
    const user = newUserId();
    const created = await json<{ items: { id: string }[] }>(
      await call(user, "POST", "/items", { body: { items: [item({ externalId: "a" })] } }),
    );
    for (const path of ["/items", `/items/${created.items[0]!.id}`, "/items?q=body"]) {
      const res = await call(user, "GET", path);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, no-store");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("errors are private and not sniffed either", async () => {
    const res = await exports.default.fetch("http://local/items");
    expect(res.status).toBe(401);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a client-sent cf-ray does not become the request id", async () => {
    const res = await exports.default.fetch("http://local/nowhere", { headers: { "cf-ray": "forged-ray" } });
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await json<{ error: { requestId: string } }>(res)).error.requestId).toBe(requestId);
  });
});

describe("an oversized streamed upload", () => {
  it("is refused with 413 after the rest of the body has been read, not cancelled", async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = new Uint8Array(256 * 1024).fill(0x61);
    const total = 8 * 1024 * 1024;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await call(newUserId(), "POST", "/items", {
      headers: { "content-type": "application/json" },
      stream: body,
    });
    expect(res.status).toBe(413);
    expect(cancelled).toBe(false);
    expect(pulled).toBe(total);
  });
});
