/**
 * An operator's DLT rejection in the console, in a real Chromium against a real server on each
 * database, at 1280 and 390 px: a live SMS that a loopback SMSC refuses with a status the route's
 * error_map names shows as failed and refunded, with the named error and the SMSC's own code on
 * a small "Carrier code" line (docs/dlt-compliance.md).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
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
import { writeRoutesFile } from "../helpers/smpp-routes.js";
import { startTestSmsc, type TestSmsc } from "../helpers/smsc.js";

const UI_TIMEOUT = 10_000;
const TO = "+919876543210";
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const TEMPLATE_MISMATCH = 0x0000045a;

/** Whether the page is no wider than the window (nothing runs off a phone's screen). */
async function fitsWidth(page: Page, width: number): Promise<boolean> {
  return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
}

describe.each(DIALECTS)("an operator's rejection in the console on %s", (dialect) => {
  let smsc: TestSmsc | undefined;
  let removeFile: (() => void) | undefined;
  // Filled in before the server starts (the hooks run in order).
  const env: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    smsc = await startTestSmsc({ answer: () => TEMPLATE_MISMATCH });
    const file = writeRoutesFile([
      { name: "primary", url: smsc.url, error_map: { "0x0000045A": "dlt_template_mismatch" } },
    ]);
    removeFile = file.remove;
    env.SMPP_ROUTES = file.path;
  });
  afterAll(async () => {
    await smsc?.stop();
    removeFile?.();
  });

  // Inside, so the SMSC and the routes file are ready before the server starts.
  describe("the message detail", () => {
    const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect, env });

    let cookie: OwnerSession["cookie"];
    let messageId: string;

    beforeAll(async () => {
      const owner = await setUpOwner(site.server.url);
      cookie = owner.cookie;
      const { dashboard } = owner;
      const { ctx } = site.server;
      const account = await ctx.db.selectFrom("accounts").select("id").executeTakeFirstOrThrow();
      await changeBalance(ctx, {
        accountId: account.id,
        environment: "live",
        amount: 1_000_000,
        reason: "credits_added",
        reference: null,
      });
      await dashboard("POST", "/senders", { sender: "DAKIYA" });
      await dashboard("POST", "/templates", {
        template_id: TEMPLATE_ID,
        entity_id: ENTITY_ID,
        name: "order",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Your order {#var#} is on its way.",
      });
      const liveKey = (await dashboard<{ secret: string }>("POST", "/keys", { environment: "live" })).secret;
      const response = await fetch(`${site.server.url}/v2/sms/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          to: TO,
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { var1: "4821" },
        }),
      });
      expect(response.status).toBe(202);
      messageId = ((await response.json()) as { id: string }).id;
      await waitFor(async () => {
        const message = await dashboard<{ status: string }>("GET", `/messages/${messageId}?environment=live`);
        return message.status === "failed";
      }, UI_TIMEOUT);
    }, 30_000);

    it("shows the named rejection, the refund and the carrier code on the message detail", async () => {
      for (const viewport of [DESKTOP, PHONE]) {
        const context = await site.newContext({ viewport });
        await context.addCookies([{ ...cookie, url: site.server.url }]);
        await context.addInitScript("window.localStorage.setItem('dakiya.environment', 'live')");
        try {
          const page = await context.newPage();
          await page.goto(`/messages/${messageId}`);
          await page.getByRole("heading", { level: 1, name: "Message" }).waitFor();
          const error = page.getByRole("region", { name: "Error" });
          await error.getByText("dlt_template_mismatch", { exact: true }).waitFor();
          await error.getByText(/does not match the registered DLT template/).waitFor();
          const carrierCode = error.locator(".carrier-code");
          expect((await carrierCode.textContent())?.replace(/\s+/g, " ").trim()).toBe(
            "Carrier code submit_sm_resp 0x0000045A",
          );
          await page
            .getByRole("region", { name: "Status history" })
            .getByText(/^Refunded ₹/)
            .waitFor();
          expect(await fitsWidth(page, viewport.width)).toBe(true);
          await saveScreenshot(page, `console-message-rejected-${dialect}-${viewport.width}`);
        } finally {
          await context.close();
        }
      }
    });
  });
});
