/** GET /.well-known/oauth-protected-resource[/mcp]: RFC 9728 metadata in JWKS mode, 404 otherwise. */
import { type Context, Hono } from "hono";
import { SCOPES } from "../../app/caller";
import { notFound } from "../../domain/errors";
import type { AppEnv } from "../context";
import { protectedResourceMetadata } from "../protected-resource";

const serve = (path: "" | "/mcp") => (c: Context<AppEnv>) => {
  const metadata = protectedResourceMetadata(c, path, SCOPES);
  if (!metadata) throw notFound("Protected-resource metadata");
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(metadata);
};

export const wellKnownRoutes = new Hono<AppEnv>()
  .get("/oauth-protected-resource", serve(""))
  .get("/oauth-protected-resource/mcp", serve("/mcp"));
