import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { DESKTOP, launchChromium, saveScreenshot } from "../helpers/browser.js";
import { openTestContext } from "../helpers/context.js";
import { createTestDatabase, type TestDatabase } from "../helpers/database.js";

describe("the API reference page at /docs", () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    ctx = await openTestContext(database.url);
    server = await startServer(await buildApp(ctx), ctx, { host: "127.0.0.1", port: 0 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await database?.drop();
  });

  it("renders Dakiya's reference from this server alone, fetching nothing elsewhere", async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));

    await page.goto(`${server.url}/docs`);
    await page.getByText("Send a DLT-templated SMS").first().waitFor();
    expect(await page.title()).toBe("Dakiya API reference");
    await page.getByRole("heading", { name: "Dakiya API" }).first().waitFor();
    await saveScreenshot(page, "api-reference-1280");

    expect(requested).toContain(`${server.url}/openapi.json`);
    const elsewhere = requested.filter(
      (url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:") && !url.startsWith("blob:"),
    );
    expect(elsewhere).toEqual([]);
    await page.close();
  });
});
