import type { App } from "../../src/http/types.js";

export interface RouteEntry {
  method: string;
  /** The route pattern, as registered: `/dashboard/api/keys/:id/rotate`. */
  path: string;
}

const TREE_LINE = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([^)]*)\))?$/u;

/**
 * Every route of a ready app, read from Fastify's route tree (`printRoutes`), so tests that must
 * cover all routes also cover the ones added after they were written.
 */
export function listRoutes(app: App): RouteEntry[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of tree.split("\n")) {
    const match = TREE_LINE.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    const path = (prefixes[depth - 1] ?? "") + (match[2] ?? "");
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of (match[3] ?? "").split(",")) {
      const name = method.trim();
      if (name !== "") routes.push({ method: name, path });
    }
  }
  return routes;
}
