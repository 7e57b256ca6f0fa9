/**
 * Calling the worker under test as a user of a workspace (a token with its `org_id` claim, none for the default
 * workspace) and waiting for everything the request deferred (agent pokes, audit, webhook hand-overs).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { DEFAULT_WORKSPACE } from "../../src/domain/workspaces";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { READ_WRITE, tokenFor } from "./auth";

export interface Caller {
  user: string;
  /** The default workspace when absent. */
  workspace?: string;
  /** READ_WRITE when absent. */
  scopes?: readonly string[];
}

export async function sendAs(
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  workerEnv: Env = env as Env,
): Promise<Response> {
  const workspace = caller.workspace ?? DEFAULT_WORKSPACE;
  const claims = workspace === DEFAULT_WORKSPACE ? {} : { org_id: workspace };
  const token = await tokenFor(caller.user, caller.scopes ?? READ_WRITE, claims);
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const request = new Request(`http://local${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, workerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
