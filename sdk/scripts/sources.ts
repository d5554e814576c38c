import { join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/lib/logger.js";

const SDK_ROOT = join(fileURLToPath(import.meta.url), "..", "..");

/** The files the SDK generates from the server, committed beside the code that uses them. */
export const GENERATED_FILES = {
  openapi: join(SDK_ROOT, "openapi.json"),
  schema: join(SDK_ROOT, "src", "schema.ts"),
};

export const GENERATE_COMMAND = "npm run generate:sdk";

/**
 * The server's OpenAPI document, from an app built in-process exactly as `dakiya serve` builds
 * it, on a throwaway in-memory database. The environment is fixed (no PUBLIC_URL, the default
 * address) so the document is the same on every machine.
 */
export async function serverOpenApiDocument(): Promise<OpenAPI3> {
  const config = loadConfig({
    DATABASE_URL: "sqlite::memory:",
    DAKIYA_SECRET: "sdk-generation-secret-0123456789abcdef",
    LOG_LEVEL: "silent",
  });
  const ctx = await createContext(config, { log: createLogger("silent") });
  try {
    const app = await buildApp(ctx);
    try {
      await app.ready();
      return app.swagger() as unknown as OpenAPI3;
    } finally {
      await app.close();
    }
  } finally {
    await ctx.close();
  }
}

/** The text of each generated file, as it should be committed. */
export async function generateSdkSources(): Promise<{ openapi: string; schema: string }> {
  const document = await serverOpenApiDocument();
  const openapi = `${JSON.stringify(document, null, 2)}\n`;
  const types = astToString(await openapiTS(structuredClone(document), { silent: true }));
  const schema = `// Generated from the server's OpenAPI document by \`${GENERATE_COMMAND}\`: do not edit.\n\n${types}`;
  return { openapi, schema };
}
