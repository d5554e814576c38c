/**
 * The console's Campaigns page in a real Chromium against a real server (and its delivery worker)
 * on each database, at 1280 and 390 px: a CSV of 50 rows with Hindi text is uploaded, the preview
 * lists exactly its bad rows by their row in the file with the cost, the campaign is sent and its
 * progress bar reaches 100% with every accepted message delivered; a campaign scheduled for later is
 * cancelled from its page and refunded; a viewer sees the list but cannot start one.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { DIALECTS } from "../helpers/database.js";
import { TEST_PASSWORD } from "../helpers/fixtures.js";

const UI_TIMEOUT = 20_000;
const TEMPLATE_ID = "1107161234567890123";
const ENTITY_ID = "1101456789012345678";
const ROWS = 50;
/** Rows of the file (the header being row 1) that cannot be sent, and why. */
const BAD_NUMBER_ROW = 10;
const MISSING_VARIABLE_ROW = 20;
const DUPLICATE_ROW = 30;
const ACCEPTED = ROWS - 3;
/** 47 one-segment messages at the default ₹0.25 a segment. */
const COST = "₹11.75";

/** The number of the recipient on a row: rows 2–51 get distinct numbers. */
const numberOf = (row: number) => `98765${String(10_000 + row).padStart(5, "0")}`;

