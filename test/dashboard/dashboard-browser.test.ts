/**
 * The dashboard in a real Chromium against a real server: first-account set-up, sign-in, keys,
 * templates and senders, OTP settings, the sandbox inbox and the phone layout, driven the way a
 * person would, by role and label. Each page is saved as a screenshot under test-artifacts/.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { DESKTOP, PHONE, saveScreenshot, useDashboardBrowser } from "../helpers/browser.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

const OWNER_EMAIL = "owner@example.com";
const OTP_TEMPLATE_ID = "1107161234567890999";
const LOGIN_TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const RECIPIENT = "+919876543210";
/** How long the UI may take to show what the server did (the inbox refreshes every 2 seconds). */
const UI_TIMEOUT = 10_000;

describe("dashboard in a browser", () => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT });
  /** The owner's signed-in browser, shared by the steps of the walk-through below. */
  let owner: BrowserContext;
  let page: Page;
  /** A sandbox key made in the UI, used to send the OTP. */
  let sendingKey: string;

  afterAll(async () => {
    await owner?.close();
  });

  async function newPage(viewport: { width: number; height: number } = DESKTOP) {
    const context = await site.newContext({ viewport });
    return { context, page: await context.newPage() };
  }

  /** A link of the sidebar (other links on a page may share its words). */
  function navLink(target: Page, name: string) {
    return target.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
  }

  function api(path: string, secret: string, body?: unknown): Promise<Response> {
    return fetch(`${site.server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
  }

  it("asks an empty installation for its first account, which is then signed in", async () => {
    const { context, page } = await newPage();
    await page.goto("/");
    await expect.poll(() => new URL(page.url()).pathname).toBe("/setup");
    await page.getByRole("heading", { level: 1, name: "Create the first account" }).waitFor();
    await page.getByText("owns it").waitFor();
    await saveScreenshot(page, "setup");

    await page.getByLabel("Email").fill(OWNER_EMAIL);
    await page.getByLabel("Password").fill("too short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("alert").filter({ hasText: "at least 10 characters" }).waitFor();
    await saveScreenshot(page, "setup-error");

    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await page.getByText(OWNER_EMAIL).waitFor();
    expect((await context.cookies()).map((cookie) => cookie.name)).toContain("dakiya_session");

    // Once an account exists, set-up is over: the page sends a signed-out visitor to sign-in.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Dakiya" }).waitFor();
    await page.goto("/setup");
    await expect.poll(() => new URL(page.url()).pathname).toBe("/signin");
    await context.close();
  });

  it("shows a wrong password on the form and opens no session", async () => {
    const { context, page } = await newPage();
    await page.goto("/developers/keys");
    await expect.poll(() => new URL(page.url()).pathname).toBe("/signin");
    await page.getByLabel("Email").fill(OWNER_EMAIL);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "The email or password is not right." }).waitFor();
    await saveScreenshot(page, "signin-error");
    expect(await context.cookies()).toEqual([]);
    expect(new URL(page.url()).pathname).toBe("/signin");
    await context.close();
  });

  it("signs in, switches to sandbox and adds test credits", async () => {
    ({ context: owner, page } = await newPage());
    await page.goto("/developers/keys");
    await page.getByLabel("Email").fill(OWNER_EMAIL);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back where the visitor was headed before sign-in.
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await navLink(page, "Overview").click();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await saveScreenshot(page, "overview-live");

    const sandboxSwitch = page.getByRole("switch", { name: "Sandbox mode" });
    expect(await sandboxSwitch.getAttribute("aria-checked")).toBe("false");
    await sandboxSwitch.click();
    expect(await sandboxSwitch.getAttribute("aria-checked")).toBe("true");
    await page.getByText("nothing leaves this machine; test data only").waitFor();

    const sandboxBalance = page.getByRole("region", { name: "Sandbox balance" });
    await sandboxBalance.getByText("₹0.00").waitFor();
    await page.getByRole("button", { name: "Add ₹100.00 test credits" }).click();
    await sandboxBalance.getByText("₹100.00", { exact: true }).waitFor();

    // The choice survives a reload.
    await page.reload();
    await page.getByText("nothing leaves this machine; test data only").waitFor();
    await sandboxBalance.getByText("₹100.00", { exact: true }).waitFor();
    await page.getByRole("region", { name: "Getting started" }).waitFor();
    await saveScreenshot(page, "overview-sandbox-new");
  });

  it("creates a sandbox key, shows its secret once, and deletes it", async () => {
    await navLink(page, "API keys").click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.getByText("Create a key to call the API").waitFor();
    await saveScreenshot(page, "keys-empty");

    await page.getByRole("button", { name: "Create key" }).click();
    const createDialog = page.getByRole("dialog", { name: "Create an API key" });
    expect(await createDialog.getByRole("radio", { name: /Sandbox/ }).isChecked()).toBe(true);
    await createDialog.getByLabel("Label (optional)").fill("browser test");
    await createDialog.getByRole("button", { name: "Create key" }).click();

    const secretDialog = page.getByRole("dialog", { name: "Your new sandbox key" });
    await secretDialog.getByText("Copy this key now. It will not be shown again.").waitFor();
    const secret = await secretDialog.getByLabel("Secret key").inputValue();
    expect(secret).toMatch(/^dk_sandbox_[0-9A-Za-z]{32,}$/);
    await secretDialog.getByRole("button", { name: "Copy" }).click();
    await secretDialog.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
    await saveScreenshot(page, "keys-secret");

    const balance = await api("/v2/balance", secret);
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({ environment: "sandbox", balance: "100.0000" });

    await secretDialog.getByRole("button", { name: "Done" }).click();
    await secretDialog.waitFor({ state: "detached" });
    const prefix = secret.slice(0, 12);
    await page.getByRole("cell", { name: `${prefix}…` }).waitFor();
    await page.reload();
    await page.getByRole("cell", { name: `${prefix}…` }).waitFor();
    await page.getByRole("cell", { name: "browser test", exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator("body").innerText()).not.toContain(secret.slice(12));
    await saveScreenshot(page, "keys");

    await page.getByRole("button", { name: "Delete key browser test" }).click();
    const deleteDialog = page.getByRole("dialog", { name: "Delete key browser test?" });
    await deleteDialog.getByText("Requests with this key will fail at once").waitFor();
    await saveScreenshot(page, "keys-delete");
    await deleteDialog.getByRole("button", { name: "Delete key" }).click();
    await page.getByText("Key browser test deleted.").waitFor();
    await page.getByRole("cell", { name: "browser test", exact: true }).waitFor({ state: "detached" });
    expect((await api("/v2/balance", secret)).status).toBe(401);
  });

  it("rotates a key with a grace period: both work, and the new secret is shown once", async () => {
    await page.getByRole("button", { name: "Create key" }).click();
    const createDialog = page.getByRole("dialog", { name: "Create an API key" });
    await createDialog.getByLabel("Label (optional)").fill("checkout");
    await createDialog.getByRole("button", { name: "Create key" }).click();
    const first = await page.getByRole("dialog").getByLabel("Secret key").inputValue();
    await page.getByRole("dialog").getByRole("button", { name: "Done" }).click();

    await page.getByRole("button", { name: "Rotate key checkout" }).click();
    const rotateDialog = page.getByRole("dialog", { name: "Rotate key checkout" });
    for (const option of ["Immediately", "1 hour", "24 hours", "7 days"]) {
      await rotateDialog.getByRole("radio", { name: new RegExp(`^${option}`) }).waitFor();
    }
    await rotateDialog.getByRole("radio", { name: /^1 hour/ }).check();
    await rotateDialog.getByRole("button", { name: "Rotate key" }).click();
    const secretDialog = page.getByRole("dialog", { name: "Your rotated key" });
    sendingKey = await secretDialog.getByLabel("Secret key").inputValue();
    expect(sendingKey).toMatch(/^dk_sandbox_/);
    expect(sendingKey).not.toBe(first);
    await secretDialog.getByRole("button", { name: "Done" }).click();

    // Both are listed, the old one with the time it stops working, and both answer until then.
    // A sandbox key's 12-character prefix has only one random character, so two keys may share
    // it: the last four tell them apart.
    const rows = page.getByRole("row").filter({ hasText: "checkout" });
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.filter({ hasText: "—" }).count()).toBe(1);
    const shown = `${sendingKey.slice(0, 12)}…${sendingKey.slice(-4)}`;
    await expect.poll(() => rows.filter({ hasText: shown }).count()).toBe(1);
    await expect
      .poll(() => rows.filter({ hasText: `${first.slice(0, 12)}…${first.slice(-4)}` }).count())
      .toBe(1);
    expect((await api("/v2/balance", first)).status).toBe(200);
    expect((await api("/v2/balance", sendingKey)).status).toBe(200);
    await saveScreenshot(page, "keys-rotated");
  });

  it("registers a sender and templates, with a live preview of the placeholders", async () => {
    await navLink(page, "Templates & senders").click();
    await page.getByRole("heading", { level: 1, name: "Templates & senders" }).waitFor();
    await page.getByText("No templates yet").waitFor();
    await saveScreenshot(page, "templates-empty");

    await page.getByLabel("New sender").fill("DAKI");
    await page.getByRole("button", { name: "Add sender" }).click();
    await page.getByRole("alert").filter({ hasText: "6 letters" }).waitFor();
    await page.getByLabel("New sender").fill("dakiya");
    await page.getByRole("button", { name: "Add sender" }).click();
    await page.getByRole("list", { name: "Registered senders" }).getByText("DAKIYA").waitFor();

    // A template pasted from DLT with bare {#var#}: the preview numbers them as the server will.
    await page.getByRole("button", { name: "Add template" }).click();
    const form = page.getByRole("form", { name: "Add a DLT template" });
    await form.getByLabel("Template id").fill(LOGIN_TEMPLATE_ID);
    await form.getByLabel("Entity id").fill(ENTITY_ID);
    await form.getByLabel("Name").fill("login-code");
    await form.getByLabel("Category").selectOption("transactional");
    await form.getByRole("checkbox", { name: "DAKIYA" }).check();
    await form
      .getByLabel("Content")
      .fill("Your Dakiya login code is {#var#}. Valid for {#var#} minutes. Do not share it.");
    await form.getByText("{#var2#}").first().waitFor();
    await saveScreenshot(page, "templates-add");
    await form.getByRole("button", { name: "Add template" }).click();
    await page.getByText("Template login-code added.").waitFor();
    const loginRow = page.getByRole("row").filter({ hasText: LOGIN_TEMPLATE_ID });
    await loginRow.getByText("{#var1#}", { exact: true }).waitFor();

    // A server refusal shows next to the field it names.
    await page.getByRole("button", { name: "Add template" }).click();
    await form.getByLabel("Template id").fill(OTP_TEMPLATE_ID);
    await form.getByLabel("Entity id").fill(ENTITY_ID);
    await form.getByLabel("Name").fill("otp");
    await form.getByRole("checkbox", { name: "DAKIYA" }).check();
    await form
      .getByLabel("Content")
      .fill("Your Dakiya verification code is {#otp#}. Do not share it with anyone.");
    await form.getByLabel("Template id").fill("not-digits");
    await form.getByRole("button", { name: "Add template" }).click();
    const templateIdError = await form.getByRole("alert").first().textContent();
    expect(templateIdError).toMatch(/template_id|template id|digits/i);
    expect(await form.getByLabel("Template id").getAttribute("aria-invalid")).toBe("true");
    await form.getByLabel("Template id").fill(OTP_TEMPLATE_ID);
    await form.getByRole("button", { name: "Add template" }).click();
    await page.getByText("Template otp added.").waitFor();

    // Deactivate and activate again.
    await loginRow.getByRole("button", { name: "Deactivate template login-code" }).click();
    await loginRow.getByText("Inactive").waitFor();
    await loginRow.getByRole("button", { name: "Activate template login-code" }).click();
    await loginRow.getByText("Active").waitFor();
    await saveScreenshot(page, "templates");
  });

  it("sets the sandbox OTP settings, showing a refused field next to it", async () => {
    await navLink(page, "OTP settings").click();
    await page.getByRole("heading", { level: 1, name: "OTP settings" }).waitFor();
    const template = page.getByLabel("SMS template");
    await template.waitFor();
    // Only templates with one placeholder that can hold the code are offered (login-code has two).
    expect(await template.locator("option").allTextContents()).toEqual([
      "None (SMS passcodes off)",
      `otp (${OTP_TEMPLATE_ID})`,
    ]);
    await template.selectOption(OTP_TEMPLATE_ID);
    await page.getByText("The code goes in {#otp#}.").waitFor();
    expect(await page.getByLabel("SMS sender").inputValue()).toBe("DAKIYA");
    await page.getByLabel("Code expiry").fill("300");

    await page.getByRole("button", { name: "Add test number" }).click();
    await page.getByLabel("Test number 1", { exact: true }).fill("+919000000001");
    await page.getByLabel("Code 1", { exact: true }).fill("12");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("alert").filter({ hasText: "must be 4 to 10 digits" }).waitFor();
    await saveScreenshot(page, "otp-settings-error");

    await page.getByLabel("Code 1", { exact: true }).fill("123456");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("OTP settings saved for sandbox.").waitFor();
    await page.reload();
    expect(await page.getByLabel("SMS template").inputValue()).toBe(OTP_TEMPLATE_ID);
    expect(await page.getByLabel("Code expiry").inputValue()).toBe("300");
    expect(await page.getByLabel("Code 1", { exact: true }).inputValue()).toBe("123456");
    await saveScreenshot(page, "otp-settings");
  });

  it("shows an OTP sent with the sandbox key in the sandbox inbox by itself", async () => {
    await navLink(page, "Sandbox inbox").click();
    await page.getByRole("heading", { level: 1, name: "Sandbox inbox" }).waitFor();
    await page.getByText("Nothing delivered yet").waitFor();
    expect(await page.locator("pre").textContent()).toContain("Authorization: Bearer dk_sandbox_…");
    await page.getByText("Live: refreshes every 2 seconds").waitFor();
    await saveScreenshot(page, "sandbox-empty");

    // A marker on the window proves the page is not reloaded while the message arrives.
    await page.evaluate("window.stillTheSamePage = true");
    const sent = await api("/v2/otp/send", sendingKey, { to: RECIPIENT });
    expect(sent.status).toBe(200);
    const delivery = page.getByRole("row").filter({ hasText: "verification code is" });
    await delivery.waitFor();
    expect(await delivery.textContent()).toMatch(/verification code is \d{6}\./);
    expect(await delivery.textContent()).toContain(RECIPIENT);
    expect(await page.evaluate<boolean>("window.stillTheSamePage === true")).toBe(true);
    await saveScreenshot(page, "sandbox-inbox");

    // The delivery links to its message, with its status history.
    await delivery.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Message" }).waitFor();
    await page.getByRole("heading", { name: "Status history" }).waitFor();
    await page.getByText("Delivered").first().waitFor();
    await saveScreenshot(page, "message-detail");

    await navLink(page, "Messages").click();
    await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
    await page.getByRole("cell", { name: RECIPIENT }).waitFor();
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No messages match these filters").waitFor();
    await page.getByLabel("Status").selectOption("delivered");
    await page.getByRole("cell", { name: RECIPIENT }).waitFor();
    await page.getByLabel("Number").fill("98");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("alert").filter({ hasText: "last 4 digits" }).waitFor();
    await page.getByLabel("Number").fill(RECIPIENT);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("cell", { name: RECIPIENT }).waitFor();
    await saveScreenshot(page, "messages");

    await navLink(page, "Overview").click();
    await page.getByRole("cell", { name: RECIPIENT }).waitFor();
    await saveScreenshot(page, "overview-sandbox");
  });

  it("reloads each page's data when the environment changes", async () => {
    const sandboxSwitch = page.getByRole("switch", { name: "Sandbox mode" });
    await navLink(page, "API keys").click();
    await page.getByRole("cell", { name: "checkout", exact: true }).first().waitFor();
    await sandboxSwitch.click();
    await page.getByText("No live keys").waitFor();
    expect(await page.getByText("nothing leaves this machine").count()).toBe(0);

    await navLink(page, "Sandbox inbox").click();
    await page.getByText("The sandbox inbox shows sandbox deliveries; switch to sandbox").waitFor();
    await saveScreenshot(page, "sandbox-live-mode");
    await page.getByRole("button", { name: "Switch to sandbox" }).click();
    await page.getByRole("row").filter({ hasText: "verification code is" }).waitFor();
    expect(await sandboxSwitch.getAttribute("aria-checked")).toBe("true");
  });

  it("fits a phone: the menu folds away and tables stay readable", async () => {
    const phone = await site.newContext({ viewport: PHONE, storageState: await owner.storageState() });
    try {
      const phonePage = await phone.newPage();
      await phonePage.goto("/");
      await phonePage.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
      await phonePage.getByText("nothing leaves this machine; test data only").waitFor();
      const menu = phonePage.getByRole("button", { name: "Menu" });
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await navLink(phonePage, "API keys").isVisible()).toBe(false);
      // Nothing is wider than the screen.
      expect(await phonePage.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(phonePage, "phone-overview");

      await menu.click();
      await saveScreenshot(phonePage, "phone-menu");
      await navLink(phonePage, "API keys").click();
      await phonePage.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await phonePage.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(
        PHONE.width,
      );
      await saveScreenshot(phonePage, "phone-keys");

      await phonePage.goto("/sandbox");
      await phonePage.getByRole("row").filter({ hasText: "verification code is" }).waitFor();
      await saveScreenshot(phonePage, "phone-sandbox-inbox");
    } finally {
      await phone.close();
    }
  });

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Dakiya" }).waitFor();
    expect((await owner.cookies()).map((cookie) => cookie.name)).not.toContain("dakiya_session");
    await page.goto("/developers/keys");
    await expect.poll(() => new URL(page.url()).pathname).toBe("/signin");
  });
});
