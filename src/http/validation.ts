/** A request body checked against its operation's schema: 422 validation_failed listing every problem. */
import type { z } from "zod";
import { AppError } from "../domain/errors";

/**
 * `body` parsed by `schema`; otherwise a 422 whose message is `message` (default: the first problem) and
 * whose details list every problem as { path, message } under `key`.
 */
export function validBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  options: { key: "issues" | "problems"; message?: string },
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0]!;
  throw new AppError(
    "validation_failed",
    options.message ?? `${first.path.join(".") || "body"} ${first.message}`,
    {
      details: {
        [options.key]: result.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
      },
    },
  );
}
