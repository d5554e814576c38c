#!/usr/bin/env node
// Runs the build in dist/ (`npm run build:server`, which `npm ci` runs: a few modules, no compiler
// at start-up, far less memory) when it was built from the sources as they are now; otherwise, or
// with DAKIYA_FROM_SOURCE=1, the TypeScript sources through tsx. A stale or missing build is
// never rebuilt here: the bundler is a development dependency, an install may be read-only, and
// processes starting together would write dist/ at once. It is said in one line on stderr instead,
// so a change is never hidden behind an old build.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { sourceListing, stampedListing } from "./build-stamp.js";

// V8 lets the heap grow to up to 4 × what survived its last full collection before collecting
// again; under a burst of sends that kept twice the memory the server uses. 1.5 × costs a few
// more collections, on V8's own threads mostly. A --heap-growing-percent given to node wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) {
  setFlagsFromString("--heap-growing-percent=50");
}

const root = fileURLToPath(new URL("..", import.meta.url));
const compiled = new URL("../dist/dakiya.mjs", import.meta.url);

if (process.env.DAKIYA_FROM_SOURCE === "1") {
  await runSources();
} else if (!existsSync(compiled)) {
  process.stderr.write(
    "dakiya: no build in dist/, running the sources through tsx (npm run build:server builds it)\n",
  );
  await runSources();
} else {
  const sources = sourceListing(root);
  if (sources === undefined || sources === stampedListing(root)) {
    await import(compiled.href);
  } else {
    process.stderr.write(
      "dakiya: dist/ was built from other sources, running them through tsx (npm run build:server rebuilds it)\n",
    );
    await runSources();
  }
}

async function runSources() {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
}
