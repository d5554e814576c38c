#!/usr/bin/env node
// With NODE_ENV=production the bundle of `npm run build` runs (dist/dakiya.mjs: one module, no
// compiler at start-up, far less memory); otherwise the TypeScript sources run through tsx, so a
// change is never hidden behind a stale build.
import { existsSync } from "node:fs";
import { setFlagsFromString } from "node:v8";

// V8 lets the heap grow to up to 4 × what survived its last full collection before collecting
// again; under a burst of sends that kept twice the memory the server uses. 1.5 × costs a few
// more collections, on V8's own threads mostly. A --heap-growing-percent given to node wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) {
  setFlagsFromString("--heap-growing-percent=50");
}

const compiled = new URL("../dist/dakiya.mjs", import.meta.url);
if (process.env.NODE_ENV === "production" && existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
}
