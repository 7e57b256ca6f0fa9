/**
 * The members of the caller's workspace (admin scope): list, add (or add back), remove. Removing a member
 * erases nothing of theirs, but ends their access to shared items and team memories at once (redacted
 * from their memory in the same write) and refuses their token until an admin adds them back.
 */
import { Hono } from "hono";
import { AppError, notFound } from "../../domain/errors";
import { isUserId, type Member } from "../../domain/workspaces";
import { removeMember } from "../../memory/workspace-changes";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

const memberBody = (m: Member) => ({
  userId: m.userId,
  joinedAt: m.joinedAt.toISOString(),
  removedAt: m.removedAt?.toISOString() ?? null,
});

function userParam(value: string): string {
  if (!isUserId(value)) throw new AppError("bad_request", "Not a valid user id");
  return value;
}

export const membersRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .use(requireScope("admin"))

  .get("/", async (c) => {
    const { workspaceId } = c.get("caller");
    const members = await c.get("services").workspaces.members(workspaceId);
    return c.json({ workspace: workspaceId, members: members.map(memberBody) });
  })

  .put("/:user", async (c) => {
    const userId = userParam(c.req.param("user"));
    const { workspaces } = c.get("services");
    const { workspaceId } = c.get("caller");
    const added = await workspaces.addMember(workspaceId, userId);
    const member = (await workspaces.members(workspaceId)).find((m) => m.userId === userId);
    if (!member) throw new Error(`member ${userId} vanished after being added`);
    return c.json(memberBody(member), added ? 201 : 200);
  })

  .delete("/:user", async (c) => {
    const userId = userParam(c.req.param("user"));
    const caller = c.get("caller");
    if (userId === caller.userId) {
      throw new AppError("bad_request", "An admin cannot remove themselves; ask another admin");
    }
    if (!(await removeMember(c.get("services"), caller.workspaceId, userId))) throw notFound("Member");
    return c.body(null, 204);
  });
