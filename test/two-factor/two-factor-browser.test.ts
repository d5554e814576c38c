/**
 * Two-factor sign-in in the console, in a real Chromium against a real server: enrolment on
 * Settings → Security (QR code, the secret, a code computed here from it), the recovery codes shown
 * once, the owner's rule, signing out and in again with the second step, and a member held to
 * enrolment by the rule, at desktop and phone widths.
 */
import { generate } from "otplib";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DESKTOP,
  type OwnerSession,
  PHONE,
  saveScreenshot,
  setUpOwner,
  useDashboardBrowser,
} from "../helpers/browser.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

/** The code an authenticator app shows `stepsAhead` steps from now (the server takes ±1 step). */
function codeNow(secret: string, stepsAhead = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });
}

describe("two-factor sign-in in the console", () => {
  const site = useDashboardBrowser({ uiTimeoutMs: 15_000 });
  let owner: OwnerSession;
  let page: Page;
  let secret = "";

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    const context = await site.newContext({ viewport: DESKTOP });
    await context.addCookies([{ ...owner.cookie, url: site.server.url }]);
    page = await context.newPage();
  }, 30_000);

  afterAll(async () => {
    await page?.context().close();
  });

  const twoFactor = () => page.getByRole("region", { name: "Two-factor sign-in" });

  it("enrols with the QR code's secret and a code, and shows the recovery codes once", async () => {
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Security" }).click();
    await page.waitForURL("**/settings/security");
    await twoFactor().getByText("Off", { exact: true }).waitFor();
    await twoFactor().getByRole("button", { name: "Set up two-factor sign-in" }).click();

    const qr = twoFactor().getByRole("img", { name: /QR code to add Dakiya/ });
    await qr.waitFor();
    await expect
      .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    secret = ((await page.getByTestId("two-factor-secret").textContent()) ?? "").replaceAll(" ", "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await saveScreenshot(page, "security-enrol-desktop");
    await page.setViewportSize(PHONE);
    await saveScreenshot(page, "security-enrol-phone");
    await page.setViewportSize(DESKTOP);

    const code = twoFactor().getByLabel("Authentication code");
    await code.fill("000000" === (await codeNow(secret)) ? "111111" : "000000");
    await twoFactor().getByRole("button", { name: "Turn on" }).click();
    await twoFactor().getByRole("alert").filter({ hasText: "The code is not right" }).waitFor();
    await code.fill(await codeNow(secret));
    await twoFactor().getByRole("button", { name: "Turn on" }).click();

    const codes = twoFactor().getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    for (const text of await codes.allTextContents()) expect(text).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await saveScreenshot(page, "security-recovery-codes-desktop");
    await page.setViewportSize(PHONE);
    await saveScreenshot(page, "security-recovery-codes-phone");
    await page.setViewportSize(DESKTOP);
    await twoFactor().getByRole("button", { name: "I have saved them" }).click();
    await twoFactor().getByText("On", { exact: true }).waitFor();
    expect(await codes.count()).toBe(0);

    const rule = page.getByRole("checkbox", { name: /Require two-factor sign-in for every member/ });
    await rule.check();
    await expect.poll(() => rule.isEnabled()).toBe(true);
    expect(await rule.isChecked()).toBe(true);
    const view = await owner.dashboard<{ account: { require_two_factor: boolean } }>("GET", "/session");
    expect(view.account.require_two_factor).toBe(true);
    expect(await twoFactor().getByRole("button", { name: "Turn off" }).isDisabled()).toBe(true);
    await saveScreenshot(page, "security-on-desktop");
    await page.setViewportSize(PHONE);
    await saveScreenshot(page, "security-on-phone");
    await page.setViewportSize(DESKTOP);
  });

  it("takes a member without a second factor to Settings → Security while the account requires one", async () => {
    const invited = await owner.dashboard<{ invite_url: string }>("POST", "/members", {
      email: "dev@example.com",
      role: "developer",
    });
    const context = await site.newContext({ viewport: PHONE });
    const memberPage = await context.newPage();
    try {
      await memberPage.goto(new URL(invited.invite_url).pathname);
      await memberPage.getByLabel("Password").fill(TEST_PASSWORD);
      await memberPage.getByRole("button", { name: "Set password and sign in" }).click();
      await memberPage.waitForURL("**/settings/security");
      await memberPage.getByText("This account requires two-factor sign-in for every member").waitFor();
      await memberPage.getByRole("button", { name: "Set up two-factor sign-in" }).waitFor();
      await saveScreenshot(memberPage, "security-required-phone");
      // Every other page leads back here.
      await memberPage.goto("/developers/keys");
      await memberPage.waitForURL("**/settings/security");
    } finally {
      await context.close();
    }
  });
  it("signs out, and signs in again with the password and then a code", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/signin");
    await page.getByLabel("Email").fill("owner@example.com");
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
    expect((await page.context().cookies()).filter((c) => c.name === "dakiya_session")).toEqual([]);
    await saveScreenshot(page, "sign-in-second-step-desktop");
    await page.setViewportSize(PHONE);
    await saveScreenshot(page, "sign-in-second-step-phone");
    await page.getByRole("button", { name: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").waitFor();
    await saveScreenshot(page, "sign-in-recovery-code-phone");
    await page.getByRole("button", { name: "Use a code from your authenticator app" }).click();
    await page.setViewportSize(DESKTOP);

    const code = page.getByLabel("Authentication code");
    await code.fill("12345");
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "The code is not right" }).waitFor();
    // The code that turned it on is spent; the next step's code is new and within the window.
    await code.fill(await codeNow(secret, 1));
    await page.getByRole("button", { name: "Verify and sign in" }).click();
    // Back where the owner signed out from, signed in.
    await page.waitForURL("**/settings/security");
    await twoFactor().getByText("On", { exact: true }).waitFor();
    expect((await page.context().cookies()).filter((c) => c.name === "dakiya_session")).toHaveLength(1);
  });
});
