/**
 * Serves the dashboard's single-page app, built into `web/dist`: its files as they are, and
 * `index.html` for any other page address, so the app's own routes survive a reload.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "./types.js";

/** `web/dist` of this package, found from here whether the sources run or their compiled copy in `dist/`. */
export const DEFAULT_WEB_ROOT = join(packageRoot(fileURLToPath(import.meta.url)), "web", "dist");

function packageRoot(from: string): string {
  let dir = dirname(from);
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Paths that belong to the API and never fall back to the app. */
const NOT_PAGES = /^\/(v2|dashboard\/api|webhooks|docs|openapi\.json|healthz|readyz)(\/|$|\?)/;

const PAGE_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-cache",
} as const;

/** Answers the requests the API does not know: the app's page, or `undefined` to leave it a 404. */
export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

export async function registerWeb(app: App, webRoot: string): Promise<PageFallback> {
  if (!existsSync(join(webRoot, "index.html"))) {
    app.log.warn({ webRoot }, "the dashboard is not built: run `npm run build`");
    app.get("/", { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(503)
        .type("text/plain; charset=utf-8")
        .send("The dashboard is not built yet: run `npm run build`, then restart. The API is at /v2/."),
    );
    return () => undefined;
  }
  await app.register(fastifyStatic, {
    root: webRoot,
    setHeaders(res, path) {
      if (path.includes(`${join("dist", "assets")}`)) {
        res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      } else if (basename(path) === "index.html") {
        for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
      }
    },
  });
  return (request, reply) => {
    const wantsPage =
      (request.method === "GET" || request.method === "HEAD") &&
      !NOT_PAGES.test(request.url) &&
      request.headers.accept?.includes("text/html") === true;
    if (!wantsPage) return undefined;
    return reply.headers(PAGE_HEADERS).sendFile("index.html");
  };
}
