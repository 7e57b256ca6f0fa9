/**
 * The eval's view of the running service, through its public API only: ingest, wait for the workspace's
 * indexing and for a run, read the memory as JSON, read cited items as the subject, read the runs ledger.
 */
import type { ApiItem } from "../fixtures/demo-workspace";
import { signDevToken } from "../scripts/lib/token";
import { postItems, registerMembers } from "../scripts/load-demo";
import type { CitedItem, ObservedStatement, RunCost } from "./lib/observation";
import type { ServedItem } from "./lib/scenarios";

interface ServedRun {
  id: string;
  status: string;
  startedAt: string | null;
  finishedAt: string | null;
  turns: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  usage: RunCost["usage"];
}

export interface FinishedRun {
  id: string;
  cost: RunCost;
}

export class ServiceClient {
  constructor(
    private readonly url: string,
    private readonly secret: string,
    /** How long one run may take before the eval gives up on it. */
    private readonly runTimeoutMs: number,
  ) {}

  /** Makes the users members of the (default) workspace, as an admin would: sharing names only members. */
  async registerMembers(userIds: string[]): Promise<void> {
    await registerMembers({ url: this.url, secret: this.secret, userIds });
  }

  async ingest(userId: string, items: ApiItem[]): Promise<void> {
    for (let i = 0; i < items.length; i += 400) {
      await postItems({ url: this.url, secret: this.secret, userId, items: items.slice(i, i + 400) });
    }
  }

  /**
   * Waits until no item of the workspace waits for the embeddings queue (GET /admin/embeddings `pending`
   * is 0; as `adminId`, whose token has the admin scope), so a run sees every item indexed. Returns at
   * once without an embedding model; throws after `timeoutMs`.
   */
  async untilIndexed(adminId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.call(adminId, "GET", "/admin/embeddings");
      if (!res.ok) throw new Error(`GET /admin/embeddings answered ${res.status}: ${await res.text()}`);
      const status = (await res.json()) as { configured: boolean; items?: number; pending?: number };
      if (!status.configured || status.pending === 0) return;
      if (Date.now() > deadline) {
        throw new Error(
          `${status.pending} of ${status.items} items still wait for the embeddings queue after ${timeoutMs} ms`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Asks for the first memory (GET /memory) and waits for the run it starts to finish. */
  async firstRun(userId: string): Promise<FinishedRun> {
    await this.call(userId, "GET", "/memory?wait=0");
    return this.untilFinished(userId, new Set());
  }

  /**
   * Forces a refresh (POST /memory/refresh) and waits for a run to finish that is neither `previousId` nor
   * any run the ledger listed before the request (an earlier run finishing is not this one).
   */
  async refreshRun(userId: string, previousId: string | null): Promise<FinishedRun> {
    const known = new Set([
      ...(await this.runs(userId)).map((r) => r.id),
      ...(previousId ? [previousId] : []),
    ]);
    const res = await this.call(userId, "POST", "/memory/refresh");
    if (res.status !== 202)
      throw new Error(`POST /memory/refresh answered ${res.status}: ${await res.text()}`);
    return this.untilFinished(userId, known);
  }

  private async runs(userId: string): Promise<ServedRun[]> {
    const res = await this.call(userId, "GET", "/memory/runs?limit=20");
    return ((await res.json()) as { runs: ServedRun[] }).runs;
  }

  /** The current memory's statements with their cited item ids, or null when there is none. */
  async statements(userId: string): Promise<ObservedStatement[] | null> {
    const res = await this.call(userId, "GET", "/memory?format=json");
    if (res.status !== 200) return null;
    const body = (await res.json()) as {
      statements: { id: string; section: string; text: string; citations: { id: string }[] }[];
    };
    return body.statements.map((s) => ({
      id: s.id,
      section: s.section,
      text: s.text,
      citations: s.citations.map((c) => c.id),
    }));
  }

  /** The whole item as `userId` reads it, or null on a 404. */
  async fullItem(userId: string, id: string): Promise<ServedItem | null> {
    const res = await this.call(userId, "GET", `/items/${encodeURIComponent(id)}`);
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`GET /items/${id} answered ${res.status}`);
    return (await res.json()) as ServedItem;
  }

  /** POST /memory/statements/:id/dismiss. */
  async dismiss(userId: string, statementId: string, reason: string): Promise<void> {
    const res = await this.call(
      userId,
      "POST",
      `/memory/statements/${encodeURIComponent(statementId)}/dismiss`,
      {
        reason,
      },
    );
    if (res.status !== 201)
      throw new Error(`dismissing ${statementId} answered ${res.status}: ${await res.text()}`);
  }

  /** The item as `userId` reads it; `visible: false` on a 404 (another subject's item). */
  async item(userId: string, id: string): Promise<CitedItem> {
    const res = await this.call(userId, "GET", `/items/${encodeURIComponent(id)}`);
    if (res.status === 404) return { id, visible: false, title: "", body: "" };
    if (!res.ok) throw new Error(`GET /items/${id} answered ${res.status}`);
    const item = (await res.json()) as { title: string | null; body: string };
    return { id, visible: true, title: item.title ?? "", body: item.body };
  }

  private async untilFinished(userId: string, known: ReadonlySet<string>): Promise<FinishedRun> {
    const deadline = Date.now() + this.runTimeoutMs;
    for (;;) {
      const run = (await this.runs(userId)).find((r) => !known.has(r.id) && r.finishedAt !== null);
      if (run) return { id: run.id, cost: costOf(run) };
      if (Date.now() > deadline)
        throw new Error(`no run of ${userId} finished within ${this.runTimeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private call(userId: string, method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${signDevToken(this.secret, userId)}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }
}

function costOf(run: ServedRun): RunCost {
  const wallMs = run.startedAt && run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.startedAt) : 0;
  return {
    status: run.status,
    turns: run.turns,
    toolCalls: run.toolCalls,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    usage: run.usage,
    wallMs,
  };
}
