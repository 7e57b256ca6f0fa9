import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { discoverOAuthProtectedResourceMetadata, InsufficientScopeError } from "@modelcontextprotocol/client";
import { sign } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../src/env";
import worker from "../src/index";
import { newUserId, tokenFor } from "./support/auth";
import {
  connectClient,
  MCP_URL,
  type McpTestClient,
  settledWorkerFetch,
  type WorkerFetch,
} from "./support/mcp-clients";
import { clearAlarm, installAgent } from "./support/memory-agent";

const clients: McpTestClient[] = [];
const used: string[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const id of used.splice(0)) await clearAlarm(id);
});

/** A fresh user whose agent's alarms only run when a test runs them (reads and writes poke it). */
async function user(): Promise<string> {
  const userId = newUserId("mcp");
  used.push(userId);
  await installAgent(userId, null);
  return userId;
}

interface Seen {
  status: number;
  challenge: string | null;
  body: string;
}

/** The worker's fetch (optionally with extra settings), recording every answer the client got. */
function recordingFetch(settings: Record<string, string> = {}): { fetch: WorkerFetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const patched = { ...(env as Env), ...settings } as Env;
  const fetch: WorkerFetch = async (request) => {
    const ctx = createExecutionContext();
    const res = await (Object.keys(settings).length === 0
      ? settledWorkerFetch(request)
      : worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, patched, ctx));
    await waitOnExecutionContext(ctx);
    seen.push({
      status: res.status,
      challenge: res.headers.get("www-authenticate"),
      body: await res.clone().text(),
    });
    return res;
  };
  return { fetch, seen };
}

async function connected(
  kind: "modern" | "legacy" | "v1",
  token: string,
  options: { fetch?: WorkerFetch; headers?: Record<string, string> } = {},
) {
  const client = await connectClient(kind, { token, ...options });
  clients.push(client);
  return client;
}

describe("POST /mcp authentication", () => {
  it("is 401 with a plain Bearer challenge without a token, and invalid_token with a bad one", async () => {
    for (const [token, challenge] of [
      ["", "Bearer"],
      ["not.a.jwt", 'Bearer error="invalid_token"'],
    ] as const) {
      for (const kind of ["modern", "v1"] as const) {
        const { fetch, seen } = recordingFetch();
        const client = connectClient(kind, { token, fetch });
        await expect(client).rejects.toThrow();
        expect(seen[0]).toMatchObject({ status: 401, challenge });
        expect(JSON.parse(seen[0]!.body).error.code).toBe("unauthorized");
      }
    }
  });

  it("answers 403 insufficient_scope, naming the scope, to a tool call the token may not make", async () => {
    const me = await user();
    const { fetch, seen } = recordingFetch();
    const reader = await connected("modern", await tokenFor(me, ["memory:read"]), { fetch });
    const refusal = reader.callTool("remember", { text: "I like tea" });
    await expect(refusal).rejects.toBeInstanceOf(InsufficientScopeError);
    await expect(refusal).rejects.toMatchObject({ requiredScope: "items:write" });
    expect(seen.at(-1)).toMatchObject({ status: 403 });
    expect(seen.at(-1)!.challenge).toBe(
      'Bearer error="insufficient_scope", error_description="This token lacks the items:write scope", scope="items:write"',
    );
    // The read tools stay available to that token.
    expect((await reader.callTool("search_items", {})).isError).toBeFalsy();

    const v1 = recordingFetch();
    const writerOnly = await connected("v1", await tokenFor(me, ["items:write"]), { fetch: v1.fetch });
    await expect(writerOnly.callTool("get_memory", {})).rejects.toThrow(/insufficient_scope.*memory:read/);
    expect(v1.seen.at(-1)).toMatchObject({ status: 403 });
    expect(v1.seen.at(-1)!.challenge).toContain('scope="memory:read"');
    await expect(writerOnly.readResource("memory://me")).rejects.toThrow(/insufficient_scope/);
    expect((await writerOnly.callTool("remember", { text: "I like tea" })).isError).toBeFalsy();

    const admin = await connected("legacy", await tokenFor(me, ["admin"]));
    const memory = await admin.callTool("get_memory", {});
    expect(memory.isError).toBeFalsy();
  });

  it("refuses a browser Origin that is not configured, and serves one that is", async () => {
    const token = await tokenFor(newUserId("mcp"));
    const { fetch, seen } = recordingFetch();
    await expect(
      connectClient("modern", { token, fetch, headers: { origin: "https://evil.example" } }),
    ).rejects.toThrow();
    expect(seen[0]!.status).toBe(403);
    expect(JSON.parse(seen[0]!.body).error).toMatchObject({
      code: "forbidden",
      message: "Origin https://evil.example is not allowed to call /mcp",
    });

    const allowed = recordingFetch({ MCP_ALLOWED_ORIGINS: "https://app.example, https://other.example" });
    const client = await connected("modern", token, {
      fetch: allowed.fetch,
      headers: { origin: "https://app.example" },
    });
    expect((await client.listTools()).tools.length).toBe(12);
  });
});

