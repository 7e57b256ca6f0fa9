/** GET /openapi.json: the contract, with this deployment as its server. */
import * as op from "../../contract/operations";
import { openApiDocument } from "../openapi";
import { route } from "../operation-routes";

export const openApiRoutes = [
  route(op.openapi, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json({ ...openApiDocument(), servers: [{ url: new URL(c.req.url).origin }] });
  }),
];
