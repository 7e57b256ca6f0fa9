/**
 * A small client of the fake LLM server's control API, for tests running in workerd. Key every script
 * and fault by something unique to the test that the request carries anyway (the run's end-user id,
 * endUserIdOf(subjectKey), on every generator and judge request), so tests running at the same time never
 * see each other's turns.
 *
 *   const llm = fakeLlm();
 *   const script = await llm.script(subjectKey, [{ toolCalls: [...] }, { text: "<memory>...</memory>" }]);
 *   ... run the code under test ...
 *   await script.assertComplete();
 */
import { env } from "cloudflare:workers";
import type {
  FakeFault,
  FakeRole,
  FakeTurn,
  FaultState,
  RecordedRequest,
  ScriptState,
} from "./node/fake-llm/protocol";

export type {
  FakeFault,
  FakeReply,
  FakeToolCall,
  FakeTurn,
  NeutralRequest,
  RecordedRequest,
} from "./node/fake-llm/protocol";

export interface ScriptHandle {
  id: string;
  state(): Promise<ScriptState>;
  /** The requests the script answered, oldest first. */
  requests(): Promise<RecordedRequest[]>;
  /** Throws unless every scripted turn was used. */
  assertComplete(): Promise<void>;
  remove(): Promise<void>;
}

export interface FaultHandle {
  id: string;
  state(): Promise<FaultState>;
  remove(): Promise<void>;
}

type Role = FakeRole;

export interface FakeLlmControl {
  /** The server's base URL; the SDKs use `${url}/anthropic` and `${url}/openai/v1` (chat and embeddings). */
  url: string;
  script(match: string, turns: FakeTurn[], options?: { role?: Role }): Promise<ScriptHandle>;
  fault(match: string, fault: FakeFault, options?: { times?: number; role?: Role }): Promise<FaultHandle>;
  /** Recorded requests whose body contains `match` (all of them without it), oldest first. */
  requests(match?: string, options?: { role?: Role }): Promise<RecordedRequest[]>;
}

export function fakeLlm(url: string = fakeLlmUrl()): FakeLlmControl {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/__control${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake-llm control ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  return {
    url,
    async script(match, turns, options = {}) {
      const { id } = await call<{ id: string }>("POST", "/scripts", { match, turns, role: options.role });
      const state = () => call<ScriptState>("GET", `/scripts/${id}`);
      return {
        id,
        state,
        requests: async () => (await state()).requests,
        async assertComplete() {
          const s = await state();
          if (s.remaining.length > 0) {
            throw new Error(
              `fake-llm script ${id} (${match}): ${s.remaining.length} of ${s.consumed + s.remaining.length} turns were never requested`,
            );
          }
        },
        remove: () => call<void>("DELETE", `/scripts/${id}`),
      };
    },
    async fault(match, fault, options = {}) {
      const { id } = await call<{ id: string }>("POST", "/faults", { match, fault, ...options });
      return {
        id,
        state: () => call<FaultState>("GET", `/faults/${id}`),
        remove: () => call<void>("DELETE", `/faults/${id}`),
      };
    },
    async requests(match, options = {}) {
      const query = new URLSearchParams();
      if (match !== undefined) query.set("match", match);
      if (options.role) query.set("role", options.role);
      return (await call<{ requests: RecordedRequest[] }>("GET", `/requests?${query}`)).requests;
    },
  };
}

function fakeLlmUrl(): string {
  const url = env.FAKE_LLM_URL;
  if (typeof url !== "string" || url === "")
    throw new Error("FAKE_LLM_URL is not bound (see vitest.config.ts)");
  return url;
}
