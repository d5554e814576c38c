/**
 * The account's PE–TM chain on the console's Templates & senders page, in a real Chromium against
 * a real server on each database, at 1280 and 390 px: saving a chain shows the hash each principal
 * entity's messages carry; a chain that is not DLT ids is refused next to the field; clearing it
 * goes back to the routes' chain.
 */
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { peTmChainHash } from "../../src/dlt/tm-chain.js";
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
const PE = "1101172974420810001";
const TM = "1101172974420830004";

describe.each(DIALECTS)("the PE–TM chain in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let owner: OwnerSession;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    await owner.dashboard("POST", "/senders", { sender: "DAKIYA" });
    await owner.dashboard("POST", "/templates", {
      template_id: "1107161234567890123",
      entity_id: PE,
      name: "order",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your order {#numeric#} is on its way.",
    });
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

  it("saves a chain and shows each entity's hash, refuses ids that are not digits, and clears it", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/templates");
        const section = page.getByRole("region", { name: "PE–TM chain" });
        await section.getByText(/carry the chain your provider set/).waitFor();
        const ids = section.getByLabel("Telemarketer ids");

        await ids.fill(`${TM}, TM-TWO`);
        await section.getByRole("button", { name: "Save chain" }).click();
        await section.getByText('telemarketer ids are DLT ids of 1 to 30 digits, got "TM-TWO".').waitFor();

        await ids.fill(TM);
        await section.getByRole("button", { name: "Save chain" }).click();
        await section.getByText("Saved. New messages carry the new hash.").waitFor();
        const hash = section.getByRole("definition");
        expect(await hash.textContent()).toBe(peTmChainHash(PE, [TM]));
        expect(await hash.textContent()).toBe(
          "c0c951afca257c5b87c3da535c09112080483f35b7e6faf35e2428b3b526b694",
        );
        expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
          viewport.width,
        );
        await section.scrollIntoViewIfNeeded();
        await saveScreenshot(page, `console-tm-chain-${viewport.width}`);

        await ids.fill("");
        await section.getByRole("button", { name: "Save chain" }).click();
        await section.getByText(/carry the chain your provider set/).waitFor();
        expect(await section.getByRole("definition").count()).toBe(0);
        expect((await owner.dashboard<{ tm_chain: null }>("GET", "/tm-chain")).tm_chain).toBeNull();
      });
    }
  });
});
