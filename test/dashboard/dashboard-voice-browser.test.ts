/**
 * OTP settings → Voice in a real Chromium against a real server: the caller ID field, the
 * 1600-series rule of a BFSI account shown beside it, and the server's refusal shown on the field.
 * Pages are saved as screenshots under test-artifacts/, at desktop and phone widths.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { updateAccount } from "../../src/accounts/update.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { getOtpSettings } from "../../src/otp/settings.js";
import { DESKTOP, PHONE, saveScreenshot, useDashboardBrowser } from "../helpers/browser.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

const EMAIL = "bank-owner@example.com";
const OPERATOR_FROM = "+918046001234";

describe("the Voice caller ID on the OTP settings page", () => {
  const site = useDashboardBrowser({
    uiTimeoutMs: 15_000,
    env: {
      // Live voice configured, calling from a number outside the 1600 series by default; no call is placed here.
      VOICE_API_URL: "http://127.0.0.1:9",
      VOICE_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
      VOICE_AUTH_TOKEN: "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0",
      VOICE_FROM: OPERATOR_FROM,
    },
  });
  let accountId = "";
  let browser: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    accountId = (await createAccount(site.server.ctx, { email: EMAIL, password: TEST_PASSWORD })).id;
    await updateAccount(site.server.ctx, accountId, { bfsi: true }, CLI_ORIGIN);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("shows a BFSI account the rule and why voice OTPs are refused, and a refused number on the field", async () => {
    browser = await site.newContext({ viewport: DESKTOP });
    page = await browser.newPage();
    await page.goto("/otp");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "OTP settings" }).waitFor();

    const voice = page.getByRole("region", { name: "Voice" });
    await voice.getByText("BFSI account", { exact: true }).waitFor();
    await voice.getByText("This account is marked BFSI (a bank, NBFC, broker or insurer)").waitFor();
    await voice
      .getByRole("status")
      .filter({ hasText: `the server's default, ${OPERATOR_FROM}, is not one` })
      .waitFor();
    const field = voice.getByLabel("Voice caller ID");
    expect(await field.getAttribute("placeholder")).toBe(OPERATOR_FROM);

    await field.fill(OPERATOR_FROM);
    await page.getByRole("button", { name: "Save settings" }).click();
    const refusal = voice.getByRole("alert");
    await refusal.filter({ hasText: `${OPERATOR_FROM} cannot be used` }).waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect((await getOtpSettings(site.server.ctx.db, accountId, "live")).voice_caller_id).toBeNull();
    await saveScreenshot(page, "otp-settings-voice-refused");
  });

  it("saves a 1600-series number as typed with spaces, and the warning goes", async () => {
    const voice = page.getByRole("region", { name: "Voice" });
    await voice.getByLabel("Voice caller ID").fill("+91 1601 234567");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("OTP settings saved for live.").waitFor();
    expect(await voice.getByRole("status").count()).toBe(0);
    expect((await getOtpSettings(site.server.ctx.db, accountId, "live")).voice_caller_id).toBe(
      "+911601234567",
    );

    await page.reload();
    expect(await page.getByLabel("Voice caller ID").inputValue()).toBe("+911601234567");
    await saveScreenshot(page, "otp-settings-voice");
    await page.setViewportSize(PHONE);
    await page.getByRole("region", { name: "Voice" }).getByText("BFSI account", { exact: true }).waitFor();
    // Nothing wider than the phone's screen.
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
      PHONE.width,
    );
    await saveScreenshot(page, "otp-settings-voice-phone");
  });
});
