/**
 * A tool's input schema as the SDK takes it (a Standard Schema with its JSON Schema), built from the zod
 * schema that describes it: clients see exactly that JSON Schema, but validation never fails inside the
 * SDK (which would answer one line of text). The tool receives either the parsed arguments or every
 * problem, and `validArguments` turns the problems into a `validation_failed` tool error whose details
 * list each invalid argument's field and what is wrong with it.
 */
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { AppError } from "../domain/errors";

export interface ArgumentProblem {
  /** The argument's path, e.g. `limit` or `kinds.0`; `(arguments)` for the arguments as a whole. */
  path: string;
  message: string;
}

export type ToolArguments<T> = { ok: true; value: T } | { ok: false; problems: ArgumentProblem[] };

export function toolInput<S extends z.ZodType>(
  schema: S,
): StandardSchemaWithJSON<z.input<S>, ToolArguments<z.output<S>>> {
  return {
    "~standard": {
      version: 1,
      vendor: "unified-memory",
      validate: (value: unknown) => {
        const parsed = schema.safeParse(value);
        const outcome: ToolArguments<z.output<S>> = parsed.success
          ? { ok: true, value: parsed.data }
          : {
              ok: false,
              problems: parsed.error.issues.map((issue) => ({
                path: issue.path.map(String).join(".") || "(arguments)",
                message: issue.message,
              })),
            };
        return { value: outcome };
      },
      jsonSchema: schema["~standard"].jsonSchema,
    },
  };
}

/** The parsed arguments, or a validation_failed AppError naming every invalid argument. */
export function validArguments<T>(args: ToolArguments<T>): T {
  if (args.ok) return args.value;
  const listed = args.problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  throw new AppError("validation_failed", `Invalid arguments: ${listed}`, {
    details: { problems: args.problems },
  });
}
