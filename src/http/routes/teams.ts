/**
 * Teams of the caller's workspace. Admins manage them (PUT, DELETE) and see all; a member lists and reads
 * the teams they belong to, and reads a team's memory at /teams/:team/memory (the same routes as
 * /memory, with the team as subject). Anyone else gets 404, as for a team that does not exist.
 */
import { type Context, Hono } from "hono";
import { AppError, notFound } from "../../domain/errors";
import { isTeamId, type Team, teamKey } from "../../domain/workspaces";
import { deleteTeam, putTeam } from "../../memory/workspace-changes";
import { authenticate, hasScope, requireScope } from "../auth";
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

function teamParam(c: Context<AppEnv>): string {
  const team = c.req.param("team") ?? "";
  if (!isTeamId(team)) throw notFound("Team");
  return team;
}

/** The team, if the caller may see it: an admin always, anyone else only as a member. */
async function visibleTeam(c: Context<AppEnv>): Promise<Team> {
  const teamId = teamParam(c);
  const caller = c.get("caller");
  const team = await c.get("services").workspaces.team(caller.workspaceId, teamId);
  if (!team || (!hasScope(caller, "admin") && !team.members.includes(caller.userId))) throw notFound("Team");
  return team;
}

export const teamsRoutes = new Hono<AppEnv>()
  .use(authenticate())

  .get("/", async (c) => {
    const caller = c.get("caller");
    const { workspaces } = c.get("services");
    const teams = hasScope(caller, "admin")
      ? await workspaces.teams(caller.workspaceId)
      : await workspaces.teams(caller.workspaceId, caller.userId);
    return c.json({ teams: teams.map(teamJson) });
  })

  .get("/:team", async (c) => c.json(teamJson(await visibleTeam(c))))

  .put("/:team", requireScope("admin"), async (c) => {
    const teamId = c.req.param("team");
    if (!isTeamId(teamId)) {
      throw new AppError(
        "bad_request",
        "A team id is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
      );
    }
    const parsed = teamBodySchema.safeParse(await readJsonBody(c.req.raw, MAX_TEAM_BODY_BYTES));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError("validation_failed", `${issue.path.join(".") || "body"} ${issue.message}`, {
        details: { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
      });
    }
    const { team, created } = await putTeam(
      c.get("services"),
      c.get("caller").workspaceId,
      teamId,
      parsed.data,
    );
    return c.json(teamJson(team), created ? 201 : 200);
  })

  .delete("/:team", requireScope("admin"), async (c) => {
    if (!(await deleteTeam(c.get("services"), c.get("caller").workspaceId, teamParam(c))))
      throw notFound("Team");
    return c.body(null, 204);
  })

  // A team's memory: members only (an admin who is not a member gets 404 like anyone else). The caller's
  // teams come from their cached admission when authenticate() had it (no database round trip), else
  // from the store.
  .use("/:team/memory/*", async (c, next) => {
    const teamId = teamParam(c);
    const caller = c.get("caller");
    const membership = c.get("membership");
    const member = membership
      ? membership.teams.includes(teamId)
      : await c.get("services").workspaces.isTeamMember(caller.workspaceId, teamId, caller.userId);
    if (!member) throw notFound("Team");
    c.set("subject", teamKey(caller.workspaceId, teamId));
    await next();
  })
  .route("/:team/memory", memoryRoutes);
