/**
 * The low-balance alert in the console, in a real Chromium against a real server on each
 * database, at 1280 and 390 px: the Transactions page's "Low-balance alert" section sets the
 * threshold (refusing what is not one, next to the field); a charge below it brings the banner
 * across every page, which turning the alert off removes.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { addCredits, changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
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
const BANNER = "Your live balance ₹0.90 is below your alert threshold ₹1.00 — add credits";

describe.each(DIALECTS)("the low-balance alert in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let owner: OwnerSession;
  let accountId: string;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    accountId = (await owner.dashboard<{ account: { id: string } }>("GET", "/session")).account.id;
  }, 30_000);

  async function withPage(viewport: { width: number; height: number }, work: (page: Page) => Promise<void>) {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...owner.cookie, url: site.server.url }]);
    try {
      await work(await context.newPage());
    } finally {
      await context.close();
    }
  }

  const liveChange = (amount: number, reason: string) =>
    amount > 0
      ? addCredits(
          site.server.ctx,
          { accountId, environment: "live", amount, reason, reference: null },
          CLI_ORIGIN,
        )
      : changeBalance(site.server.ctx, { accountId, environment: "live", amount, reason, reference: null });

  async function fitsWidth(page: Page, width: number): Promise<void> {
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
  }

  it("sets the threshold on the Transactions page, shows the banner below it, and turns it off", async () => {
    await liveChange(20_000, "credits_added");
    await withPage(DESKTOP, async (page) => {
      await page.goto("/transactions");
      const section = page.getByRole("region", { name: "Low-balance alert" });
      await section.getByText(/^Off\. Set an amount/).waitFor();
      const field = section.getByLabel("Alert below (INR)");

      await field.fill("0");
      await section.getByRole("button", { name: "Save alert" }).click();
      await section.getByText(/low_balance_threshold must be an INR amount above 0/).waitFor();

      await field.fill("1.00");
      await section.getByRole("button", { name: "Save alert" }).click();
      await section.getByText(/^Saved\. A charge that takes the live balance below ₹1\.00/).waitFor();
      await section
        .getByText(/^On: a charge that takes the live balance \(now ₹2\.00\) below ₹1\.00/)
        .waitFor();
      expect(
        await page.getByRole("status").filter({ hasText: "is below your alert threshold" }).count(),
      ).toBe(0);

      // Sends elsewhere take the balance below it: the next page opened shows the banner.
      await liveChange(-11_000, "sms_charge");
      await page.getByRole("link", { name: "Overview" }).click();
      const banner = page.getByRole("status").filter({ hasText: "is below your alert threshold" });
      await banner.waitFor();
      expect((await banner.innerText()).replace(/\s+/g, " ").trim()).toBe(BANNER);
      await page.getByRole("link", { name: "Transactions" }).click();
      await section.getByText("The balance, ₹0.90, is below the threshold now.").waitFor();
      expect(await field.inputValue()).toBe("1.00");
      await fitsWidth(page, DESKTOP.width);
      await saveScreenshot(page, "console-low-balance-1280");

      // The sandbox balance has no threshold: no banner there.
      await page.getByRole("switch", { name: "Sandbox mode" }).click();
      await section.getByText(/^Off\. Set an amount/).waitFor();
      expect(await banner.count()).toBe(0);
      await page.getByRole("switch", { name: "Sandbox mode" }).click();
      await banner.waitFor();
    });

    const [alert] = await site.server.ctx.db
      .selectFrom("events")
      .select(["environment", "data"])
      .where("account_id", "=", accountId)
      .where("type", "=", "balance.low")
      .execute();
    expect(alert && { environment: alert.environment, data: JSON.parse(alert.data) }).toEqual({
      environment: "live",
      data: { balance: "0.9000", threshold: "1.0000" },
    });

    await withPage(PHONE, async (page) => {
      await page.goto("/transactions");
      const banner = page.getByRole("status").filter({ hasText: "is below your alert threshold" });
      await banner.waitFor();
      expect((await banner.innerText()).replace(/\s+/g, " ").trim()).toBe(BANNER);
      const section = page.getByRole("region", { name: "Low-balance alert" });
      await section.getByText("The balance, ₹0.90, is below the threshold now.").waitFor();
      await fitsWidth(page, PHONE.width);
      await saveScreenshot(page, "console-low-balance-390");

      await section.getByRole("button", { name: "Turn off" }).click();
      await section.getByText("Alert turned off.").waitFor();
      await banner.waitFor({ state: "detached" });
      expect(await section.getByLabel("Alert below (INR)").inputValue()).toBe("");
    });
    expect(
      (await owner.dashboard<{ low_balance_threshold: null }>("GET", "/billing?environment=live"))
        .low_balance_threshold,
    ).toBeNull();
  });
});
