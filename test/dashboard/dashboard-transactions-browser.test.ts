/**
 * The messages list's new columns and date range, and the Transactions page, in a real Chromium
 * against a real server on each database, at 1280 and 390 px: the template's name, the sender,
 * the reference and a failed message's error show; a day filter keeps or drops today's messages;
 * the ledger shows the top-up, charges and the refund, links a charge to its message, follows the
 * environment switch, and downloads its CSV.
 */
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
import { waitFor } from "../helpers/delivery.js";

const UI_TIMEOUT = 10_000;
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const FAILING_TO = "+919999999933";

/** Today and yesterday in India (YYYY-MM-DD), where the server puts the day boundaries. */
function indiaDay(offsetDays = 0): string {
  return new Date(Date.now() + 5.5 * 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

async function fitsWidth(page: Page, width: number): Promise<boolean> {
  return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
}

describe.each(DIALECTS)("messages columns and transactions in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let cookie: OwnerSession["cookie"];
  let dashboard: OwnerSession["dashboard"];
  const sent: string[] = [];

  beforeAll(async () => {
    ({ cookie, dashboard } = await setUpOwner(site.server.url));
    await dashboard("POST", "/sandbox/credits", { amount: "100.00" });
    await dashboard("POST", "/senders", { sender: "DAKIYA" });
    await dashboard("POST", "/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "Order shipped",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your order {#var#} is on its way.",
    });
    const key = (await dashboard<{ secret: string }>("POST", "/keys", { environment: "sandbox" })).secret;
    for (const [to, reference] of [
      ["+919876543210", "order-1001"],
      [FAILING_TO, "order-1002"],
      ["+919876543212", "order-1003"],
    ] as const) {
      const response = await fetch(`${site.server.url}/v2/sms/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          to,
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { var1: "A7" },
          reference,
        }),
      });
      if (!response.ok) throw new Error(`send: ${response.status} ${await response.text()}`);
      sent.push(((await response.json()) as { id: string }).id);
    }
    await waitFor(async () => {
      const list = await dashboard<{ data: Array<{ status: string }> }>(
        "GET",
        "/messages?environment=sandbox",
      );
      return list.data.every((message) => message.status === "delivered" || message.status === "failed");
    }, UI_TIMEOUT);
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

  it("shows the sender, template name, reference and error of each message, and filters by day", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/messages");
        const failedRow = page.getByRole("row").filter({ hasText: FAILING_TO });
        await failedRow.getByText("carrier_rejected").waitFor();
        await failedRow.getByText("Order shipped").waitFor();
        await failedRow.getByText("order-1002").waitFor();
        await failedRow.getByText("DAKIYA").waitFor();
        const okRow = page.getByRole("row").filter({ hasText: "+919876543210" });
        await okRow.getByText("order-1001").waitFor();
        expect(await page.getByRole("row").filter({ hasText: "Order shipped" }).count()).toBe(3);
        await saveScreenshot(page, `console-messages-columns-${viewport.width}`);
        expect(await fitsWidth(page, viewport.width)).toBe(true);

        // Yesterday alone holds none of them; from today on, all three.
        await page.getByLabel("To", { exact: true }).fill(indiaDay(-1));
        await page.getByText("No messages match these filters").waitFor();
        expect(page.url()).toContain(`until=${indiaDay(-1)}`);
        await page.getByRole("button", { name: "Clear filters" }).click();
        await page.getByLabel("From", { exact: true }).fill(indiaDay());
        await expect.poll(() => page.getByRole("row").filter({ hasText: "Order shipped" }).count()).toBe(3);
        if (viewport === DESKTOP) await saveScreenshot(page, "console-messages-date-range-1280");
      });
    }
  });

  it("lists the environment's transactions with links to their messages, and downloads them as CSV", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/");
        if (viewport === PHONE) await page.getByRole("button", { name: /menu/i }).click();
        await page.getByRole("link", { name: "Transactions" }).click();
        await page.getByRole("heading", { name: "Transactions" }).waitFor();
        const rows = page.getByRole("row");
        await rows.filter({ hasText: "SMS refund" }).waitFor();
        // The top-up, three charges and the failed one's refund.
        expect(await rows.filter({ hasText: "SMS charge" }).count()).toBe(3);
        await rows.filter({ hasText: "Sandbox top-up" }).getByText("+₹100.00").waitFor();
        const refund = rows.filter({ hasText: "SMS refund" });
        expect(await refund.getByRole("link").textContent()).toBe(sent[1]);
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-transactions-${viewport.width}`);

        if (viewport === DESKTOP) {
          const [download] = await Promise.all([
            page.waitForEvent("download"),
            page.getByRole("link", { name: "Download CSV" }).click(),
          ]);
          expect(download.suggestedFilename()).toBe("dakiya-sandbox-ledger.csv");
          const path = await download.path();
          const { readFile } = await import("node:fs/promises");
          const csv = await readFile(path, "utf8");
          const lines = csv.trim().split("\r\n");
          expect(lines[0]).toBe("created_at,id,reason,amount_inr,balance_after_inr,reference");
          expect(lines).toHaveLength(6);
          expect(lines.at(-1)).toMatch(/,sandbox_top_up,100\.0000,100\.0000,$/);

          await refund.getByRole("link").click();
          await page.waitForURL(`**/messages/${sent[1]}`);
        }
      });
    }
  });

  it("follows the environment switch, and narrows to the days picked", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/transactions");
      await page.getByRole("row").filter({ hasText: "SMS refund" }).waitFor();
      await page.getByLabel("From", { exact: true }).fill(indiaDay(1));
      await page.getByText("No transactions on these dates").waitFor();
      expect(await page.getByRole("link", { name: "Download CSV of these dates" }).getAttribute("href")).toBe(
        `/dashboard/api/ledger.csv?environment=sandbox&from=${indiaDay(1)}`,
      );
      await page.getByRole("button", { name: "All dates" }).click();
      await page.getByRole("row").filter({ hasText: "SMS refund" }).waitFor();
      await page.getByRole("switch", { name: "Sandbox mode" }).click();
      await page.getByText("No live transactions yet").waitFor();
      await saveScreenshot(page, "console-transactions-live-empty-1280");
    });
  });
});
