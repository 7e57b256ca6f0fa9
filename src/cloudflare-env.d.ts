// Tells `cloudflare:workers` (env, exports, ctx.exports) what this worker's main module and bindings are.
type WorkerEnv = import("./env").Env;

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
    durableNamespaces: "MemoryAgent";
  }
  interface Env extends WorkerEnv {}
}
