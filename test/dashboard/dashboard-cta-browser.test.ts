/**
 * Whitelisted links and numbers on the Templates & senders page, in a real Chromium against a
 * real server: the list, adding a link and a number (the server's canonical form shown, its
 * refusal on the field), removing after a confirmation, at desktop and phone widths.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCtaEntries } from "../../src/dlt/cta/store.js";
import {
  DESKTOP,
  type OwnerSession,
  PHONE,
  saveScreenshot,
  setUpOwner,
  useDashboardBrowser,
} from "../helpers/browser.js";

describe("whitelisted links and numbers in the console", () => {
  const site = useDashboardBrowser({ uiTimeoutMs: 15_000 });
  let owner: OwnerSession;
  let accountId = "";
  let page: Page;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    accountId = (await owner.dashboard<{ account: { id: string } }>("GET", "/session")).account.id;
    const context = await site.newContext({ viewport: DESKTOP });
    await context.addCookies([{ ...owner.cookie, url: site.server.url }]);
    page = await context.newPage();
  }, 30_000);

  afterAll(async () => {
    await page?.context().close();
  });

  const section = () => page.getByRole("region", { name: "Whitelisted links and numbers" });

  it("explains the list, refuses a link that smuggles another host, and adds a link and a number", async () => {
    await page.goto("/templates");
    await section().getByText("Once you list a link, every link in a message").waitFor();
    await section().getByText("No links or numbers yet").waitFor();

    const value = section().getByLabel("Link", { exact: true });
    await value.fill("https://dky.in@evil.com/");
    await section().getByRole("button", { name: "Add link" }).click();
    await section().getByRole("alert").filter({ hasText: "has a user name or password" }).waitFor();
    expect(await value.getAttribute("aria-invalid")).toBe("true");
    await saveScreenshot(page, "cta-refused");

    await value.fill("HTTPS://DKY.IN/offers/");
    await section().getByRole("button", { name: "Add link" }).click();
    const list = section().getByRole("list", { name: "Whitelisted links and numbers" });
    await list.getByText("https://dky.in/offers/", { exact: true }).waitFor();
    expect(await value.inputValue()).toBe("");

    await section().getByLabel("Type").selectOption("number");
    const number = section().getByLabel("Number", { exact: true });
    await number.fill("1800 123 4567");
    await section().getByRole("button", { name: "Add number" }).click();
    await section().getByRole("alert").filter({ hasText: "with + and the country code" }).waitFor();
    await number.fill("+91 1800 123 4567");
    await section().getByRole("button", { name: "Add number" }).click();
    await list.getByText("+9118001234567", { exact: true }).waitFor();

    await owner.dashboard("POST", "/cta", {
      kind: "url",
      value: `https://go.dky.in/${"campaign/".repeat(8)}`,
    });
    await page.reload();
    await section().getByRole("listitem").nth(2).waitFor();
    expect(await section().getByRole("listitem").allTextContents()).toEqual([
      expect.stringMatching(/^Linkhttps:\/\/dky\.in\/offers\/added .*Remove$/),
      expect.stringMatching(/^Linkhttps:\/\/go\.dky\.in\/campaign\//),
      expect.stringMatching(/^Number\+9118001234567added .*Remove$/),
    ]);
    expect((await listCtaEntries(site.server.ctx, accountId)).map((entry) => entry.value)).toEqual([
      "https://dky.in/offers/",
      `https://go.dky.in/${"campaign/".repeat(8)}`,
      "+9118001234567",
    ]);
    await section().scrollIntoViewIfNeeded();
    await saveScreenshot(page, "cta-desktop");
  });

  it("fits a phone's screen", async () => {
    await page.setViewportSize(PHONE);
    await section().getByText("+9118001234567", { exact: true }).waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      PHONE.width,
    );
    await saveScreenshot(page, "cta-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("removes an entry after a confirmation that says what changes", async () => {
    await section().getByRole("button", { name: "Remove +9118001234567" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove +9118001234567?" });
    await dialog.getByText("It is your only number").waitFor();
    await saveScreenshot(page, "cta-remove-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await section().getByText("+9118001234567", { exact: true }).count()).toBe(1);

    await section().getByRole("button", { name: "Remove +9118001234567" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove number" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await section().getByText("+9118001234567", { exact: true }).waitFor({ state: "detached" });
    expect((await listCtaEntries(site.server.ctx, accountId)).map((entry) => entry.kind)).toEqual([
      "url",
      "url",
    ]);
  });
});