/** A campaign file as people export it: a BOM, Hindi names, a column the template does not use. */
function campaignCsv(): string {
  const lines = ["\uFEFFto,name,order,city"];
  for (let row = 2; row <= ROWS + 1; row++) {
    const to = row === BAD_NUMBER_ROW ? "12345" : row === DUPLICATE_ROW ? numberOf(2) : numberOf(row);
    const order = row === MISSING_VARIABLE_ROW ? "" : `ORD-${row}`;
    lines.push(`${to},"नमस्ते ग्राहक ${row}",${order},"Pune, MH"`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

interface CampaignView {
  id: string;
  status: string;
  refunded: string;
  counts: { delivered: number };
}

describe.each(DIALECTS)("campaigns in the console on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let owner: OwnerSession;
  let viewerCookie: { name: string; value: string };
  let folder: string;
  let csvPath: string;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    await owner.dashboard("POST", "/sandbox/credits", { amount: "100.00" });
    await owner.dashboard("POST", "/senders", { sender: "DAKIYA" });
    await owner.dashboard("POST", "/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "order shipped",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Dear {#name#}, your order {#order#} is on its way.",
    });
    const invited = await owner.dashboard<{ invite_url: string }>("POST", "/members", {
      email: "viewer@example.com",
      role: "viewer",
    });
    const accepted = await fetch(`${site.server.url}/dashboard/api/invites/accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: invited.invite_url.split("/").at(-1), password: TEST_PASSWORD }),
    });
    expect(accepted.status).toBe(200);
    const [name = "", value = ""] =
      (accepted.headers.get("set-cookie") ?? "").split(";")[0]?.split("=") ?? [];
    viewerCookie = { name, value };

    folder = mkdtempSync(join(tmpdir(), "dakiya-campaign-"));
    csvPath = join(folder, "diwali.csv");
    writeFileSync(csvPath, campaignCsv(), "utf8");
  }, 30_000);

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  async function withPage(
    viewport: { width: number; height: number },
    cookie: { name: string; value: string },
    work: (page: Page) => Promise<void>,
  ) {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...cookie, url: site.server.url }]);
    await context.addInitScript("window.localStorage.setItem('dakiya.environment', 'sandbox')");
    try {
      await work(await context.newPage());
    } finally {
      await context.close();
    }
  }

  /** Whether the page is no wider than the window (nothing runs off a phone's screen). */
  async function fitsWidth(page: Page, width: number): Promise<boolean> {
    return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
  }

  /** The count the delivery breakdown shows for one status. */
  function breakdownCount(page: Page, label: string) {
    return page
      .getByRole("region", { name: "Delivery breakdown" })
      .locator(".breakdown-row")
      .filter({ has: page.getByText(label, { exact: true }) })
      .locator("dd");
  }

  /** Fills the new-campaign form with the file, and asks for the preview. */
  async function previewCampaign(page: Page, name: string) {
    await page.goto("/campaigns");
    await page.getByRole("link", { name: "New campaign" }).click();
    await page.getByRole("heading", { level: 1, name: "New sandbox campaign" }).waitFor();
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Template").selectOption(TEMPLATE_ID);
    expect(await page.getByLabel("Sender").inputValue()).toBe("DAKIYA");
    await page.getByText("Your CSV needs columns: to, name, order").waitFor();
    await page.getByLabel("Recipients (CSV file)").setInputFiles(csvPath);
    const read = page.getByRole("status").filter({ hasText: `${ROWS} rows read.` });
    await read.waitFor();
    expect(await read.textContent()).toContain("Ignored columns, not in the template: city.");
    expect(await read.textContent()).toContain(`${ROWS - 1} numbers without a country code are read as +91.`);
  }

  async function checkPreview(page: Page) {
    await page.getByRole("button", { name: "Check and preview" }).click();
    const preview = page.getByRole("region", { name: "Preview" });
    await preview
      .getByRole("button", { name: new RegExp(`^(Send|Schedule) to ${ACCEPTED} recipients for ${COST}$`) })
      .waitFor();
    const facts = await preview.locator(".fact").allInnerTexts();
    expect(facts.map((fact) => fact.replace(/\s+/g, " ").trim())).toEqual([
      `ROWS ${ROWS}`,
      `TO SEND ${ACCEPTED}`,
      "REFUSED 3",
      `TOTAL COST ${COST}`,
      expect.stringMatching(/^BALANCE ₹\d+\.\d{2}$/),
    ]);
    const rows = preview.getByRole("table", { name: "Refused rows" }).locator("tbody tr");
    expect(await rows.count()).toBe(3);
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")),
    );
    expect(cells.map(([row, to]) => [row, to])).toEqual([
      [String(BAD_NUMBER_ROW), "12345"],
      [String(MISSING_VARIABLE_ROW), `+91${numberOf(MISSING_VARIABLE_ROW)}`],
      [String(DUPLICATE_ROW), `+91${numberOf(2)}`],
    ]);
    expect(cells[1]?.[2]).toMatch(/order/);
    expect(cells[2]?.[2]).toMatch(/appears earlier in the list/);
    return preview;
  }

  for (const viewport of [DESKTOP, PHONE]) {
    it(`uploads a CSV, previews its bad rows and cost, sends it and follows it to delivery at ${viewport.width} px`, async () => {
      await withPage(viewport, owner.cookie, async (page) => {
        const name = `Diwali offers ${viewport.width}`;
        await previewCampaign(page, name);
        const preview = await checkPreview(page);
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-campaign-preview-${viewport.width}`);

        await preview.getByRole("button", { name: /^Send to / }).click();
        await page.getByRole("heading", { level: 1, name }).waitFor();
        expect(page.url()).toMatch(/\/campaigns\/cmp_/);
        const bar = page.getByRole("progressbar", { name: "Campaign progress" });
        await bar.waitFor();
        await expect.poll(() => bar.getAttribute("aria-valuenow"), { timeout: 60_000 }).toBe("100");
        await page
          .locator(".page-header")
          .getByText("Completed", { exact: true })
          .waitFor({ timeout: 60_000 });
        const delivered = breakdownCount(page, "Delivered");
        await expect.poll(() => delivered.textContent(), { timeout: 60_000 }).toBe(String(ACCEPTED));
        const facts = page.getByRole("region", { name: "Details" });
        await facts.getByText(COST, { exact: true }).waitFor();
        await facts.getByText("₹0.00", { exact: true }).waitFor();
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-campaign-completed-${viewport.width}`);

        const id = page.url().split("/").at(-1) ?? "";
        const campaign = await owner.dashboard<CampaignView>("GET", `/campaigns/${id}?environment=sandbox`);
        expect(campaign.counts.delivered).toBe(ACCEPTED);

        await page.getByRole("link", { name: "← Campaigns" }).click();
        const row = page.getByRole("row").filter({ hasText: name });
        await row.getByText("Completed", { exact: true }).waitFor();
        expect(await row.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100");
        await row.getByText(COST).waitFor();
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-campaigns-${viewport.width}`);
      });
    }, 120_000);
  }

  it("schedules a campaign for tomorrow and cancels it from its page, refunding it", async () => {
    await withPage(DESKTOP, owner.cookie, async (page) => {
      await previewCampaign(page, "Next week's reminder");
      // Tomorrow at this time, as India's wall clock reads it.
      const tomorrow = new Date(Date.now() + 86_400_000 + 5.5 * 3_600_000).toISOString().slice(0, 16);
      await page.getByLabel("Send at (India time, IST)").fill(tomorrow);
      await page.getByText(/^Starts \d+ \w+, \d\d:\d\d IST\.$/).waitFor();
      const preview = await checkPreview(page);
      await preview.getByRole("button", { name: `Schedule to ${ACCEPTED} recipients for ${COST}` }).click();
      await page.getByRole("heading", { level: 1, name: "Next week's reminder" }).waitFor();
      const header = page.locator(".page-header");
      await header.getByText("Scheduled", { exact: true }).waitFor();
      expect(
        await page.getByRole("progressbar", { name: "Campaign progress" }).getAttribute("aria-valuenow"),
      ).toBe("0");
      await page.getByRole("region", { name: "Details" }).getByText("Starts at").waitFor();

      await page.getByRole("button", { name: "Cancel campaign" }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel this campaign?" });
      await dialog.getByRole("button", { name: "Cancel campaign" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: `Campaign cancelled; ${COST} refunded to the sandbox balance.` })
        .waitFor();
      await header.getByText("Cancelled", { exact: true }).waitFor();
      expect(await page.getByRole("button", { name: "Cancel campaign" }).count()).toBe(0);
      const facts = page.getByRole("region", { name: "Details" });
      await facts.locator(".fact").filter({ hasText: "Refunded" }).getByText(COST).waitFor();
      await expect.poll(() => breakdownCount(page, "Cancelled").textContent()).toBe(String(ACCEPTED));
      await saveScreenshot(page, "console-campaign-cancelled-1280");

      const id = page.url().split("/").at(-1) ?? "";
      const campaign = await owner.dashboard<CampaignView>("GET", `/campaigns/${id}?environment=sandbox`);
      expect(campaign.status).toBe("cancelled");
      expect(campaign.refunded).toBe("11.7500");
    });
  }, 120_000);

  it("shows a viewer the campaigns and their progress, but no way to start or cancel one", async () => {
    const { data } = await owner.dashboard<{ data: CampaignView[] }>("GET", "/campaigns?environment=sandbox");
    expect(data.length).toBe(3);
    await withPage(PHONE, viewerCookie, async (page) => {
      await page.goto("/campaigns");
      await page.getByRole("heading", { level: 1, name: "Campaigns" }).waitFor();
      await page.getByRole("row").filter({ hasText: "Diwali offers 1280" }).waitFor();
      expect(await page.getByRole("progressbar").count()).toBe(3);
      expect(await page.getByRole("link", { name: "New campaign" }).count()).toBe(0);
      await page.getByRole("link", { name: "Next week's reminder" }).click();
      await page.locator(".page-header").getByText("Cancelled", { exact: true }).waitFor();
      expect(await page.getByRole("button", { name: "Cancel campaign" }).count()).toBe(0);
      await page.goto("/campaigns/new");
      await page.getByText("Campaigns are read-only for your role (viewer)").waitFor();
      expect(await fitsWidth(page, PHONE.width)).toBe(true);
    });
  }, 120_000);
});
