/**
 * Vitest's global set-up (vitest.config.ts): before any test file runs, brings dist/ up to date
 * with the sources (`npm run build:server`'s build, as `npm ci` makes it) unless its stamp says it
 * is. The `dakiya` processes the tests start (cli.ts, server-process.ts) then run that build, as
 * an operator's do, and never a build of other sources: bin/dakiya.js would fall back to the
 * sources and say so on stderr, which the CLI tests would report.
 */
import { fileURLToPath } from "node:url";
import { sourceListing, stampedListing } from "../../bin/build-stamp.js";
import { buildServer } from "../../scripts/build-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export default async function setup(): Promise<void> {
  if (process.env.DAKIYA_FROM_SOURCE === "1") return;
  if (sourceListing(ROOT) !== stampedListing(ROOT)) await buildServer();
}
