/** Which methods a path answers to, from the app's own route table: a known path asked with another method is a 405. */

interface RouteEntry {
  method: string;
  path: string;
}

/** The methods (plus HEAD wherever GET is served) whose routes match `path`; empty when none does. */
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

/** `/items/:id` → /^\/items\/[^/]+\/?$/ (a trailing slash is the same path, as Hono treats it). */
function patternOf(routePath: string): RegExp {
  let pattern = patterns.get(routePath);
  if (!pattern) {
    const body = routePath
      .replace(/\/+$/, "")
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    pattern = new RegExp(`^${body}/?$`);
    patterns.set(routePath, pattern);
  }
  return pattern;
}
