/**
 * A pass-through HTTP proxy between the worker and its LLM provider (real or the fake), recording the
 * generator's final answers (those holding a <memory> block), so the eval can count the statements the
 * checks or the judge made it drop, and counting the embedding calls (with the input tokens their answers
 * report, OpenAI's `usage.prompt_tokens`), which the runs ledger does not record. Provider-neutral: it only
 * reads the reply's assistant text (Anthropic `content[].text`, OpenAI `choices[0].message.content`) and
 * an embeddings answer's usage; everything else passes untouched.
 *
 *   /anthropic/...  -> <anthropic upstream>/...      (worker's ANTHROPIC_BASE_URL = <proxy>/anthropic)
 *   /openai/...     -> <openai upstream>/...         (worker's OPENAI_BASE_URL    = <proxy>/openai)
 *   /embedding/...  -> <embedding upstream>/...      (worker's EMBEDDING_BASE_URL = <proxy>/embedding)
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer, readBody } from "../scripts/lib/node-http";
import { MEMORY_OPEN } from "../src/agent/wire-format";
import type { EmbeddingUse } from "./lib/observation";

export interface RecordingProxy {
  anthropicBaseUrl: string;
  openaiBaseUrl: string;
  /** The OpenAI-compatible embeddings endpoint's base URL through the proxy. */
  embeddingBaseUrl: string;
  /** The final answers recorded since the last call, oldest first; clears them. */
  takeDrafts(): string[];
  /** The embedding calls made since the last call; resets the count. */
  takeEmbeddings(): EmbeddingUse;
  close(): Promise<void>;
}

type Route = "anthropic" | "openai" | "embedding";

const PASSED_RESPONSE_HEADERS = ["content-type", "retry-after", "request-id", "x-request-id"];

export async function startRecordingProxy(upstreams: Record<Route, string>): Promise<RecordingProxy> {
  let drafts: string[] = [];
  let embeddings: EmbeddingUse = { calls: 0, inputTokens: 0 };
  const server = createServer((req, res) => {
    forward(req, res, upstreams, (route, ok, body) => {
      if (route === "embedding") {
        embeddings.calls++;
        if (ok) embeddings.inputTokens += embeddingInputTokens(body);
        return;
      }
      const text = ok ? assistantText(route, body) : "";
      if (text.includes(MEMORY_OPEN)) drafts.push(text);
    }).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `eval proxy: ${String(err)}` } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    anthropicBaseUrl: `${url}/anthropic`,
    openaiBaseUrl: `${url}/openai`,
    embeddingBaseUrl: `${url}/embedding`,
    takeDrafts: () => {
      const out = drafts;
      drafts = [];
      return out;
    },
    takeEmbeddings: () => {
      const out = embeddings;
      embeddings = { calls: 0, inputTokens: 0 };
      return out;
    },
    close: () => closeServer(server),
  };
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstreams: Record<Route, string>,
  onAnswer: (route: Route, ok: boolean, body: string) => void,
): Promise<void> {
  const match = /^\/(anthropic|openai|embedding)(\/.*)?$/.exec(req.url ?? "");
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const route = match[1] as Route;
  const target = `${upstreams[route].replace(/\/+$/, "")}${match[2] ?? ""}`;
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined || ["host", "content-length", "connection"].includes(key)) continue;
    headers.set(key, Array.isArray(value) ? value.join(", ") : value);
  }
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : await readBody(req);
  const upstream = await fetch(target, { method: req.method, headers, body });
  const text = await upstream.text();
  const out: Record<string, string> = {};
  for (const key of PASSED_RESPONSE_HEADERS) {
    const value = upstream.headers.get(key);
    if (value !== null) out[key] = value;
  }
  res.writeHead(upstream.status, out).end(text);
  onAnswer(route, upstream.ok, text);
}

/** An embeddings answer's `usage.prompt_tokens`, or 0 when it reports none (some local servers). */
export function embeddingInputTokens(body: string): number {
  try {
    const tokens = (JSON.parse(body) as { usage?: { prompt_tokens?: unknown } } | null)?.usage?.prompt_tokens;
    return typeof tokens === "number" && Number.isFinite(tokens) ? tokens : 0;
  } catch {
    return 0;
  }
}

/** The assistant text of a (non-streamed) reply, or "" when it has none. */
export function assistantText(provider: "anthropic" | "openai", body: string): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return "";
  }
  if (typeof value !== "object" || value === null) return "";
  if (provider === "anthropic") {
    const content = (value as { content?: unknown }).content;
    if (!Array.isArray(content)) return "";
    return content
      .map((b: { type?: unknown; text?: unknown }) =>
        b.type === "text" && typeof b.text === "string" ? b.text : "",
      )
      .join("");
  }
  const choices = (value as { choices?: { message?: { content?: unknown } }[] }).choices;
  const content = choices?.[0]?.message?.content;
  return typeof content === "string" ? content : "";
}
