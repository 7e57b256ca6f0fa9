/**
 * The members of the caller's workspace (admin scope): list, add (or add back), remove. Removing a member
 * erases nothing of theirs, but ends their access to shared items and team memories at once (redacted
 * from their memory in the same write) and refuses their token until an admin adds them back.
 */
import { Hono } from "hono";
import { addMember, listMembers, removeWorkspaceMember } from "../../app/workspace";
import type { Member } from "../../domain/workspaces";
import { authenticate, requireScope } from "../auth";
import type { AppEnv } from "../context";

const memberBody = (m: Member) => ({
  userId: m.userId,
  joinedAt: m.joinedAt.toISOString(),
  removedAt: m.removedAt?.toISOString() ?? null,
});

export const membersRoutes = new Hono<AppEnv>()
  .use(authenticate())
  .use(requireScope("admin"))

  .get("/", async (c) => {
    const members = await listMembers(c.get("services"), c.get("caller"));
    return c.json({ workspace: c.get("caller").workspaceId, members: members.map(memberBody) });
  })

  .put("/:user", async (c) => {
    const { member, added } = await addMember(c.get("services"), c.get("caller"), c.req.param("user"));
    return c.json(memberBody(member), added ? 201 : 200);
  })

  .delete("/:user", async (c) => {
    await removeWorkspaceMember(c.get("services"), c.get("caller"), c.req.param("user"));
    return c.body(null, 204);
  });
