/** Which methods a path answers to, from the app's own route table: a known path asked with another method is a 405. */

export interface RouteEntry {
  method: string;
  path: string;
}

/**
 * The methods (plus HEAD wherever GET is served) whose routes match `path`, as the router matches it: the
 * app routes without strict trailing slashes, so `path` arrives without one (see app.ts) and a route's
 * pattern matches exactly. Empty when no route does.
 */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    if (route.method === "ALL" || !patternOf(route.path).test(path)) continue;
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();

/** `/items/:id` → /^\/items\/[^/]+$/ */
function patternOf(routePath: string): RegExp {
  let pattern = patterns.get(routePath);
  if (!pattern) {
    const body = routePath
      .replace(/\/+$/, "")
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    pattern = new RegExp(`^${body || "/"}$`);
    patterns.set(routePath, pattern);
  }
  return pattern;
}
