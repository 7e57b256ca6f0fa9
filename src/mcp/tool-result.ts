/**
 * Tool results as data: a success carries `structuredContent` (and the same facts as text for clients that
 * only show text); a failure is an `isError` result with the HTTP error model's code, never an exception
 * that would reach the transport.
 */
import { type CallToolResult, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { z } from "zod";
import { httpStatusOf } from "../app/errors";
import type { AppError, ErrorCode } from "../domain/errors";
import type { McpContext } from "./deps";

export interface ToolErrorBody {
  error: { code: ErrorCode; message: string; retryAfter?: number; details?: unknown };
}

/** The structured content of a tool error. */
export const toolErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    retryAfter: z.number().optional(),
    details: z.unknown().optional().describe("e.g. problems: [{path, message}] for invalid arguments"),
  }),
});

/**
 * A tool's output schema: its result or its tool error. Both are structured content, and some clients (the
 * v1 TypeScript SDK) check an error result's structured content against the advertised schema too.
 */
export const orToolError = <S extends z.ZodType>(result: S) => z.union([result, toolErrorSchema]);

export function toolSuccess(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/**
 * The error as the HTTP API's body would carry it, details included (e.g. every invalid argument with its
 * field and problem), in structuredContent and, for clients that only show text, in the text too.
 */
export function toolError(error: AppError): CallToolResult {
  const body: ToolErrorBody = { error: { code: error.code, message: error.message } };
  if (error.retryAfterSeconds !== undefined) body.error.retryAfter = error.retryAfterSeconds;
  if (error.details !== undefined) body.error.details = JSON.parse(JSON.stringify(error.details));
  const text = `${error.code}: ${error.message}`;
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: body.error.details === undefined ? text : `${text}\n${JSON.stringify(body.error.details)}`,
      },
    ],
    structuredContent: { ...body },
  };
}

/** Runs a tool body; a domain error becomes its tool error, anything else an `internal` one (logged). */
export async function guarded(
  context: McpContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    const result = await run();
    context.finishAudit(200);
    return result;
  } catch (err) {
    const error = asAppError(context, err);
    context.finishAudit(httpStatusOf(error.code));
    return toolError(error);
  }
}

/**
 * A resource read or a prompt: its audit events finished with 200 or its error's status; a failure is
 * thrown on as the error model's AppError.
 */
export async function audited<T>(context: McpContext, run: () => Promise<T>): Promise<T> {
  try {
    const value = await run();
    context.finishAudit(200);
    return value;
  } catch (err) {
    const error = asAppError(context, err);
    context.finishAudit(httpStatusOf(error.code));
    throw error;
  }
}

/** The error model for failures outside a tool (resources, prompts): the same codes, thrown as AppError. */
export function asAppError({ services, requestId }: McpContext, err: unknown): AppError {
  return services.errors.toAppError(err, requestId);
}

/** A resource read's failure: a missing one as the SDK's ResourceNotFoundError, anything else as asAppError. */
export function resourceError(context: McpContext, uri: URL, err: unknown): Error {
  const error = asAppError(context, err);
  return error.code === "not_found" ? new ResourceNotFoundError(uri.href, error.message) : error;
}

/** JSON-safe copy (Dates become ISO strings), as the HTTP API would serialise it. */
export const jsonSafe = <T>(value: T): Record<string, unknown> =>
  JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
