/**
 * The Messages page's CSV download in a real Chromium against a real server on each database: the
 * button downloads every message the page's filters match (more than one loaded page), as the
 * file a spreadsheet opens, Hindi intact; changing a filter changes what it downloads.
 */
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DESKTOP,
  type OwnerSession,
  PHONE,
  saveScreenshot,
  setUpOwner,
  useDashboardBrowser,
} from "../helpers/browser.js";
import { DIALECTS } from "../helpers/database.js";

const UI_TIMEOUT = 10_000;
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
/** More than the page's first load of 50. */
const SENT = 60;

describe.each(DIALECTS)("the Messages page's CSV download on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let cookie: OwnerSession["cookie"];
  let dashboard: OwnerSession["dashboard"];

  beforeAll(async () => {
    ({ cookie, dashboard } = await setUpOwner(site.server.url));
    await dashboard("POST", "/sandbox/credits", { amount: "100.00" });
    await dashboard("POST", "/senders", { sender: "DAKIYA" });
    await dashboard("POST", "/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "ऑर्डर भेजा गया",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "आपका ऑर्डर {#var#} भेज दिया गया है।",
    });
    const key = (await dashboard<{ secret: string }>("POST", "/keys", { environment: "sandbox" })).secret;
    const response = await fetch(`${site.server.url}/v2/sms/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        messages: Array.from({ length: SENT }, (_, i) => ({
          to: i % 2 === 0 ? "+919876543210" : "+919876543211",
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { var1: `A${i}` },
          reference: i === 0 ? "=1+1" : `order-${i}`,
        })),
      }),
    });
    // Read whole: an unread answer would keep its connection busy and hold the server's stop up.
    const body = await response.text();
    if (response.status !== 202) throw new Error(`batch: ${response.status} ${body}`);
  }, 30_000);

  async function withPage(viewport: { width: number; height: number }, work: (page: Page) => Promise<void>) {
    const context = await site.newContext({ viewport, acceptDownloads: true });
    await context.addCookies([{ ...cookie, url: site.server.url }]);
    await context.addInitScript("window.localStorage.setItem('dakiya.environment', 'sandbox')");
    try {
      await work(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /** Clicks the page's download button and reads the file it saves. */
  async function downloadCsv(page: Page): Promise<{ name: string; bytes: Buffer; rows: string[][] }> {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: /^Download CSV/ }).click(),
    ]);
    const bytes = await readFile(await download.path());
    return { name: download.suggestedFilename(), bytes, rows: parse(bytes, { bom: true }) };
  }

  it("downloads every message the filters match, not only the loaded page", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/messages");
      await page.getByRole("button", { name: "Load more" }).waitFor();
      expect(await page.getByRole("row").filter({ hasText: "ऑर्डर भेजा गया" }).count()).toBe(50);
      await page.getByText("Every matching message, up to the newest 1,00,000").waitFor();
      await saveScreenshot(page, "console-messages-csv-1280");

      const all = await downloadCsv(page);
      expect(all.name).toBe("dakiya-sandbox-messages.csv");
      expect([...all.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const [header, ...rows] = all.rows;
      expect(header?.slice(0, 5)).toEqual(["created_at", "id", "to", "channel", "status"]);
      expect(rows).toHaveLength(SENT);
      const reference = header?.indexOf("reference") ?? -1;
      const text = header?.indexOf("text") ?? -1;
      expect(rows.map((row) => row[reference]).sort()).toEqual(
        ["'=1+1", ...Array.from({ length: SENT - 1 }, (_, i) => `order-${i + 1}`)].sort(),
      );
      expect(rows.find((row) => row[reference] === "order-7")?.[text]).toBe("आपका ऑर्डर A7 भेज दिया गया है।");

      // The number filter narrows the download as it narrows the list.
      await page.getByLabel("Number").fill("3211");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("link", { name: "Download CSV of these messages" }).waitFor();
      const odd = await downloadCsv(page);
      expect(odd.rows.slice(1)).toHaveLength(SENT / 2);
      expect(odd.rows.slice(1).every((row) => row[2] === "'+919876543211")).toBe(true);
    });
  });

  it("offers the download on a phone without widening the page", async () => {
    await withPage(PHONE, async (page) => {
      await page.goto("/messages?status=failed");
      await page.getByText("No messages match these filters").waitFor();
      const link = page.getByRole("link", { name: "Download CSV of these messages" });
      expect(await link.getAttribute("href")).toBe(
        "/dashboard/api/messages/export.csv?environment=sandbox&status=failed",
      );
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(page, "console-messages-csv-390");
      const failed = await downloadCsv(page);
      expect(failed.rows).toHaveLength(1);
    });
  });
});
