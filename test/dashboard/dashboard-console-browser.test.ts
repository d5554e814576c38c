/**
 * The console's rough edges, in a real Chromium against a real server, at 1280 and 390 px: the
 * first send from the sandbox inbox's empty state on a fresh install, money in one style, the
 * keys table after a rotation, refunds, the number search, the template form's one message, and
 * editing and removing a template. Each page is saved as a screenshot under test-artifacts/.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Locator, Page } from "playwright-core";
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

const run = promisify(execFile);
const UI_TIMEOUT = 10_000;
const RECIPIENT = "+919876543210";
/** The sandbox test number whose messages the carrier rejects: they fail and are refunded. */
const REJECTED = "+919999999933";
const VOICE_TO = "+919876500001";
const ORDER_TO = "+919876500002";
const TEMPLATE_ID = "1107161234567890999";
const ENTITY_ID = "1101456789012345678";

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error("element has no box");
  return found;
}

/**
 * The history's "Refunded" entry: on one line at a desktop's width; wrapped or not, its dot sits
 * on the timeline's line, level with the badge.
 */
async function expectRefundEntryAligned(page: Page, width: number): Promise<void> {
  const entry = page.locator(".timeline li").filter({ hasText: "Refunded" });
  const badge = await box(entry.locator(".badge"));
  const time = await box(entry.locator("time"));
  if (width >= DESKTOP.width)
    expect(Math.abs(time.y + time.height / 2 - (badge.y + badge.height / 2))).toBeLessThan(3);
  // The dot is placed by its centre: `top`, then moved up by half its height.
  const dotCentre = (await page.evaluate(`(() => {
    const li = [...document.querySelectorAll(".timeline li")].find((item) => item.textContent.includes("Refunded"));
    const style = getComputedStyle(li, "::before");
    const moved = style.transform === "none" ? Number.parseFloat(style.height) / 2 : 0;
    return li.getBoundingClientRect().top + Number.parseFloat(style.top) + moved;
  })()`)) as number;
  expect(Math.abs(dotCentre - (badge.y + badge.height / 2))).toBeLessThan(3);
  const timeline = await box(page.locator(".timeline"));
  expect(time.x + time.width).toBeLessThanOrEqual(timeline.x + timeline.width + 1);
}

