/**
 * A worker with nothing but a Workers KV binding, for bench/kv-floor.ts: what one KV read costs in the
 * runtime `wrangler dev` gives the service, apart from everything the service does around it.
 */
interface Env {
  KV: KVNamespace;
}

const JSON_READ = { type: "json", cacheTtl: 30 } as const;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    switch (new URL(request.url).pathname) {
      case "/fill":
        await env.KV.put("member", JSON.stringify({ format: 1, teams: [] }));
        await env.KV.put("memory", JSON.stringify({ format: 1, markdown: "x".repeat(3_400) }));
        return new Response("filled");
      case "/get":
        return Response.json(await env.KV.get("member", JSON_READ));
      case "/get-two":
        return Response.json([await env.KV.get("member", JSON_READ), await env.KV.get("memory", JSON_READ)]);
      case "/bulk-get":
        return Response.json([...(await env.KV.get(["member", "memory"], JSON_READ)).values()]);
      default:
        return new Response("no such route", { status: 404 });
    }
  },
};
