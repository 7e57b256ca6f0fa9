import type { Services } from "../composition";
import type { Env } from "../env";

export type Scope = "memory:read" | "items:write" | "admin";

export interface Caller {
  userId: string;
  scopes: Set<Scope>;
}

/** Hono's typing for this app: bindings plus what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    caller: Caller;
  };
}
