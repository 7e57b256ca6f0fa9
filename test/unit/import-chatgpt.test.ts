import { describe, expect, it } from "vitest";
import { parseChatgpt } from "../../src/import/chatgpt";
import example from "../fixtures/import/chatgpt/mitkury-example-conversation.json?raw";
import { collect } from "../support/import-events";

const node = (
  id: string,
  parent: string | null,
  children: string[],
  message: Record<string, unknown> | null,
) => ({
  id,
  parent,
  children,
  message: message && { id, ...message },
});
const msg = (role: string, text: string, extra: Record<string, unknown> = {}) => ({
  author: { role },
  create_time: 1_700_000_000,
  content: { content_type: "text", parts: [text] },
  recipient: "all",
  ...extra,
});

/** Shaped like a current export: a client root, a hidden system prompt, an edit branch, a tool call, empty drafts. */
const current = {
  conversation_id: "684e65c7-0000-8007-9684-3f62b6f51677",
  title: "Runtime question",
  create_time: 1_749_968_327.88,
  update_time: 1_749_968_388.92,
  current_node: "a2",
  default_model_slug: "gpt-4o",
  mapping: {
    root: node("root", null, ["sys"], null),
    sys: node(
      "sys",
      "root",
      ["u1", "u1b"],
      msg("system", "", { metadata: { is_visually_hidden_from_conversation: true } }),
    ),
    u1: node("u1", "sys", ["a1"], msg("user", "What is the .NET runtime?")),
    a1: node("a1", "u1", [], msg("assistant", "An older answer on the abandoned branch.")),
    u1b: node("u1b", "sys", ["e1"], msg("user", "What is the .NET runtime, and what if I skip it?")),
    e1: node("e1", "u1b", ["t1"], msg("assistant", "")),
    t1: node("t1", "e1", ["tr"], msg("assistant", "search('dotnet')", { recipient: "browser" })),
    tr: node("tr", "t1", ["a2"], msg("tool", "results…")),
    a2: node("a2", "tr", [], msg("assistant", "It runs .NET desktop apps; without it they will not start.")),
  },
};

describe("the ChatGPT parser", () => {
  it("imports a real export's conversation (mitkury/chatgpt-export-parser) as one note of the branch shown", () => {
    const { items, errors } = collect(parseChatgpt({ path: "conversations.json", text: example }));
    expect(errors).toEqual([]);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      externalId: "conv-123",
      kind: "note",
      title: "Sample conversation with branch",
      occurredAt: "2024-01-01T00:00:00.000Z",
      participants: ["User", "ChatGPT"],
      metadata: { messages: 4 },
    });
    expect(items[0]!.body.split("\n\n").slice(0, 3)).toEqual([
      "User: Hello! Can you help me with a programming question?",
      "ChatGPT: Of course! I'd be happy to help with your programming question. What would you like to know?",
      "User: How do I write a function in JavaScript?",
    ]);
    expect(items[0]!.body).not.toContain("Python instead");
  });

  it("follows current_node, leaving out hidden, system, tool-call, tool and empty messages", () => {
    const { items } = collect(parseChatgpt({ path: "conversations.json", text: JSON.stringify([current]) }));
    expect(items[0]).toMatchObject({
      externalId: "684e65c7-0000-8007-9684-3f62b6f51677",
      body: "User: What is the .NET runtime, and what if I skip it?\n\nChatGPT: It runs .NET desktop apps; without it they will not start.",
      occurredAt: "2025-06-15T06:18:47.880Z",
      metadata: expect.objectContaining({ messages: 2, model: "gpt-4o" }),
    });
  });

  it("skips a conversation with nothing visible and reports a malformed one, then goes on", () => {
    const empty = { ...current, conversation_id: "empty", current_node: "sys" };
    const text = JSON.stringify([empty, { title: "no id" }, "nonsense", current]);
    const { items, skipped, errors } = collect(parseChatgpt({ path: "conversations.json", text }));
    expect(items.map((i) => i.externalId)).toEqual([current.conversation_id]);
    expect(skipped).toEqual([expect.objectContaining({ reason: "conversation has no visible messages" })]);
    expect(errors.map((e) => [e.at.position, e.message])).toEqual([
      ["record 2", "conversation has no id"],
      ["record 3", "conversation is not a JSON object"],
    ]);
  });

  it("derives the same externalIds when parsed twice", () => {
    const a = collect(parseChatgpt({ path: "c.json", text: example })).items;
    expect(collect(parseChatgpt({ path: "c.json", text: example })).items).toEqual(a);
  });
});
