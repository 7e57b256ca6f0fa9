/**
 * A pass-through HTTP proxy between the worker and its LLM provider (real or the fake), recording the
 * generator's final answers (those holding a <memory> block), so the eval can count the statements the
 * checks or the judge made it drop. Provider-neutral: it only reads the reply's assistant text
 * (Anthropic `content[].text`, OpenAI `choices[0].message.content`); everything else passes untouched.
 *
 *   /anthropic/...  -> <anthropic upstream>/...      (worker's ANTHROPIC_BASE_URL = <proxy>/anthropic)
 *   /openai/...     -> <openai upstream>/...         (worker's OPENAI_BASE_URL    = <proxy>/openai)
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer, readBody } from "../scripts/lib/node-http";
import { MEMORY_OPEN } from "../src/agent/wire-format";

export interface RecordingProxy {
  anthropicBaseUrl: string;
  openaiBaseUrl: string;
  /** The final answers recorded since the last call, oldest first; clears them. */
  takeDrafts(): string[];
  close(): Promise<void>;
}

const PASSED_RESPONSE_HEADERS = ["content-type", "retry-after", "request-id", "x-request-id"];

export async function startRecordingProxy(upstreams: {
  anthropic: string;
  openai: string;
}): Promise<RecordingProxy> {
  let drafts: string[] = [];
  const server = createServer((req, res) => {
    forward(req, res, upstreams, (text) => {
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
    takeDrafts: () => {
      const out = drafts;
      drafts = [];
      return out;
    },
    close: () => closeServer(server),
  };
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  upstreams: { anthropic: string; openai: string },
  onAnswer: (text: string) => void,
): Promise<void> {
  const match = /^\/(anthropic|openai)(\/.*)?$/.exec(req.url ?? "");
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  const provider = match[1] as "anthropic" | "openai";
  const target = `${upstreams[provider].replace(/\/+$/, "")}${match[2] ?? ""}`;
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
  if (upstream.ok) {
    const answer = assistantText(provider, text);
    if (answer) onAnswer(answer);
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
