/**
 * The Overview's charts in a real Chromium against a real server on each database, at 1280 and
 * 390 px: after sandbox SMS (one failing) and OTPs (one verified) sent through the API, the four
 * charts draw, their legends and summaries give the right numbers, the day table holds today's
 * row, the period picker changes the reports asked for and stays in the address, and the
 * environment switch empties them.
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
const OTP_CODE = "482913";

/** India's date `offsetDays` from today, YYYY-MM-DD, as the server's days fall. */
function indiaDay(offsetDays = 0): string {
  return new Date(Date.now() + 5.5 * 3_600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

describe.each(DIALECTS)("the Overview's charts on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let cookie: OwnerSession["cookie"];

  beforeAll(async () => {
    let dashboard: OwnerSession["dashboard"];
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
    const post = async (path: string, body: object) => {
      const response = await fetch(`${site.server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    for (const to of ["+919876543210", "+919876543211", "+919876543212", FAILING_TO]) {
      await post("/v2/sms/send", {
        to,
        sender: "DAKIYA",
        template_id: TEMPLATE_ID,
        variables: { var1: "A7" },
      });
    }
    // Two WhatsApp OTPs; one is verified.
    await post("/v2/otp/send", { to: "+919876543220", channel: "whatsapp", code: OTP_CODE });
    await post("/v2/otp/send", { to: "+919876543221", channel: "whatsapp" });
    expect(await post("/v2/otp/verify", { to: "+919876543220", code: OTP_CODE })).toMatchObject({
      verified: true,
    });
    // Until every SMS has its final status, so the chart's numbers are settled.
    await waitFor(async () => {
      const list = await dashboard<{ data: Array<{ channel: string; status: string }> }>(
        "GET",
        "/messages?environment=sandbox&channel=sms",
      );
      return list.data.every((message) => message.status === "delivered" || message.status === "failed");
    }, UI_TIMEOUT);
  }, 30_000);

  async function withPage(viewport: { width: number; height: number }, work: (page: Page) => Promise<void>) {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...cookie, url: site.server.url }]);
    await context.addInitScript("window.localStorage.setItem('dakiya.environment', 'sandbox')");
    try {
      await work(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /** The figure of the chart with this heading. */
  const chart = (page: Page, title: string) => page.getByRole("figure", { name: title });

  it("draws the four charts with the period's numbers, and asks for another period when picked", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        const asked: string[] = [];
        page.on("request", (request) => {
          if (request.url().includes("/dashboard/api/reports/")) asked.push(request.url());
        });
        await page.goto("/");
        const activity = page.getByRole("region", { name: "Activity" });
        await activity.getByRole("button", { name: "30 days", pressed: true }).waitFor();

        const messages = chart(page, "Messages per day, by status");
        await messages.locator("canvas").first().waitFor();
        // Four SMS and two WhatsApp OTPs: the SMS delivered or failed, the OTPs' deliveries too.
        await messages.getByText(/^6 messages: /).waitFor();
        const legend = await messages.locator(".chart-legend").innerText();
        expect(legend.replace(/\s+/g, " ")).toMatch(/Delivered \d Not yet final \d Undelivered 0 Failed 1/);
        const delivered = Number(/Delivered (\d)/.exec(legend.replace(/\s+/g, " "))?.[1]);
        expect(delivered).toBeGreaterThanOrEqual(3);

        const rate = chart(page, "Delivery rate per day");
        await rate.locator("canvas").first().waitFor();
        await rate.getByText(`of the period's 6 messages were delivered (${delivered})`).waitFor();

        const spend = chart(page, "Spend per day");
        await spend.locator("canvas").first().waitFor();
        // Four SMS at ₹0.25 less the failed one's refund, and the OTPs' WhatsApp price.
        const spent = await spend.locator(".chart-legend").innerText();
        expect(spent).toMatch(/Spend\s+₹\d+\.\d{2}/);

        const otp = chart(page, "OTP conversion by channel");
        await otp.getByText("1 of 2 OTPs verified (50%)").waitFor();
        await otp.locator("svg").first().waitFor();
        expect((await otp.locator(".otp-bar-row").innerText()).replace(/\s+/g, " ")).toMatch(
          /^WhatsApp 50% 1 of 2 verified, median \d+ s$/,
        );

        // The numbers by day: today's row holds the same totals; thirty rows in all.
        await activity.getByText("The numbers by day").click();
        const rows = activity.locator(".chart-table tbody tr");
        expect(await rows.count()).toBe(30);
        expect((await rows.first().innerText()).split(/\t|\n/).map((cell) => cell.trim())).toEqual(
          expect.arrayContaining(["6", "1"]),
        );
        await activity.getByText("The numbers by day").click();

        expect(
          asked.some((url) => url.includes(`from=${indiaDay(-29)}`) && url.includes(`to=${indiaDay()}`)),
        ).toBe(true);
        expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
          viewport.width,
        );
        // The plots fit their figures.
        for (const figure of [messages, rate, spend]) {
          const [figureBox, canvasBox] = await Promise.all([
            figure.boundingBox(),
            figure.locator("canvas").first().boundingBox(),
          ]);
          expect(canvasBox?.width).toBeGreaterThan(200);
          expect((canvasBox?.x ?? 0) + (canvasBox?.width ?? 0)).toBeLessThanOrEqual(
            (figureBox?.x ?? 0) + (figureBox?.width ?? 0) + 1,
          );
        }
        await activity.scrollIntoViewIfNeeded();
        await saveScreenshot(page, `console-overview-charts-${viewport.width}`);

        const before = asked.length;
        await activity.getByRole("button", { name: "7 days" }).click();
        await activity.getByRole("button", { name: "7 days", pressed: true }).waitFor();
        await page.waitForURL(/[?&]period=7\b/);
        await expect
          .poll(() => asked.slice(before).filter((url) => url.includes(`from=${indiaDay(-6)}`)).length)
          .toBe(2);
        await messages.getByText(/^6 messages: /).waitFor();
        await activity.getByText("The numbers by day").click();
        expect(await rows.count()).toBe(7);
        if (viewport === PHONE) await saveScreenshot(page, "console-overview-charts-7-days-390");
      });
    }
  });

  it("keeps the period from the address, and follows the environment switch", async () => {
    await withPage(DESKTOP, async (page) => {
      const asked = page.waitForRequest((request) =>
        request.url().includes(`/dashboard/api/reports/messages?environment=sandbox&from=${indiaDay(-89)}`),
      );
      await page.goto("/?period=90");
      await asked;
      const activity = page.getByRole("region", { name: "Activity" });
      await activity.getByRole("button", { name: "90 days", pressed: true }).waitFor();
      await chart(page, "Messages per day, by status")
        .getByText(/^6 messages: /)
        .waitFor();

      await page.getByRole("switch", { name: "Sandbox mode" }).click();
      await chart(page, "Messages per day, by status").getByText("No messages in this period.").waitFor();
      await chart(page, "OTP conversion by channel").getByText("No OTPs were sent in this period.").waitFor();
      await chart(page, "Spend per day").getByText("₹0.00 spent in this period, net of refunds.").waitFor();
      expect(page.url()).toContain("period=90");
      await saveScreenshot(page, "console-overview-charts-live-empty-1280");
    });
  });
});
