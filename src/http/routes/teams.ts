/**
 * Teams of the caller's workspace. Admins manage them (PUT, DELETE) and see all; a member lists and reads
 * the teams they belong to, and reads a team's memory at /teams/:team/memory (the same handlers as
 * /memory, with the team as subject). Anyone else gets 404, as for a team that does not exist.
 */
import { deleteTeam, listTeams, replaceTeam, visibleTeam } from "../../app/workspace";
import * as op from "../../contract/operations";
import type { Team } from "../../domain/workspaces";
import { route } from "../operation-routes";
import { validBody } from "../validation";

const teamJson = (t: Team) => ({
  id: t.id,
  name: t.name,
  members: t.members,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
});

export const teamsRoutes = [
  route(op.listTeams, async (c) => {
    const teams = await listTeams(c.get("services"), c.get("caller"));
    return c.json({ teams: teams.map(teamJson) });
  }),

  route(op.getTeam, async (c, { params }) =>
    c.json(teamJson(await visibleTeam(c.get("services"), c.get("caller"), params.team))),
  ),

  route(op.putTeam, async (c, { params, body }) => {
    const input = validBody(op.putTeam.body.schema, body, { key: "issues" });
    const { team, created } = await replaceTeam(c.get("services"), c.get("caller"), params.team, input);
    return c.json(teamJson(team), created ? 201 : 200);
  }),

  route(op.deleteTeam, async (c, { params }) => {
    await deleteTeam(c.get("services"), c.get("caller"), params.team);
    return c.body(null, 204);
  }),
];
