/**
 * The members of the caller's workspace (admin scope): list, add (or add back), remove. Removing a member
 * erases nothing of theirs, but ends their access to shared items and team memories at once (redacted
 * from their memory in the same write) and refuses their token until an admin adds them back.
 */
import { addMember, listMembers, removeWorkspaceMember } from "../../app/workspace";
import * as op from "../../contract/operations";
import type { Member } from "../../domain/workspaces";
import { route } from "../operation-routes";
import { validBody } from "../validation";

const memberBody = (m: Member) => ({
  userId: m.userId,
  joinedAt: m.joinedAt.toISOString(),
  removedAt: m.removedAt?.toISOString() ?? null,
  email: m.email,
});

export const membersRoutes = [
  route(op.listMembers, async (c) => {
    const members = await listMembers(c.get("services"), c.get("caller"));
    return c.json({ workspace: c.get("caller").workspaceId, members: members.map(memberBody) });
  }),

  route(op.addMember, async (c, { params, body }) => {
    const { email } = validBody(op.addMember.body.schema, body, { key: "issues" });
    const { member, added } = await addMember(c.get("services"), c.get("caller"), params.user, email);
    return c.json(memberBody(member), added ? 201 : 200);
  }),

  route(op.removeMember, async (c, { params }) => {
    await removeWorkspaceMember(c.get("services"), c.get("caller"), params.user);
    return c.body(null, 204);
  }),
];
