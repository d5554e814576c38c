/**
 * Scheduled messages in the console, in a real Chromium against a real server on each database,
 * at 1280 and 390 px: a message sent with `send_at` an hour ahead shows as scheduled with its time
 * in India, its detail shows priority, send time and expiry, and the Cancel button cancels it and
 * refunds it; a message the API cancelled meanwhile gets the server's refusal; a delivered message
 * has no Cancel button; webhook endpoints can subscribe to `sms.cancelled`.
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
const SCHEDULED_TO = "+919876543210";
const CANCELLED_BY_API_TO = "+919876543211";
const DELIVERED_TO = "+919876543212";
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * "1 Dec, 09:00 IST", exactly: India is UTC+05:30 all year, so its wall clock is the UTC one moved
 * on 5.5 h (September may be "Sep" or "Sept", by the browser's locale data).
 */
function indiaTime(iso: string): RegExp {
  const india = new Date(Date.parse(iso) + 5.5 * 3_600_000);
  const twoDigits = (n: number) => String(n).padStart(2, "0");
  const yearNow = new Date(Date.now() + 5.5 * 3_600_000).getUTCFullYear();
  const year = india.getUTCFullYear() === yearNow ? "" : ` ${india.getUTCFullYear()}`;
  const month = MONTHS[india.getUTCMonth()] === "Sep" ? "Sept?" : MONTHS[india.getUTCMonth()];
  return new RegExp(
    `^${india.getUTCDate()} ${month}${year}, ${twoDigits(india.getUTCHours())}:${twoDigits(india.getUTCMinutes())} IST$`,
  );
}

/** Whether the page is no wider than the window (nothing runs off a phone's screen). */
async function fitsWidth(page: Page, width: number): Promise<boolean> {
  return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
}

