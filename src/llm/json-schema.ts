/** Tool input schemas as the providers accept them: an object schema without the `$schema` meta key. */
export function toolInputSchema(
  schema: Record<string, unknown>,
): Record<string, unknown> & { type: "object" } {
  const { $schema: _meta, ...rest } = schema;
  return { ...rest, type: "object" };
}

/** Parses a tool call's raw arguments text; anything but a JSON object becomes the port's invalid marker. */
export function parseToolArguments(raw: string, invalidKey: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw === "" ? "{}" : raw);
    if (isPlainObject(value)) return value;
  } catch {
    // fall through: surfaced to the loop as an invalid call, never thrown
  }
  return { [invalidKey]: raw };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