describe("protected-resource metadata (RFC 9728)", () => {
  it("is 404 without an authorization server, and challenges carry no resource_metadata", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const res = await settledWorkerFetch(new Request(`http://local${path}`));
      expect(res.status).toBe(404);
    }
    const res = await settledWorkerFetch(new Request(MCP_URL, { method: "POST" }));
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("in JWKS mode describes both resources and is named in every challenge", async () => {
    const issuer = "https://login.example.com/";
    const key = await rsaKey("k1");
    const jwksUrl = `${inject("jwksServerUrl")}/jwks/mcp-prm`;
    await fetch(jwksUrl, { method: "PUT", body: JSON.stringify({ keys: [key.publicJwk] }) });
    const settings = { AUTH_JWKS_URL: jwksUrl, AUTH_ISSUER: issuer, AUTH_AUDIENCE: "unified-memory" };
    const { fetch: workerFetch, seen } = recordingFetch(settings);
    const clientFetch = (url: string | URL, init?: RequestInit) => workerFetch(new Request(url, init));

    const metadata = await discoverOAuthProtectedResourceMetadata(MCP_URL, {}, clientFetch);
    expect(metadata).toEqual({
      resource: "http://local/mcp",
      authorization_servers: [issuer],
      scopes_supported: ["memory:read", "items:write", "admin"],
      bearer_methods_supported: ["header"],
      resource_name: "unified-memory MCP server",
    });
    const api = await workerFetch(new Request("http://local/.well-known/oauth-protected-resource"));
    expect(await api.json()).toMatchObject({ resource: "http://local" });

    await workerFetch(new Request(MCP_URL, { method: "POST" }));
    expect(seen.at(-1)!.challenge).toBe(
      'Bearer resource_metadata="http://local/.well-known/oauth-protected-resource/mcp"',
    );
    await workerFetch(new Request("http://local/items", { headers: { authorization: "Bearer nope" } }));
    expect(seen.at(-1)!.challenge).toBe(
      'Bearer error="invalid_token", resource_metadata="http://local/.well-known/oauth-protected-resource"',
    );

    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: newUserId("jwks"), scope: "memory:read", iss: issuer, aud: "unified-memory" };
    const token = await sign({ ...claims, iat: now, exp: now + 300 }, key.privateJwk, "RS256");
    const client = await connected("modern", token, { fetch: workerFetch });
    await expect(client.callTool("forget_item", { id: crypto.randomUUID() })).rejects.toMatchObject({
      requiredScope: "items:write",
      resourceMetadataUrl: new URL("http://local/.well-known/oauth-protected-resource/mcp"),
    });
  });
});

async function rsaKey(kid: string) {
  const pair = (await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const privateJwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as HonoJsonWebKey;
  const publicJwk = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as HonoJsonWebKey;
  return { privateJwk: { ...privateJwk, kid, alg: "RS256" }, publicJwk: { ...publicJwk, kid, alg: "RS256" } };
}
