#!/usr/bin/env node
// With NODE_ENV=production the compiled JavaScript of `npm run build` runs (about 50 MB less
// memory, no compiler at start-up); otherwise the TypeScript sources run through tsx, so a
// change is never hidden behind a stale build.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/src/main.js", import.meta.url);
if (process.env.NODE_ENV === "production" && existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
}
