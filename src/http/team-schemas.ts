/** PUT /teams/:team's body: validated by routes/teams.ts and documented by openapi.ts from this one schema. */
import { z } from "zod";
import { textProblem } from "../domain/safe-text";
import { MAX_TEAM_MEMBERS, MAX_TEAM_NAME_LENGTH, nameProblem } from "../domain/workspaces";

export const teamBodySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(MAX_TEAM_NAME_LENGTH)
    .refine((v) => textProblem(v) === null, "must be valid text")
    .describe("Display name"),
  members: z
    .array(
      z.string().superRefine((user, ctx) => {
        const problem = nameProblem(user, "user");
        if (problem)
          ctx.addIssue({ code: "custom", message: `"${user}" is not a usable user id: it ${problem}` });
      }),
    )
    .max(MAX_TEAM_MEMBERS)
    .describe("User ids of active members of the workspace; the team's whole membership"),
});
