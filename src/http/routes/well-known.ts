/** GET /.well-known/oauth-protected-resource[/mcp]: RFC 9728 metadata in JWKS mode, 404 otherwise. */
import type { Context } from "hono";
import { SCOPES } from "../../app/caller";
import * as op from "../../contract/operations";
import { notFound } from "../../domain/errors";
import type { AppEnv } from "../context";
import { route } from "../operation-routes";
import { protectedResourceMetadata } from "../protected-resource";

const serve = (path: "" | "/mcp") => (c: Context<AppEnv>) => {
  const metadata = protectedResourceMetadata(c, path, SCOPES);
  if (!metadata) throw notFound("Protected-resource metadata");
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(metadata);
};

export const wellKnownRoutes = [
  route(op.protectedResourceMetadata, serve("")),
  route(op.mcpProtectedResourceMetadata, serve("/mcp")),
];
