import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/app.js";
import type { AppContext } from "../../src/context.js";
import type { Dialect } from "../../src/db/schema.js";
import { systemClock } from "../../src/lib/clock.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { openTestContext, testCarrierSettings } from "./context.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { TEST_PASSWORD } from "./fixtures.js";

/** Debian's Chromium; the tests never download a browser of their own. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = join(process.cwd(), "test-artifacts", "screenshots");

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface DashboardServer {
  url: string;
  ctx: AppContext;
  stop(): Promise<void>;
}

/**
 * The whole server (API, dashboard API, the built app from web/dist and a delivery worker) on
 * a fresh database (SQLite unless `dialect` says otherwise), on the real clock so the worker
 * delivers sandbox messages by itself. `env` adds settings to the test configuration (e.g.
 * `WEBHOOK_ALLOW_PRIVATE`).
 */
export async function startDashboardServer(
  options: { env?: NodeJS.ProcessEnv; dialect?: Dialect } = {},
): Promise<DashboardServer> {
  const database: TestDatabase = await createTestDatabase(options.dialect ?? "sqlite");
  const ctx = await openTestContext(database.url, {
    clock: systemClock,
    ...(options.env ? { env: options.env } : {}),
  });
  let server: RunningServer | undefined;
  try {
    const app = await buildApp(ctx);
    server = await startServer(app, ctx, {
      host: "127.0.0.1",
      port: 0,
      worker: { pollIntervalMs: 100 },
      // SMPP routes `env` configures (an SMPP_ROUTES file of loopback SMSCs) send live SMS for real.
      smpp: testCarrierSettings(ctx).smpp,
    });
  } catch (error) {
    await ctx.close();
    await database.drop();
    throw error;
  }
  const running = server;
  return {
    url: running.url,
    ctx,
    stop: async () => {
      await running.stop();
      await database.drop();
    },
  };
}

export interface DashboardBrowser {
  server: DashboardServer;
  browser: Browser;
  /**
   * A browser context on the server (`baseURL` its address), with the clipboard granted and the
   * UI timeout as its default.
   */
  newContext(options: BrowserContextOptions): Promise<BrowserContext>;
}

/**
 * A dashboard server (see `startDashboardServer`) and Chromium for a describe block: started in
 * its `beforeAll`, stopped in its `afterAll`; read `server` and `browser` from then on.
 */
export function useDashboardBrowser(options: {
  env?: NodeJS.ProcessEnv;
  dialect?: Dialect;
  /** How long the UI may take to show what the server did. */
  uiTimeoutMs: number;
}): DashboardBrowser {
  let started: { server: DashboardServer; browser: Browser } | undefined;
  beforeAll(async () => {
    const [server, browser] = await Promise.all([
      startDashboardServer({
        ...(options.env ? { env: options.env } : {}),
        ...(options.dialect ? { dialect: options.dialect } : {}),
      }),
      launchChromium(),
    ]);
    started = { server, browser };
  }, 30_000);
  afterAll(async () => {
    await started?.browser.close();
    await started?.server.stop();
  });
  const running = () => {
    if (!started) throw new Error("the dashboard browser starts in beforeAll");
    return started;
  };
  return {
    get server() {
      return running().server;
    },
    get browser() {
      return running().browser;
    },
    async newContext(contextOptions) {
      const { server, browser } = running();
      const context = await browser.newContext({ baseURL: server.url, ...contextOptions });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
      context.setDefaultTimeout(options.uiTimeoutMs);
      return context;
    },
  };
}

/** A full-page screenshot under test-artifacts/screenshots/ (gitignored), for a person to look at. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // From the top, so sticky bars sit where a visitor sees them; and once entrance animations settle.
  await page.evaluate("window.scrollTo(0, 0)");
  await page.waitForTimeout(150);
  await page.screenshot({
    path: join(SCREENSHOT_DIR, `${name}.png`),
    fullPage: true,
    animations: "disabled",
  });
}

/** The owner a fresh install's set-up makes, signed in over HTTP, and the dashboard API as them. */
export interface OwnerSession {
  /** The session cookie, for a browser context (`context.addCookies`). */
  cookie: { name: string; value: string };
  /** A dashboard API call (`/dashboard/api` + `path`) with the session and its CSRF token; throws unless 2xx. */
  dashboard<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export async function setUpOwner(serverUrl: string): Promise<OwnerSession> {
  const setup = await fetch(`${serverUrl}/dashboard/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@example.com", password: TEST_PASSWORD }),
  });
  if (setup.status !== 201) throw new Error(`set-up: ${setup.status} ${await setup.text()}`);
  const [name = "", value = ""] = (setup.headers.get("set-cookie") ?? "").split(";")[0]?.split("=") ?? [];
  const cookie = { name, value };
  const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
  return {
    cookie,
    async dashboard<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${serverUrl}/dashboard/api${path}`, {
        method,
        headers: {
          cookie: `${cookie.name}=${cookie.value}`,
          "x-csrf-token": csrf,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (response.status === 204 ? undefined : await response.json()) as T;
    },
  };
}
