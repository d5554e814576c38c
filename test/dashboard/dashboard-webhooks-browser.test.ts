/**
 * Developers → Webhooks in a real Chromium against a real server whose worker delivers to a
 * real HTTP receiver on loopback: the receiver checks every delivery with the `standardwebhooks`
 * library, as a customer's backend would. Pages are saved as screenshots under test-artifacts/.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import { createKey } from "../../src/keys/keys.js";
import { DESKTOP, PHONE, saveScreenshot, useDashboardBrowser } from "../helpers/browser.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

const OWNER_EMAIL = "webhooks-owner@example.com";
const TEMPLATE_ID = "1107161234567890123";
/** How long the UI may take to show what the server did (attempts refresh every 3 seconds). */
const UI_TIMEOUT = 15_000;
/** The browser's time zone, so the test can type a local time into the replay form. */
const TIME_ZONE = "Asia/Kolkata";
const IST_OFFSET_MS = 5.5 * 3_600_000;

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

interface Receiver {
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** A customer's webhook receiver: records each POST and answers 200. */
async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      deliveries.push({
        headers: flatHeaders(request.headers),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/dakiya`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

interface WebhookEvent {
  id: string;
  type: string;
  environment: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** The event of a delivery, verified as a customer would; throws if the signature does not match. */
function verified(delivery: Delivery, secret: string): WebhookEvent {
  return new Webhook(secret).verify(delivery.body, delivery.headers) as WebhookEvent;
}

/** `datetime-local` text for an instant, in the browser's time zone (India has no daylight saving). */
function indianLocalTime(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 16);
}

describe("webhooks page in a browser", () => {
  const site = useDashboardBrowser({
    env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "1,1,1" },
    uiTimeoutMs: UI_TIMEOUT,
  });
  let receiver: Receiver;
  let owner: BrowserContext;
  let page: Page;
  /** Filled in as the walk-through goes. */
  let endpointPath = "";
  let endpointId = "";
  let secret = "";
  let createdAtMs = 0;
  let sendingKey = "";

  beforeAll(async () => {
    receiver = await startReceiver();
    const account = await createAccount(site.server.ctx, {
      email: OWNER_EMAIL,
      password: TEST_PASSWORD,
    });
    // What a sandbox send needs, so that real message events reach the endpoint.
    await registerDlt(site.server.ctx, account.id, {
      templates: [{ templateId: TEMPLATE_ID, content: "Your order {#var#} has shipped." }],
    });
    sendingKey = (
      await createKey(site.server.ctx, { accountId: account.id, environment: "sandbox" }, CLI_ORIGIN)
    ).secret;
    await changeBalance(site.server.ctx, {
      accountId: account.id,
      environment: "sandbox",
      amount: 1_000_000,
      reason: "credits_added",
      reference: null,
    });
  }, 30_000);

  afterAll(async () => {
    await owner?.close();
    await receiver?.close();
  });

  function navLink(target: Page, name: string) {
    return target.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
  }

  /** Sends a sandbox SMS through the public API; the server's worker delivers it by itself. */
  async function sendSms(): Promise<{ id: string }> {
    const sent = await fetch(`${site.server.url}/v2/sms/send`, {
      method: "POST",
      headers: { authorization: `Bearer ${sendingKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: TEMPLATE_ID,
        variables: { var1: "A-77" },
      }),
    });
    expect(sent.status).toBe(202);
    return (await sent.json()) as { id: string };
  }

  /** The deliveries that reached the receiver for one event type. */
  function deliveriesOf(type: string): Delivery[] {
    return receiver.deliveries.filter((delivery) => JSON.parse(delivery.body).type === type);
  }

  it("signs in, opens Developers → Webhooks and switches to sandbox", async () => {
    owner = await site.newContext({ viewport: DESKTOP, timezoneId: TIME_ZONE });
    page = await owner.newPage();
    await page.goto("/developers/webhooks");
    await page.getByLabel("Email").fill(OWNER_EMAIL);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByText("No live endpoints").waitFor();

    await page.getByRole("switch", { name: "Sandbox mode" }).click();
    await page.getByText("No sandbox endpoints").waitFor();
    expect(await navLink(page, "Webhooks").getAttribute("aria-current")).toBe("page");
    await saveScreenshot(page, "webhooks-empty");
  });

  it("adds an endpoint for the chosen events and shows its secret, with a copy button", async () => {
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a sandbox endpoint" });
    await dialog.getByLabel("Endpoint URL").fill(receiver.url);
    await dialog.getByLabel("Description (optional)").fill("order service");

    // "All events" is the default; without it and without any type, the form asks for a choice.
    const all = dialog.getByRole("checkbox", { name: /^All events/ });
    expect(await all.isChecked()).toBe(true);
    expect(await dialog.getByRole("checkbox", { name: /^sms\.delivered/ }).count()).toBe(0);
    await all.uncheck();
    await dialog.getByRole("button", { name: "Add endpoint" }).click();
    await dialog.getByRole("alert").filter({ hasText: "Choose the events to send" }).waitFor();
    for (const type of ["sms.delivered", "sms.failed", "otp.verified"]) {
      await dialog.getByRole("checkbox", { name: new RegExp(`^${type.replace(".", "\\.")}`) }).check();
    }
    await saveScreenshot(page, "webhooks-add");
    createdAtMs = Date.now();
    await dialog.getByRole("button", { name: "Add endpoint" }).click();

    await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
    await page.getByText("Endpoint added.").waitFor();
    endpointPath = new URL(page.url()).pathname;
    endpointId = decodeURIComponent(endpointPath.split("/").at(-1) ?? "");
    expect(endpointId).toMatch(/^whk_/);
    secret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);

    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);

    const endpoint = page.getByRole("region", { name: "Endpoint", exact: true });
    await endpoint.getByText(receiver.url).waitFor();
    await endpoint.getByText("order service").waitFor();
    for (const type of ["sms.delivered", "sms.failed", "otp.verified"]) {
      await endpoint.getByText(type, { exact: true }).waitFor();
    }
    expect(await endpoint.getByText("sms.submitted", { exact: true }).count()).toBe(0);
    await page.getByRole("region", { name: "Recent attempts" }).getByText("No attempts yet").waitFor();
    await saveScreenshot(page, "webhooks-created");
  });

  it("keeps the secret out of the page until asked, then reveals the same one", async () => {
    await page.getByRole("button", { name: "Hide" }).click();
    await page.reload();
    await page.getByRole("button", { name: "Reveal secret" }).waitFor();
    expect(await page.locator("body").innerText()).not.toContain(secret.slice(6));
    expect(await page.getByRole("textbox", { name: "Signing secret" }).count()).toBe(0);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    expect(await page.getByRole("textbox", { name: "Signing secret" }).inputValue()).toBe(secret);

    // The list shows the endpoint with its events, linking to this page.
    await navLink(page, "Webhooks").click();
    const row = page.getByRole("row").filter({ hasText: receiver.url });
    await row.getByText("Enabled").waitFor();
    await row.getByText("otp.verified").waitFor();
    await saveScreenshot(page, "webhooks-list");
    await row.getByRole("link", { name: receiver.url }).click();
    await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(endpointPath);
  });

  it("sends a test event that the receiver verifies, and lists the attempt with its 200", async () => {
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText("Test event sent").waitFor();
    await expect.poll(() => deliveriesOf("webhook.test").length, { timeout: UI_TIMEOUT }).toBe(1);
    const [delivery] = deliveriesOf("webhook.test");
    if (!delivery) throw new Error("no test delivery");
    const event = verified(delivery, secret);
    expect(event).toMatchObject({
      type: "webhook.test",
      environment: "sandbox",
      data: { webhook_id: endpointId },
    });
    expect(delivery.headers["webhook-id"]).toBe(event.id);
    expect(() => verified(delivery, `whsec_${Buffer.alloc(32, 1).toString("base64")}`)).toThrow();

    const attempts = page.getByRole("table", { name: "Delivery attempts" });
    const row = attempts.getByRole("row").filter({ hasText: "webhook.test" });
    await row.getByText("200", { exact: true }).waitFor();
    await row.getByText(event.id).waitFor();
    await row.getByText("#1").waitFor();
    expect(await row.textContent()).toMatch(/\d+ ms/);
    await saveScreenshot(page, "webhooks-attempts");
  });

  it("delivers the subscribed events of a sandbox message, and no others", async () => {
    const message = await sendSms();
    await expect.poll(() => deliveriesOf("sms.delivered").length, { timeout: UI_TIMEOUT }).toBe(1);
    const [delivery] = deliveriesOf("sms.delivered");
    if (!delivery) throw new Error("no sms.delivered delivery");
    expect(verified(delivery, secret)).toMatchObject({
      type: "sms.delivered",
      environment: "sandbox",
      data: { id: message.id, status: "delivered" },
    });
    // The message was submitted before it was delivered, but the endpoint did not ask for that.
    expect(deliveriesOf("sms.submitted")).toEqual([]);
    const row = page
      .getByRole("table", { name: "Delivery attempts" })
      .getByRole("row")
      .filter({ hasText: "sms.delivered" });
    await row.getByText("200", { exact: true }).waitFor();
  });

  it("disables and enables the endpoint", async () => {
    const endpoint = page.getByRole("region", { name: "Endpoint", exact: true });
    await page.getByRole("button", { name: "Disable", exact: true }).click();
    await page.getByText("Endpoint disabled").waitFor();
    await endpoint.getByText("Disabled", { exact: true }).waitFor();
    await page.reload();
    await page
      .getByRole("region", { name: "Endpoint", exact: true })
      .getByText("Disabled", { exact: true })
      .waitFor();
    await saveScreenshot(page, "webhooks-disabled");

    await page.getByRole("button", { name: "Enable", exact: true }).click();
    await page.getByText("Endpoint enabled").waitFor();
    await page
      .getByRole("region", { name: "Endpoint", exact: true })
      .getByText("Enabled", { exact: true })
      .waitFor();
    await page.getByRole("button", { name: "Disable", exact: true }).waitFor();
  });

  it("rotates the secret after a confirmation; deliveries verify under the new and the old one", async () => {
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await dialog.getByText("The old one stays valid for 24 hours").waitFor();
    await saveScreenshot(page, "webhooks-rotate");
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByText("Secret rotated. The old secret stays valid for 24 hours").waitFor();
    const rotated = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);

    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => deliveriesOf("webhook.test").length, { timeout: UI_TIMEOUT }).toBe(2);
    const delivery = deliveriesOf("webhook.test")[1];
    if (!delivery) throw new Error("no second test delivery");
    expect(delivery.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verified(delivery, rotated).type).toBe("webhook.test");
    expect(verified(delivery, secret).type).toBe("webhook.test");
    await page
      .getByRole("table", { name: "Delivery attempts" })
      .getByRole("row")
      .filter({ hasText: "webhook.test" })
      .nth(1)
      .waitFor();
    secret = rotated;
  });

  it("replays the events since a time, with their original webhook-id", async () => {
    const [original] = deliveriesOf("sms.delivered");
    if (!original) throw new Error("no sms.delivered delivery to replay");
    const before = receiver.deliveries.length;
    await page.getByLabel("Since").fill(indianLocalTime(createdAtMs - 60_000));
    await page.getByRole("button", { name: "Replay events" }).click();
    // Test events are not replayed, and sms.submitted is not subscribed to: one event goes again.
    await page.getByText("Replaying 1 event since").waitFor();
    await expect.poll(() => deliveriesOf("sms.delivered").length, { timeout: UI_TIMEOUT }).toBe(2);
    const again = deliveriesOf("sms.delivered")[1];
    if (!again) throw new Error("no replayed delivery");
    expect(again.headers["webhook-id"]).toBe(original.headers["webhook-id"]);
    expect(again.body).toBe(original.body);
    expect(verified(again, secret).type).toBe("sms.delivered");
    expect(receiver.deliveries.slice(before)).toEqual([again]);
    const attempts = page.getByRole("table", { name: "Delivery attempts" });
    await expect
      .poll(() => attempts.getByRole("row").filter({ hasText: "sms.delivered" }).count(), {
        timeout: UI_TIMEOUT,
      })
      .toBe(2);
    await saveScreenshot(page, "webhooks-replayed");
  });

  it("edits the endpoint, showing a refused URL next to its field", async () => {
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Edit endpoint" });
    expect(await dialog.getByLabel("Endpoint URL").inputValue()).toBe(receiver.url);
    expect(await dialog.getByRole("checkbox", { name: /^otp\.verified/ }).isChecked()).toBe(true);
    await dialog.getByLabel("Endpoint URL").fill("ftp://127.0.0.1/hooks");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.getByRole("alert").filter({ hasText: "http:// or https://" }).waitFor();
    expect(await dialog.getByLabel("Endpoint URL").getAttribute("aria-invalid")).toBe("true");
    await saveScreenshot(page, "webhooks-edit-error");

    await dialog.getByLabel("Endpoint URL").fill(receiver.url);
    await dialog.getByLabel("Description (optional)").fill("orders and refunds");
    await dialog.getByRole("checkbox", { name: /^sms\.failed/ }).uncheck();
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Endpoint saved.").waitFor();
    const endpoint = page.getByRole("region", { name: "Endpoint", exact: true });
    await endpoint.getByText("orders and refunds").waitFor();
    expect(await endpoint.getByText("sms.failed", { exact: true }).count()).toBe(0);
    await endpoint.getByText("sms.delivered", { exact: true }).waitFor();
  });

  it("fits a phone: the list and the endpoint page stay within the screen", async () => {
    const phone = await site.newContext({
      viewport: PHONE,
      timezoneId: TIME_ZONE,
      storageState: await owner.storageState(),
    });
    try {
      const phonePage = await phone.newPage();
      await phonePage.goto("/developers/webhooks");
      await phonePage.getByRole("link", { name: receiver.url }).waitFor();
      expect(await phonePage.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(phonePage, "phone-webhooks-list");

      await phonePage.goto(endpointPath);
      await phonePage.getByRole("table", { name: "Delivery attempts" }).getByText("200").first().waitFor();
      await phonePage.getByRole("button", { name: "Reveal secret" }).click();
      expect(await phonePage.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(phonePage, "phone-webhooks-endpoint");

      await phonePage.goto("/developers/webhooks");
      await phonePage.getByRole("button", { name: "Add endpoint" }).click();
      await phonePage.getByRole("dialog", { name: "Add a sandbox endpoint" }).waitFor();
      await saveScreenshot(phonePage, "phone-webhooks-add");
    } finally {
      await phone.close();
    }
  });

  it("deletes the endpoint after a confirmation; nothing more reaches the receiver", async () => {
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this endpoint?" });
    await dialog.getByText("This cannot be undone").waitFor();
    await saveScreenshot(page, "webhooks-delete");
    await dialog.getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByText(`Endpoint ${receiver.url} deleted.`).waitFor();
    await page.getByText("No sandbox endpoints").waitFor();

    await page.goto(endpointPath);
    await page.getByText("No sandbox endpoint with this id").waitFor();

    // A message delivered now has its events relayed to no endpoint: the receiver hears nothing.
    const before = receiver.deliveries.length;
    const message = await sendSms();
    const relayed = () =>
      site.server.ctx.db
        .selectFrom("events")
        .select("id")
        .where("type", "=", "sms.delivered")
        .where("data", "like", `%${message.id}%`)
        .where("fanned_out_at", "is not", null)
        .execute();
    await expect.poll(async () => (await relayed()).length, { timeout: UI_TIMEOUT }).toBe(1);
    expect(await site.server.ctx.db.selectFrom("webhook_deliveries").select("id").execute()).toEqual([]);
    expect(receiver.deliveries.length).toBe(before);
  });
});