describe.each(DIALECTS)("dashboard console in a browser on %s", (dialect) => {
  const site = useDashboardBrowser({
    uiTimeoutMs: UI_TIMEOUT,
    dialect,
    env: { WEBHOOK_ALLOW_PRIVATE: "true" },
  });
  let cookie: OwnerSession["cookie"];
  let dashboard: OwnerSession["dashboard"];
  let sandboxKey: string;

  beforeAll(async () => {
    ({ cookie, dashboard } = await setUpOwner(site.server.url));
  }, 30_000);

  /** A signed-in page in sandbox mode, at a desktop's or a phone's width. */
  async function signedInPage(viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...cookie, url: site.server.url }]);
    await context.addInitScript("window.localStorage.setItem('dakiya.environment', 'sandbox')");
    return context.newPage();
  }

  async function withPage(viewport: { width: number; height: number }, work: (page: Page) => Promise<void>) {
    const page = await signedInPage(viewport);
    try {
      await work(page);
    } finally {
      await page.context().close();
    }
  }

  function sendOtp(to: string, channel: "whatsapp" | "voice", code?: string): Promise<Response> {
    return fetch(`${site.server.url}/v2/otp/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandboxKey}`, "content-type": "application/json" },
      body: JSON.stringify({ to, channel, ...(code ? { code } : {}) }),
    });
  }

  /** Every amount of money on the page, e.g. ["₹100.00"]. */
  async function amountsShown(page: Page): Promise<string[]> {
    return (await page.locator("body").innerText()).match(/₹[\d,.]+/g) ?? [];
  }

  it("shows money to the paisa everywhere, the top-up included", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/");
      const sandboxBalance = page.getByRole("region", { name: "Sandbox balance" });
      const balance = sandboxBalance.locator(".balance-amount");
      await expect.poll(() => balance.textContent()).toBe("₹0.00");
      const checklist = page.getByRole("region", { name: "Getting started" });
      await checklist.getByText("Add test credits").waitFor();
      await page.getByRole("button", { name: "Add ₹100.00 test credits" }).click();
      await page.getByRole("status").filter({ hasText: "Added ₹100.00 of test credits." }).waitFor();
      await expect.poll(() => balance.textContent()).toBe("₹100.00");
      const amounts = await amountsShown(page);
      expect(amounts.length).toBeGreaterThan(2);
      for (const amount of amounts) expect(amount).toMatch(/^₹[\d,]+\.\d{2}$/);
      await saveScreenshot(page, "console-overview-top-up");
    });
  });

  it("gives a fresh install a first command that works as shown, with a copy button clear of it", async () => {
    sandboxKey = (
      await dashboard<{ secret: string }>("POST", "/keys", { environment: "sandbox", label: "first" })
    ).secret;

    let command = "";
    await withPage(PHONE, async (page) => {
      await page.goto("/sandbox");
      await page.getByText("Nothing delivered yet").waitFor();
      const code = page.locator(".code-block pre");
      const copy = page.getByRole("button", { name: "Copy command" });
      expect(overlaps(await box(copy), await box(code))).toBe(false);
      // The whole command is on screen: it wraps instead of running off the edge.
      expect(await code.evaluate((pre) => pre.scrollWidth <= pre.clientWidth)).toBe(true);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(page, "console-phone-inbox-empty");
    });

    await withPage(DESKTOP, async (page) => {
      await page.goto("/sandbox");
      const empty = page.locator(".empty-state");
      await empty.getByText("Nothing delivered yet").waitFor();
      for (const [link, path] of [
        ["API keys", "/developers/keys"],
        ["Overview", "/"],
        ["Templates & senders", "/templates"],
        ["OTP settings", "/otp"],
      ] as const) {
        expect(await empty.getByRole("link", { name: link, exact: true }).getAttribute("href")).toBe(path);
      }
      command = (await page.locator(".code-block pre").textContent()) ?? "";
      expect(command).toContain("dk_sandbox_…");
      await saveScreenshot(page, "console-inbox-empty");

      // The command as shown, with the key put in, run by a shell: nothing was set up but a key and credits.
      const { stdout } = await run("sh", ["-c", command.replace("dk_sandbox_…", sandboxKey)], {
        timeout: UI_TIMEOUT,
      });
      expect(JSON.parse(stdout)).toMatchObject({ status: "pending", channel: "whatsapp", to: RECIPIENT });
      await page.getByRole("row").filter({ hasText: "is your verification code" }).waitFor();
    });
  });

  it("fits the API keys table in its card after a rotation", async () => {
    await dashboard("POST", "/keys", { environment: "sandbox", label: "checkout-service" });
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/developers/keys");
        if (viewport === DESKTOP) {
          await page.getByRole("button", { name: "Rotate key checkout-service" }).click();
          const rotate = page.getByRole("dialog", { name: "Rotate key checkout-service" });
          await rotate.getByRole("radio", { name: /^24 hours/ }).check();
          await rotate.getByRole("button", { name: "Rotate key" }).click();
          await page
            .getByRole("dialog", { name: "Your rotated key" })
            .getByRole("button", { name: "Done" })
            .click();
        }
        const rows = page.getByRole("row").filter({ hasText: "checkout-service" });
        await expect.poll(() => rows.count()).toBe(2);
        await rows.filter({ hasText: /in 24 hours|tomorrow/ }).waitFor();
        const card = await box(page.locator("section.card").filter({ has: page.getByRole("table") }));
        for (const button of await page.getByRole("button", { name: /^(Rotate|Delete) key / }).all()) {
          const edges = await box(button);
          expect(edges.x).toBeGreaterThanOrEqual(card.x);
          expect(edges.x + edges.width).toBeLessThanOrEqual(card.x + card.width);
        }
        const wrap = page.locator(".table-wrap");
        expect(await wrap.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
        await saveScreenshot(page, `console-keys-rotated-${viewport.width}`);
      });
    }
  });

  it("shows a failed message's refund in the list and the detail", async () => {
    const sent = await sendOtp(REJECTED, "whatsapp");
    expect(sent.status).toBe(200);
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/messages");
        const row = page.getByRole("row").filter({ hasText: REJECTED });
        await row.getByText("refunded").waitFor();
        expect(await row.getByText("Failed").count()).toBe(1);
        await saveScreenshot(page, `console-messages-refund-${viewport.width}`);

        await row.getByRole("link").click();
        await page.getByRole("heading", { level: 1, name: "Message" }).waitFor();
        await page.getByText("Refunded ₹0.35").waitFor();
        await page.getByText("₹0.35 back to the sandbox balance").waitFor();
        await expectRefundEntryAligned(page, viewport.width);
        await saveScreenshot(page, `console-message-refund-${viewport.width}`);
      });
    }
  });

  it("searches messages by a national number or the last digits, and keeps the filters in line", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/messages");
        const number = page.getByLabel("Number");
        const search = page.getByRole("button", { name: "Search" });
        const rows = page.getByRole("row");
        await rows.filter({ hasText: REJECTED }).waitFor();

        await number.fill(RECIPIENT.slice(3));
        await search.click();
        await expect.poll(() => rows.filter({ hasText: REJECTED }).count()).toBe(0);
        await rows.filter({ hasText: RECIPIENT }).waitFor();

        await number.fill("9933");
        await search.click();
        await rows.filter({ hasText: REJECTED }).waitFor();
        expect(await rows.filter({ hasText: RECIPIENT }).count()).toBe(0);

        await number.fill("12");
        await search.click();
        const error = page.getByRole("alert").filter({ hasText: "last 4 digits or more" });
        await error.waitFor();
        expect(await page.getByText("last 4 digits or more").count()).toBe(1);
        if (viewport === DESKTOP) {
          // The error sits under the number; the controls stay on one line, the button beneath them.
          const [status, channel, input, from, until, button] = await Promise.all(
            [
              page.getByLabel("Status"),
              page.getByLabel("Channel"),
              number,
              page.getByLabel("From"),
              page.getByLabel("To", { exact: true }),
              search,
            ].map(box),
          );
          for (const control of [status, channel, from, until]) expect(control?.y).toBe(input?.y);
          const below = (input?.y ?? 0) + (input?.height ?? 0) - 1;
          expect((await box(error)).y).toBeGreaterThan(below);
          expect(button?.y).toBeGreaterThan((await box(error)).y);
          expect(button?.x).toBe(status?.x);
        }
        await saveScreenshot(page, `console-messages-filter-error-${viewport.width}`);
      });
    }
  });

  it("shows one message for a malformed placeholder and offers it as no placeholder", async () => {
    await dashboard("POST", "/senders", { sender: "DAKIYA" });
    await withPage(DESKTOP, async (page) => {
      await page.goto("/templates");
      await page.getByRole("button", { name: "Add template" }).click();
      const form = page.getByRole("form", { name: "Add a DLT template" });
      await form.getByLabel("Template id").fill(TEMPLATE_ID);
      await form.getByLabel("Entity id").fill(ENTITY_ID);
      await form.getByLabel("Name").fill("otp");
      await form.getByRole("checkbox", { name: "DAKIYA" }).check();
      await form.getByLabel("Content").fill("Your Dakiya code is {#otp #}. Do not share it.");
      const problem = form.getByText("invalid placeholder name");
      await problem.waitFor();
      expect(await form.getByText("Placeholders: none").count()).toBe(1);
      await form.getByRole("button", { name: "Add template" }).click();
      await expect.poll(() => problem.count()).toBe(1);
      expect(await form.getByRole("alert").count()).toBe(1);
      await saveScreenshot(page, "console-template-invalid");

      await form.getByLabel("Content").fill("Your Dakiya code is {#otp#}. Do not share it.");
      await problem.waitFor({ state: "detached" });
      await form.getByRole("button", { name: "Add template" }).click();
      await page.getByText("Template otp added.").waitFor();
    });
  });

  it("edits a template's name, senders and content, and removes it after a confirmation", async () => {
    await dashboard("POST", "/senders", { sender: "DKYOTP" });
    await withPage(PHONE, async (page) => {
      await page.goto("/templates");
      await page.getByRole("button", { name: "Edit template otp" }).click();
      await page.getByRole("dialog", { name: "Edit template otp" }).getByLabel("Name").waitFor();
      await saveScreenshot(page, "console-phone-template-edit");
    });
    await withPage(DESKTOP, async (page) => {
      await page.goto("/templates");
      await page.getByRole("button", { name: "Edit template otp" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit template otp" });
      expect(await dialog.getByLabel("Template id").isDisabled()).toBe(true);
      await dialog.getByLabel("Name").fill("passcode");
      await dialog.getByRole("checkbox", { name: "DKYOTP" }).check();
      await dialog.getByLabel("Content").fill("Your Dakiya passcode is {#otp#}.");
      await saveScreenshot(page, "console-template-edit");
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await page.getByText("Template passcode saved.").waitFor();
      const row = page.getByRole("row").filter({ hasText: TEMPLATE_ID });
      await row.getByText("Your Dakiya passcode is").waitFor();
      // Headers as handsets show them, with the suffix of a transactional template.
      await row
        .getByRole("listitem")
        .filter({ hasText: /^DAKIYA-T$/ })
        .waitFor();
      await row
        .getByRole("listitem")
        .filter({ hasText: /^DKYOTP-T$/ })
        .waitFor();

      await page.getByRole("button", { name: "Remove template passcode" }).click();
      const confirm = page.getByRole("dialog", { name: "Remove template passcode?" });
      await confirm.getByText("will be refused from then on").waitFor();
      await saveScreenshot(page, "console-template-remove");
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await confirm.waitFor({ state: "detached" });
      expect((await dashboard<{ data: unknown[] }>("GET", "/templates")).data).toHaveLength(1);

      await page.getByRole("button", { name: "Remove template passcode" }).click();
      await confirm.getByRole("button", { name: "Remove template" }).click();
      await page.getByText("Template passcode removed.").waitFor();
      await row.waitFor({ state: "detached" });
      expect((await dashboard<{ data: unknown[] }>("GET", "/templates")).data).toEqual([]);
    });
  });

  it("marks an OTP's code in the sandbox inbox, not an order number, and shows a voice call's code", async () => {
    const { db } = site.server.ctx;
    const voice = await sendOtp(VOICE_TO, "voice", "482913");
    expect(voice.status).toBe(200);
    // A message that is no OTP's but carries a 6-digit number, as an order update would.
    const otpInbox = await db
      .selectFrom("sandbox_messages")
      .selectAll()
      .where("channel", "=", "whatsapp")
      .executeTakeFirstOrThrow();
    const message = await db
      .selectFrom("messages")
      .selectAll()
      .where("id", "=", otpInbox.message_id)
      .executeTakeFirstOrThrow();
    await db
      .insertInto("messages")
      .values({ ...message, id: "msg_order_update" })
      .execute();
    await db
      .insertInto("sandbox_messages")
      .values({
        ...otpInbox,
        id: "sbx_order_update",
        message_id: "msg_order_update",
        recipient: ORDER_TO,
        text: "Your order 774411 has shipped. Track it with code 2024.",
        created_at: new Date().toISOString(),
      })
      .execute();

    type Inbox = { data: Array<{ to: string; channel: string; otp_code: string | null }> };
    const inbox = () => dashboard<Inbox>("GET", "/sandbox/messages");
    // The worker delivers the call within a moment.
    await expect
      .poll(async () => (await inbox()).data.find((item) => item.channel === "voice")?.otp_code, {
        timeout: UI_TIMEOUT,
      })
      .toBe("482913");
    const { data } = await inbox();
    expect(data.find((item) => item.to === ORDER_TO)?.otp_code).toBeNull();
    expect(data.find((item) => item.channel === "whatsapp" && item.to === RECIPIENT)?.otp_code).toMatch(
      /^\d{6}$/,
    );

    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/sandbox");
        const rows = page.getByRole("row");
        const order = rows.filter({ hasText: ORDER_TO });
        await order.getByText("Your order 774411 has shipped").waitFor();
        expect(await order.locator("mark").count()).toBe(0);
        const call = rows.filter({ hasText: VOICE_TO });
        await call.getByText("Your verification code is 4, 8, 2, 9, 1, 3.", { exact: false }).waitFor();
        expect(await call.locator("mark").allTextContents()).toEqual(["482913"]);
        await call.getByText("Code 482913").waitFor();
        const whatsapp = rows.filter({ hasText: "is your verification code" }).filter({ hasText: RECIPIENT });
        const marks = await whatsapp.locator("mark").allTextContents();
        expect(marks).toHaveLength(1);
        expect(await whatsapp.locator(".inbox-text").textContent()).toMatch(
          new RegExp(`^${marks[0]} is your`),
        );
        expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
          viewport.width,
        );
        await saveScreenshot(page, `console-inbox-codes-${viewport.width}`);
      });
    }
  });

  it("shows a failing endpoint as failing, pages its attempts and takes the replay time in India's time", async () => {
    const { db } = site.server.ctx;
    const endpoint = await dashboard<{ id: string }>("POST", "/webhooks?environment=sandbox", {
      url: "http://127.0.0.1:9/hooks/down",
    });
    const failingSince = "2026-11-27T03:30:00.000Z";
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: failingSince })
      .where("id", "=", endpoint.id)
      .execute();
    const start = Date.parse("2026-11-28T00:00:00.000Z");
    await db
      .insertInto("webhook_attempts")
      .values(
        Array.from({ length: 57 }, (_, index) => ({
          id: `wha_${String(index).padStart(3, "0")}`,
          endpoint_id: endpoint.id,
          event_id: `evt_${String(index).padStart(3, "0")}`,
          event_type: "sms.delivered",
          attempt: 1,
          status_code: 503,
          error: "HTTP 503",
          duration_ms: 12,
          created_at: new Date(start + index * 60_000).toISOString(),
        })),
      )
      .execute();

    const first = await dashboard<{ data: Array<{ id: string }>; has_more: boolean }>(
      "GET",
      `/webhooks/${endpoint.id}/attempts?environment=sandbox&limit=50`,
    );
    expect(first.data.map((attempt) => attempt.id).slice(0, 2)).toEqual(["wha_056", "wha_055"]);
    expect(first.has_more).toBe(true);
    const second = await dashboard<{ data: Array<{ id: string }>; has_more: boolean }>(
      "GET",
      `/webhooks/${endpoint.id}/attempts?environment=sandbox&limit=50&before=wha_007`,
    );
    expect(second.data.map((attempt) => attempt.id)).toEqual([
      "wha_006",
      "wha_005",
      "wha_004",
      "wha_003",
      "wha_002",
      "wha_001",
      "wha_000",
    ]);
    expect(second.has_more).toBe(false);
    await expect(
      dashboard("GET", `/webhooks/${endpoint.id}/attempts?environment=sandbox&before=wha_nope`),
    ).rejects.toThrow(/400.*before/);

    for (const viewport of [DESKTOP, PHONE]) {
      await withPage(viewport, async (page) => {
        await page.goto("/developers/webhooks");
        const row = page.getByRole("row").filter({ hasText: "/hooks/down" });
        await row.getByText("Failing", { exact: true }).waitFor();
        await row.getByText("since 27 Nov, 09:00 IST").waitFor();
        expect(await row.getByText("Enabled").count()).toBe(0);
        await saveScreenshot(page, `console-webhooks-failing-${viewport.width}`);

        await row.getByRole("link").click();
        await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
        // In the header and under Status, once the endpoint has loaded.
        await expect.poll(() => page.getByText("Failing", { exact: true }).count()).toBe(2);
        const attempts = page.getByRole("table", { name: "Delivery attempts" });
        await expect.poll(() => attempts.getByRole("row").count()).toBe(51);
        const pager = page.getByRole("navigation", { name: "Attempt pages" });
        expect(await pager.getByRole("button", { name: "← Newer" }).isDisabled()).toBe(true);
        await pager.getByRole("button", { name: "Older →" }).click();
        await page.getByRole("heading", { name: "Older attempts" }).waitFor();
        await attempts.getByText("evt_000").waitFor();
        // The 7 oldest, and on the second pass the attempts the first pass's replay made since.
        expect(await attempts.getByRole("row").count()).toBeGreaterThanOrEqual(8);
        expect(await attempts.getByText("evt_056").count()).toBe(0);
        expect(await pager.getByRole("button", { name: "Older →" }).isDisabled()).toBe(true);
        await saveScreenshot(page, `console-webhook-attempts-older-${viewport.width}`);
        await pager.getByRole("button", { name: "← Newer" }).click();
        await page.getByRole("heading", { name: "Recent attempts" }).waitFor();
        await attempts.getByText("evt_056").waitFor();

        const since = page.getByLabel("Since (India time, IST)");
        await since.fill("11/29/2026 02:30 PM");
        await page.getByText("Year-month-day and 24-hour time").waitFor();
        await page.getByRole("button", { name: "Replay events" }).click();
        await page.getByText("Type the India time to replay from as year-month-day").waitFor();
        await since.fill("2026-11-28 05:30");
        await page.getByText("From 28 Nov, 05:30 IST.").waitFor();
        await saveScreenshot(page, `console-webhook-failing-${viewport.width}`);
        await page.getByRole("button", { name: "Replay events" }).click();
        await page.getByText("since 28 Nov, 05:30 IST").waitFor();
      });
    }
  });
});
