/**
 * Builds the server for production (`npm run build:server`): the TypeScript sources and the
 * pure-JavaScript packages they import, bundled by esbuild into one module, `dist/dakiya.mjs`,
 * which `bin/dakiya.js` runs under `NODE_ENV=production`.
 *
 * One module rather than the thousand that the sources and their packages load one by one
 * (typebox and kysely alone are over 600 files): each loaded module keeps its source text, its
 * module record and its scope in the heap. Bundled with whitespace removed, the server starts
 * with 18 MB of live heap rather than 31, and every collection after that marks less. Names are
 * kept, so stack traces still name their functions, and a source map goes beside it.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

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
  await build({
    entryPoints: [join(root, "src", "main.ts")],
    outfile: join(root, "dist", "dakiya.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: EXTERNAL_PACKAGES,
    minifyWhitespace: true,
    minifySyntax: true,
    // dist/dakiya.mjs.map: read by `node --enable-source-maps` for stack traces by source line,
    // and by the bench's profile summary; never loaded otherwise.
    sourcemap: true,
    // The CommonJS packages in the bundle call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
