/**
 * Teams of the caller's workspace. Admins manage them (PUT, DELETE) and see all; a member lists and reads
 * the teams they belong to, and reads a team's memory at /teams/:team/memory (the same routes as
 * /memory, with the team as subject). Anyone else gets 404, as for a team that does not exist.
 */
import { Hono } from "hono";
import { teamSubject } from "../../app/memory";
import { deleteTeam, listTeams, replaceTeam, visibleTeam } from "../../app/workspace";
import { AppError } from "../../domain/errors";
import type { Team } from "../../domain/workspaces";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";
import { readJsonBody } from "../read-body";
import { teamBodySchema } from "../team-schemas";
import { memoryRoutes } from "./memory";

const MAX_TEAM_BODY_BYTES = 256 * 1024;

const teamJson = (t: Team) => ({
  id: t.id,
  name: t.name,
  members: t.members,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

export const teamsRoutes = new Hono<AppEnv>()
  .use(authenticate())

  .get("/", async (c) => {
    const teams = await listTeams(c.get("services"), c.get("caller"));
    return c.json({ teams: teams.map(teamJson) });
  })

  .get("/:team", async (c) =>
    c.json(teamJson(await visibleTeam(c.get("services"), c.get("caller"), c.req.param("team")))),
  )

  .put("/:team", requireScope("admin"), async (c) => {
    const parsed = teamBodySchema.safeParse(await readJsonBody(c.req.raw, MAX_TEAM_BODY_BYTES));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError("validation_failed", `${issue.path.join(".") || "body"} ${issue.message}`, {
        details: { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
      });
    }
    const services = c.get("services");
    const { team, created } = await replaceTeam(services, c.get("caller"), c.req.param("team"), parsed.data);
    return c.json(teamJson(team), created ? 201 : 200);
  })

  .delete("/:team", requireScope("admin"), async (c) => {
    await deleteTeam(c.get("services"), c.get("caller"), c.req.param("team"));
    return c.body(null, 204);
  })

  // A team's memory: members only. The caller's teams come from their cached admission when authenticate()
  // had it (no database round trip), else from the store.
  .use("/:team/memory/*", async (c, next) => {
    const teams = c.get("membership")?.teams;
    c.set("subject", await teamSubject(c.get("services"), c.get("caller"), c.req.param("team") ?? "", teams));
    await next();
  })
  .route("/:team/memory", memoryRoutes);
