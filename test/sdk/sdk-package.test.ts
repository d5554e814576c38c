import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { GENERATE_COMMAND, GENERATED_FILES, generateSdkSources } from "../../sdk/scripts/sources.js";

/* The SDK as a package: its generated files match the server as it is now, and the build
 * (`npm run build:sdk`, which `npm test` runs first) exports its API under its name. */

const ROOT = join(import.meta.dirname, "../..");

describe("the SDK package", () => {
  it("holds the OpenAPI document and the types the server generates now", async () => {
    const generated = await generateSdkSources();
    for (const name of ["openapi", "schema"] as const) {
      const file = GENERATED_FILES[name];
      const committed = existsSync(file) ? readFileSync(file, "utf8") : "";
      expect(
        committed === generated[name],
        `${relative(ROOT, file)} differs from what the server generates: run \`${GENERATE_COMMAND}\` and commit the result`,
      ).toBe(true);
    }
  });

  it("is built and exports the client, the errors and verifyWebhook as @dakiya/sdk, to import and to require", async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "sdk", "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "@dakiya/sdk", type: "module", license: "Apache-2.0" });
    expect(Object.keys(manifest.dependencies)).toEqual(["openapi-fetch"]);
    if (!existsSync(join(ROOT, "sdk", "dist", "esm", "index.js"))) {
      throw new Error("sdk/dist is not built: run `npm run build:sdk` (npm test does it before the tests)");
    }
    // By name, as a user loads it: through the workspace link and the package's exports, once
    // from the ES module build and once from the CommonJS one.
    const name = "@dakiya/sdk";
    const imported = await import(name);
    const required = createRequire(import.meta.url)(name);
    expect(required).not.toBe(imported);
    expect(Object.keys(required).sort()).toEqual(Object.keys(imported).sort());
    for (const sdk of [imported, required]) {
      for (const exported of [
        "Dakiya",
        "DakiyaError",
        "RateLimitError",
        "verifyWebhook",
        "WebhookVerificationError",
      ]) {
        expect(typeof sdk[exported], exported).toBe("function");
      }
      expect(sdk.SDK_VERSION).toBe(manifest.version);
      expect(() => new sdk.Dakiya({})).toThrow(/API key/);
    }
  });
});
