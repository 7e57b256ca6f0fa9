/**
 * Checks on what clients send that Postgres (or the service) cannot hold: NUL characters, lone UTF-16
 * surrogates (invalid Unicode), and JSON nested or sized beyond reason. Each check names the path of the
 * first offending value, so the 422 says where to look.
 */

/** Postgres text cannot hold NUL; lone surrogates are not Unicode (and make two ids compare equal in UTF-8). */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (!value.isWellFormed()) return "must be valid Unicode (no lone surrogates)";
  return null;
}

export interface JsonBounds {
  maxDepth: number;
  /** Objects, arrays and values together. */
  maxNodes: number;
  maxStringLength: number;
}

/**
 * Walks a parsed JSON value without recursion (so a value nested 10,000 deep cannot overflow the stack)
 * and returns the first problem as { path, message }, or null.
 */
export function jsonProblem(root: unknown, bounds: JsonBounds): { path: string; message: string } | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (++nodes > bounds.maxNodes) return { path, message: `must hold at most ${bounds.maxNodes} values` };
    if (typeof value === "string") {
      if (value.length > bounds.maxStringLength) {
        return { path, message: `must be at most ${bounds.maxStringLength} characters` };
      }
      const problem = textProblem(value);
      if (problem) return { path, message: problem };
    } else if (typeof value === "object" && value !== null) {
      if (depth >= bounds.maxDepth)
        return { path, message: `must be nested at most ${bounds.maxDepth} deep` };
      const entries: [string, unknown][] = Array.isArray(value)
        ? value.map((v, i) => [String(i), v])
        : Object.entries(value);
      for (const [key, child] of entries.reverse()) {
        const childPath = path === "" ? key : `${path}.${key}`;
        const keyProblem = Array.isArray(value) ? null : textProblem(key);
        if (keyProblem) return { path: childPath, message: `key ${keyProblem}` };
        stack.push({ value: child, path: childPath, depth: depth + 1 });
      }
    }
  }
  return null;
}
