/**
 * Builds the server (`npm run build:server`; `npm ci` runs it): the TypeScript sources and the
 * pure-JavaScript packages they import, bundled by esbuild into `dist/dakiya.mjs` and the chunks
 * it loads (`dist/chunks/`), which `bin/dakiya.js` runs whenever `dist/build-stamp.json` says
 * they were built from the sources as they are.
 *
 * A dozen modules rather than the thousand that the sources and their packages load one by one
 * (typebox and kysely alone are over 600 files): each loaded module keeps its source text, its
 * module record and its scope in the heap. Bundled with whitespace removed, the server starts
 * with 18 MB of live heap rather than 31, and every collection after that marks less. Names are
 * kept, so stack traces still name their functions, and a source map goes beside each file.
 *
 * The bundle is split at each dynamic `import()` (esbuild's code splitting): what a command
 * loads only when it runs (the HTTP app for `serve`, the carriers for `worker`, each command
 * group of the CLI: src/cli/commands.ts) is a chunk of its own, so `dakiya --version` or
 * `dakiya balance` reads and compiles only the code it runs.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { STAMP_FILE, sourceListing, writeBuildStamp } from "../bin/build-stamp.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist");

/**
 * Loaded from node_modules as they are: native addons (better-sqlite3, argon2) and the optional
 * pg-native, which pg asks for only when told to; pino, which starts transport threads from its
 * own files; smpp, whose GSM alphabet tables hold characters outside Latin-1 (V8 would keep the
 * whole bundle's source as two-byte text for them, twice the memory); and the API reference's
 * browser script (`@scalar/fastify-api-reference`, 4 MB of text that has no place in the server's
 * source).
 */
const EXTERNAL_PACKAGES = [
  "better-sqlite3",
  "@node-rs/argon2",
  "pg-native",
  "pino",
  "smpp",
  "@scalar/fastify-api-reference",
];

export async function buildServer(): Promise<void> {
  // Taken before esbuild reads the sources: a file changed during the build makes the stamp stale.
  const sources = sourceListing(root);
  // No stamp while dist/ is being written: meanwhile bin/dakiya.js runs the sources.
  rmSync(join(root, STAMP_FILE), { force: true });
  const { metafile } = await build({
    // The metafile's paths, read below, are relative to it.
    absWorkingDir: root,
    entryPoints: { dakiya: join(root, "src", "main.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL_PACKAGES,
    minifyWhitespace: true,
    minifySyntax: true,
    // A .map beside each file: read by `node --enable-source-maps` for stack traces by source
    // line, and by the bench's profile summary; never loaded otherwise.
    sourcemap: true,
    // The CommonJS packages in the bundle call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: "warning",
    metafile: true,
  });
  mkdirSync(outdir, { recursive: true });
  writeBuildStamp(root, sources);
  // Chunks are named by their content, so an earlier build's stay readable while this one is
  // written (a process that started from it may still be loading them); removed only now.
  const written = new Set(Object.keys(metafile.outputs).map((path) => relative(outdir, join(root, path))));
  const chunks = join(outdir, "chunks");
  for (const name of existsSync(chunks) ? readdirSync(chunks) : []) {
    if (!written.has(`chunks/${name}`)) rmSync(join(chunks, name), { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
