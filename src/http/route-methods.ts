/**
 * Fastify answers a known path with an unsupported method as it answers an unknown one: with its
 * not-found handler. This keeps the methods each route pattern takes, so that handler can tell
 * the two apart: a known path answers 405 `method_not_allowed` with `Allow` (docs/api-reference.md#errors), or, to an
 * OPTIONS request, 204 with `Allow`.
 */
import { methodsOf } from "./route-hooks.js";
import type { App } from "./types.js";

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

export class RouteMethods {
  readonly #byUrl = new Map<string, RoutePattern>();

  /** Collects every route added to `app` from now on (register it before the routes). */
  static collect(app: App): RouteMethods {
    const methods = new RouteMethods();
    app.addHook("onRoute", (route) => {
      for (const method of methodsOf(route)) methods.add(method, route.url ?? route.path);
    });
    return methods;
  }

  add(method: string, url: string): void {
    // Wildcards serve files and pages (the dashboard's assets): a path under one is no known path.
    if (url.includes("*")) return;
    let route = this.#byUrl.get(url);
    if (!route) {
      route = { pattern: patternOf(url), methods: new Set() };
      this.#byUrl.set(url, route);
    }
    route.methods.add(method.toUpperCase());
    // Fastify answers HEAD on every GET route.
    if (method.toUpperCase() === "GET") route.methods.add("HEAD");
  }

  /** The methods `path` takes, with OPTIONS, for an `Allow` header; empty if no route has this path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.#byUrl.values()) {
      if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    }
    if (methods.size === 0) return [];
    methods.add("OPTIONS");
    return [...methods].sort();
  }
}

/** `/v2/sms/:id` → `^/v2/sms/[^/]+$`: a parameter takes one whole, non-empty path segment. */
function patternOf(url: string): RegExp {
  const source = url
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}
