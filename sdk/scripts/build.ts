/**
 * Builds the SDK into sdk/dist as a dual package: ES modules in dist/esm (for `import`) and
 * CommonJS in dist/cjs (for `require`), each with its declarations. dist/cjs gets a package.json
 * of its own saying `"type": "commonjs"`, since the package's says `module` and Node reads each
 * .js file by the nearest one. Run it with `npm run build:sdk` at the repository's root.
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";

const SDK_ROOT = join(import.meta.dirname, "..");
const DIST = join(SDK_ROOT, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(DIST, { recursive: true, force: true });
const compile = (config: string) =>
  promisify(execFile)(process.execPath, [tsc, "-p", join(SDK_ROOT, config)]).catch((error) => {
    // tsc reports its errors on stdout.
    process.stderr.write(`${(error as { stdout?: string }).stdout ?? ""}`);
    throw new Error(`tsc -p sdk/${config} failed`);
  });
await Promise.all([compile("tsconfig.json"), compile("tsconfig.cjs.json")]);
mkdirSync(join(DIST, "cjs"), { recursive: true });
writeFileSync(join(DIST, "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