describe.each(DIALECTS)("scheduled messages in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let cookie: OwnerSession["cookie"];
  let dashboard: OwnerSession["dashboard"];
  let sandboxKey: string;
  let scheduled: { id: string; send_at: string; expires_at: string };
  let delivered: string;

  /** A call to the public API with the sandbox key. */
  async function v2<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${site.server.url}/v2${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandboxKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  function sendSms(to: string, sendAt?: string) {
    return v2<{ id: string; status: string; send_at: string; expires_at: string }>("/sms/send", {
      to,
      sender: "DAKIYA",
      template_id: TEMPLATE_ID,
      variables: { var1: "4821" },
      ...(sendAt === undefined ? {} : { send_at: sendAt }),
    });
  }

  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const sandboxBalance = async () =>
    (await dashboard<{ balances: { sandbox: string } }>("GET", "/overview?environment=sandbox")).balances
      .sandbox;

  beforeAll(async () => {
    ({ cookie, dashboard } = await setUpOwner(site.server.url));
    await dashboard("POST", "/sandbox/credits", { amount: "100.00" });
    await dashboard("POST", "/senders", { sender: "DAKIYA" });
    await dashboard("POST", "/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "order",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your order {#var#} is on its way.",
    });
    sandboxKey = (await dashboard<{ secret: string }>("POST", "/keys", { environment: "sandbox" })).secret;

    delivered = (await sendSms(DELIVERED_TO)).id;
    await waitFor(async () => {
      const message = await dashboard<{ status: string }>(
        "GET",
        `/messages/${delivered}?environment=sandbox`,
      );
      return message.status === "delivered";
    }, UI_TIMEOUT);
    const sent = await sendSms(SCHEDULED_TO, inAnHour());
    expect(sent.status).toBe("scheduled");
    scheduled = sent;
    expect(await sandboxBalance()).toBe("99.5000");
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

  it("lists the scheduled message with its send time in India, and Cancel only where it can act", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/messages");
        const row = page.getByRole("row").filter({ hasText: SCHEDULED_TO });
        await row.getByText("Scheduled", { exact: true }).waitFor();
        await row.getByText(/^Sends at /).waitFor();
        const time = row.locator("time");
        expect(await time.textContent()).toMatch(indiaTime(scheduled.send_at));
        expect(await time.getAttribute("datetime")).toBe(scheduled.send_at);
        expect(await time.getAttribute("title")).toMatch(/UTC$/);
        await row.getByRole("button", { name: `Cancel the message to ${SCHEDULED_TO}` }).waitFor();

        const deliveredRow = page.getByRole("row").filter({ hasText: DELIVERED_TO });
        await deliveredRow.getByText("Delivered", { exact: true }).waitFor();
        expect(await deliveredRow.getByRole("button").count()).toBe(0);
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-messages-scheduled-${viewport.width}`);

        await page.getByLabel("Status").selectOption("scheduled");
        await expect.poll(() => page.getByRole("row").filter({ hasText: DELIVERED_TO }).count()).toBe(0);
        await row.waitFor();
        expect(await page.getByLabel("Status").locator("option").allTextContents()).toEqual(
          expect.arrayContaining(["Scheduled", "Cancelled"]),
        );
      });
    }
  });

  it("shows the priority, send time and expiry on the detail, with a Cancel button that asks first", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto(`/messages/${scheduled.id}`);
        await page.getByRole("heading", { level: 1, name: "Message" }).waitFor();
        const facts = page.getByRole("region", { name: "Content" });
        await facts.getByText("Transactional", { exact: true }).waitFor();
        await facts.getByText(indiaTime(scheduled.send_at)).waitFor();
        await facts.getByText(indiaTime(scheduled.expires_at)).waitFor();
        const cancel = page.getByRole("button", { name: "Cancel message" });
        await cancel.waitFor();
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-message-scheduled-${viewport.width}`);

        await cancel.click();
        const dialog = page.getByRole("dialog", { name: "Cancel this message?" });
        await dialog.getByText("Its ₹0.25 is refunded to the sandbox balance").waitFor();
        await saveScreenshot(page, `console-message-cancel-dialog-${viewport.width}`);
        await dialog.getByRole("button", { name: "Keep it" }).click();
        await dialog.waitFor({ state: "detached" });
      });
    }
    expect(await sandboxBalance()).toBe("99.5000");
  });

  it("cancels the scheduled message from the list, shows it cancelled and refunds it", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/messages");
      const row = page.getByRole("row").filter({ hasText: SCHEDULED_TO });
      await row.getByRole("button", { name: `Cancel the message to ${SCHEDULED_TO}` }).click();
      await page
        .getByRole("dialog", { name: "Cancel this message?" })
        .getByRole("button", { name: "Cancel message" })
        .click();
      await page
        .getByRole("status")
        .filter({ hasText: `Message to ${SCHEDULED_TO} cancelled; ₹0.25 refunded to the sandbox balance.` })
        .waitFor();
      await row.getByText("Cancelled", { exact: true }).waitFor();
      await row.getByText("refunded").waitFor();
      expect(await row.getByRole("button").count()).toBe(0);
      await saveScreenshot(page, "console-messages-cancelled-1280");

      await row.getByRole("link").click();
      await page.getByRole("heading", { level: 1, name: "Message" }).waitFor();
      const history = page.getByRole("region", { name: "Status history" });
      await history.getByText("Scheduled", { exact: true }).waitFor();
      await history.getByText("Cancelled", { exact: true }).waitFor();
      await history.getByText("Refunded ₹0.25").waitFor();
      expect(await page.getByRole("button", { name: "Cancel message" }).count()).toBe(0);

      await page.goto("/");
      const balance = page.getByRole("region", { name: "Sandbox balance" }).locator(".balance-amount");
      await expect.poll(() => balance.textContent()).toBe("₹99.75");
    });
    expect(await sandboxBalance()).toBe("99.7500");
  });

  it("shows the server's refusal when the message was cancelled elsewhere meanwhile", async () => {
    const waiting = await sendSms(CANCELLED_BY_API_TO, inAnHour());
    await withPage(PHONE, async (page) => {
      await page.goto(`/messages/${waiting.id}`);
      const cancel = page.getByRole("button", { name: "Cancel message" });
      await cancel.waitFor();
      await v2(`/sms/${waiting.id}/cancel`, {});
      await cancel.click();
      await page
        .getByRole("dialog", { name: "Cancel this message?" })
        .getByRole("button", { name: "Cancel message" })
        .click();
      await page.getByRole("alert").filter({ hasText: "already cancelled" }).waitFor();
      await page.getByRole("dialog").waitFor({ state: "detached" });
      await cancel.waitFor({ state: "detached" });
      await page.locator(".page-header").getByText("Cancelled", { exact: true }).waitFor();
      expect(await fitsWidth(page, PHONE.width)).toBe(true);
      await saveScreenshot(page, "console-message-not-cancellable-390");
    });
    expect(await sandboxBalance()).toBe("99.7500");
  });

  it("offers sms.cancelled to webhook endpoints, with what it means", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/developers/webhooks");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const dialog = page.getByRole("dialog", { name: "Add a sandbox endpoint" });
      await dialog.getByRole("checkbox", { name: /^All events/ }).uncheck();
      const option = dialog.getByRole("checkbox", { name: /^sms\.cancelled/ });
      await option.waitFor();
      await dialog.getByText("Cancelled before it went out, and refunded").waitFor();
    });
  });
});
