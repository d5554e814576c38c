/**
 * Creating a scoped key with an IP allowlist on the console's API keys page, in a real Chromium
 * against a real server on each database, at 1280 and 390 px: an allowlist entry with host bits
 * set is refused next to the field with the network to write; the key made is listed with its
 * scope and ranges, and the server holds it to them.
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

const UI_TIMEOUT = 10_000;
/** One address alone, as long as IPv6 gets: it must wrap rather than widen a phone's page. */
const LONG_IPV6 = "2001:db8:85a3:1234:5678:8a2e:370:7334";

describe.each(DIALECTS)("scoped keys in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let owner: OwnerSession;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
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

  it("creates a send-only key with an allowlist, lists both, and the server holds the key to them", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        const label = `checkout-${viewport.width}`;
        await page.goto("/developers/keys");
        await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
        // The console opens in live mode: the keys made here are sandbox keys, listed in sandbox mode.
        await page.getByRole("switch", { name: /Sandbox mode/ }).click();
        await page.getByRole("button", { name: "Create key" }).first().click();
        const dialog = page.getByRole("dialog", { name: "Create an API key" });
        await dialog.getByRole("radio", { name: /^Sandbox/ }).check();
        await dialog.getByLabel("Label (optional)").fill(label);
        expect(await dialog.getByRole("radio", { name: /^Full access/ }).isChecked()).toBe(true);
        await dialog.getByRole("radio", { name: /^Send only/ }).check();
        const ips = dialog.getByLabel("Allowed IPs (optional)");
        await ips.fill("203.0.113.7/24\n2001:db8::/32");
        await dialog.getByRole("button", { name: "Create key" }).click();
        await dialog
          .getByText(
            '"203.0.113.7/24" has host bits set: the network of 203.0.113.7/24 is 203.0.113.0/24; write that, or 203.0.113.7 alone for the one address.',
          )
          .waitFor();
        expect(await ips.getAttribute("aria-invalid")).toBe("true");
        expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
          viewport.width,
        );
        await saveScreenshot(page, `console-key-scopes-create-${viewport.width}`);

        await ips.fill(`203.0.113.0/24\n2001:db8::/32, ${LONG_IPV6}`);
        await dialog.getByRole("button", { name: "Create key" }).click();
        const secretDialog = page.getByRole("dialog", { name: "Your new sandbox key" });
        const secret = await secretDialog.getByLabel("Secret key").inputValue();
        await secretDialog.getByRole("button", { name: "Done" }).click();

        const row = page.getByRole("row").filter({ hasText: label });
        await row.getByText("send", { exact: true }).waitFor();
        await row.getByText("203.0.113.0/24").waitFor();
        await row.getByText("2001:db8::/32").waitFor();
        await row.getByText(`${LONG_IPV6}/128`).waitFor();
        expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
          viewport.width,
        );
        await saveScreenshot(page, `console-key-scopes-${viewport.width}`);

        // This browser and the test reach the server from 127.0.0.1, outside the allowlist.
        const refused = await fetch(`${site.server.url}/v2/balance`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("ip_not_allowed");
      });
    }
    const keys = await owner.dashboard<{
      data: Array<{ label: string; scope: string; allowed_ips: string[] }>;
    }>("GET", "/keys?environment=sandbox");
    expect(keys.data.map((key) => [key.label, key.scope, key.allowed_ips])).toEqual(
      expect.arrayContaining([
        ["checkout-1280", "send", ["203.0.113.0/24", "2001:db8::/32", `${LONG_IPV6}/128`]],
        ["checkout-390", "send", ["203.0.113.0/24", "2001:db8::/32", `${LONG_IPV6}/128`]],
      ]),
    );
  }, 120_000);
});
