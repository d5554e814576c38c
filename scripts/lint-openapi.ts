/**
 * Lints the OpenAPI document the server generates (`npm run lint:openapi`, part of `npm test`):
 * builds the app in-process on an in-memory database, writes `GET /openapi.json` to a temporary
 * file and runs `redocly lint` on it with the repository's redocly.yaml. Works offline.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { createContext } from "../src/context.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

async function generateDocument(): Promise<string> {
  const config = loadConfig({
    DATABASE_URL: "sqlite::memory:",
    DAKIYA_SECRET: "openapi-lint-secret-0123456789abcdefghijklmnop",
    LOG_LEVEL: "silent",
  });
  const ctx = await createContext(config);
  try {
    const app = await buildApp(ctx);
    const response = await app.inject({ method: "GET", url: "/openapi.json" });
    await app.close();
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return JSON.stringify(response.json(), null, 2);
  } finally {
    await ctx.close();
  }
}

const folder = mkdtempSync(join(tmpdir(), "dakiya-openapi-"));
try {
  const file = join(folder, "openapi.json");
  writeFileSync(file, await generateDocument());
  const redocly = join(root, "node_modules", ".bin", "redocly");
  const result = spawnSync(redocly, ["lint", "--config", join(root, "redocly.yaml"), file], {
    cwd: root,
    stdio: "inherit",
    // No telemetry and no update check: the lint runs offline.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
