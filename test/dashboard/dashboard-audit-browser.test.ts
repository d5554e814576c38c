/**
 * Settings → Audit log in a real Chromium against a real server, at 1280 and 390 px: the
 * changes the owner made show newest first with who made them and a compact before/after; the
 * change, actor and date filters narrow the list; "Load more" pages on. Pages are saved as
 * screenshots under test-artifacts/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DESKTOP,
  type OwnerSession,
  PHONE,
  SCREENSHOT_DIR,
  saveScreenshot,
  setUpOwner,
  useDashboardBrowser,
} from "../helpers/browser.js";
import { DIALECTS } from "../helpers/database.js";

function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return join(SCREENSHOT_DIR, `${name}.png`);
}

const UI_TIMEOUT = 10_000;
const TEMPLATE_ID = "1107161234567890123";

/** A day in India (YYYY-MM-DD), `offsetDays` from today. */
function indiaDay(offsetDays = 0): string {
  return new Date(Date.now() + 5.5 * 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

async function fitsWidth(page: Page, width: number): Promise<boolean> {
  return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
}

describe.each(DIALECTS)("the audit log page on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let cookie: OwnerSession["cookie"];

  beforeAll(async () => {
    const owner = await setUpOwner(site.server.url);
    cookie = owner.cookie;
    const { dashboard } = owner;
    // 52 whitelisted numbers first, so the changes below fill the first page and the rest follow.
    for (let i = 0; i < 52; i++) {
      await dashboard("POST", "/cta", { kind: "number", value: `+9118001234${String(i).padStart(3, "0")}` });
    }
    await dashboard("POST", "/sandbox/credits", { amount: "100.00" });
    await dashboard("POST", "/senders", { sender: "DAKIYA" });
    await dashboard("POST", "/templates", {
      template_id: TEMPLATE_ID,
      entity_id: "1101456789012345678",
      name: "Order shipped",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your order {#var#} is on its way.",
    });
    await dashboard("PATCH", `/templates/${TEMPLATE_ID}`, { name: "Order dispatched" });
    await dashboard("PATCH", "/otp-settings?environment=sandbox", { expiry_seconds: 300 });
    const endpoint = await dashboard<{ id: string }>("POST", "/webhooks?environment=sandbox", {
      url: "https://1.1.1.1/hooks/dakiya",
      events: ["sms.delivered"],
    });
    await dashboard("POST", `/webhooks/${endpoint.id}/rotate-secret?environment=sandbox`, {});
    const key = await dashboard<{ id: string }>("POST", "/keys", { environment: "live", label: "backend" });
    await dashboard("POST", `/keys/${key.id}/rotate`, { grace_seconds: 3600 });
  }, 60_000);

  async function withPage(viewport: { width: number; height: number }, work: (page: Page) => Promise<void>) {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...cookie, url: site.server.url }]);
    try {
      await work(await context.newPage());
    } finally {
      await context.close();
    }
  }

  // One test per width: each walks the whole page, which takes a loaded machine well over 30 s.
  it.each([DESKTOP, PHONE])(
    "lists the account's changes newest first, with who made them and what changed, and filters them (%o)",
    async (viewport) => {
      await withPage(viewport, async (page) => {
        await page.goto("/");
        if (viewport === PHONE) await page.getByRole("button", { name: "Menu" }).click();
        const settings = page.getByRole("list", { name: "Settings" });
        await settings.getByRole("link", { name: "Audit log" }).click();
        await page.waitForURL(/\/settings\/audit$/);
        await page.getByRole("heading", { name: "Audit log" }).waitFor();

        const rows = page.getByRole("row").filter({ has: page.getByRole("cell") });
        await expect.poll(() => rows.count()).toBe(50);
        // Newest first: the key's rotation, then its creation.
        await expect.poll(() => rows.first().textContent()).toContain("API key rotated");
        const created = rows.filter({ hasText: "API key created" });
        await created.getByText("owner@example.com").waitFor();
        await created.getByText("backend").waitFor();
        const renamed = rows.filter({ hasText: "Template changed" });
        await renamed.getByText("Order shipped").waitFor();
        await renamed.getByText("Order dispatched").waitFor();
        expect(await renamed.getByText("DAKIYA").count()).toBe(0);
        await rows.filter({ hasText: "Webhook secret rotated" }).waitFor();
        await saveScreenshot(page, `console-audit-${dialect}-${viewport.width}`);
        // The first screenful too, at the size a person reads it.
        await page.screenshot({ path: screenshotPath(`console-audit-top-${dialect}-${viewport.width}`) });
        expect(await fitsWidth(page, viewport.width)).toBe(true);

        // The rest of the 61 changes, and the owner's sign-in, come with "Load more".
        await page.getByRole("button", { name: "Load more" }).click();
        await expect.poll(() => rows.count()).toBe(62);
        await expect.poll(() => page.getByRole("button", { name: "Load more" }).count()).toBe(0);

        await page.getByLabel("Change").selectOption({ label: "Webhooks" });
        await expect.poll(() => rows.count()).toBe(2);
        expect(page.url()).toContain("action=webhook");
        await saveScreenshot(page, `console-audit-webhooks-${dialect}-${viewport.width}`);
        expect(await fitsWidth(page, viewport.width)).toBe(true);

        await page.getByLabel("By").fill("cli");
        await page.getByLabel("By").press("Enter");
        await page.getByText("No changes match these filters").waitFor();
        await page.getByRole("button", { name: "Clear filters" }).click();
        await expect.poll(() => rows.count()).toBe(50);

        await page.getByLabel("To", { exact: true }).fill(indiaDay(-1));
        await page.getByText("No changes match these filters").waitFor();
        await page.getByRole("button", { name: "Clear filters" }).click();
        await page.getByLabel("From", { exact: true }).fill(indiaDay());
        await expect.poll(() => rows.count()).toBe(50);
      });
    },
    120_000,
  );
});
