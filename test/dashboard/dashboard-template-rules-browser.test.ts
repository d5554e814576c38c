/**
 * TRAI's template rules and the header suffixes on the console's Templates page, in a real
 * Chromium against a real server: a badge on each template that breaks a rule, opened to show each
 * reason and its fix; the headers as handsets show them (-T, -S, -P); the Variables justification
 * field. Screenshots at desktop and phone widths go under test-artifacts/.
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

const UI_TIMEOUT = 10_000;
const ENTITY_ID = "1101456789012345678";
const LOGIN = "1107161234567890001";
const NOTICE = "1107161234567890002";
const OFFERS = "1107161234567890003";
const BOOKING = "1107161234567890004";
const FOUR_SLOTS =
  "Booking {#alphanumeric#} confirmed: coach {#alphanumeric#}, seat {#numeric#}, departs {#numeric#}. Have a safe trip.";

interface TemplateView {
  template_id: string;
  variables_justification: string | null;
  warnings: Array<{ code: string; message: string }>;
}

async function fitsWidth(page: Page, width: number): Promise<boolean> {
  return (await page.evaluate<number>("document.documentElement.scrollWidth")) <= width;
}

describe("DLT warnings and header suffixes on the Templates page", () => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT });
  let owner: OwnerSession;
  let login: TemplateView;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
    for (const sender of ["DAKIYA", "512345"]) await owner.dashboard("POST", "/senders", { sender });
    const add = (template_id: string, name: string, category: string, senders: string[], content: string) =>
      owner.dashboard<TemplateView>("POST", "/templates", {
        template_id,
        entity_id: ENTITY_ID,
        name,
        category,
        senders,
        content,
      });
    login = await add(LOGIN, "login", "transactional", ["DAKIYA"], "Code {#var#}");
    await add(
      NOTICE,
      "notice",
      "service_implicit",
      ["DAKIYA"],
      "Your account statement for {#alphanumeric#} is ready.",
    );
    await add(
      OFFERS,
      "offers",
      "service_explicit",
      ["512345"],
      "Offers for you this week: see {#url#} for details.",
    );
    expect(login.warnings.map((w) => w.code)).toEqual(["untagged_variable", "fixed_text_below_30_percent"]);
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

  for (const viewport of [DESKTOP, PHONE]) {
    it(`shows a badge that opens on each reason and fix, and headers with their suffix (${viewport.width} px)`, async () => {
      await withPage(viewport, async (page) => {
        await page.goto("/templates");
        const row = (templateId: string) => page.getByRole("row").filter({ hasText: templateId });
        await row(LOGIN).getByText("Code").waitFor();

        // Headers as handsets show them, by category.
        const headers = async (templateId: string) => row(templateId).getByRole("listitem").allTextContents();
        expect(await headers(LOGIN)).toEqual(["DAKIYA-T"]);
        expect(await headers(NOTICE)).toEqual(["DAKIYA-S"]);
        expect(await headers(OFFERS)).toEqual(["512345-P"]);

        // Only the template that breaks a rule has a badge, in words, closed at first.
        const badge = row(LOGIN).locator("summary");
        expect(await badge.textContent()).toContain("2 DLT warnings");
        expect(await badge.getAttribute("aria-label")).toBe(
          "2 DLT warnings on template login: show why and how to fix",
        );
        expect(await row(NOTICE).locator("summary").count()).toBe(0);
        expect(await row(OFFERS).locator("summary").count()).toBe(0);
        const [untagged, fixedText] = login.warnings;
        const reason = row(LOGIN).getByText(untagged?.message ?? "?");
        expect(await reason.isVisible()).toBe(false);

        // Opened from the keyboard.
        await badge.focus();
        await page.keyboard.press("Enter");
        await reason.waitFor();
        await row(LOGIN)
          .getByText(fixedText?.message ?? "?")
          .waitFor();
        const items = await row(LOGIN).locator(".dlt-warning-list li").allTextContents();
        expect(items).toEqual([
          `Untagged variable. ${untagged?.message}`,
          `Fixed text below 30%. ${fixedText?.message}`,
        ]);
        expect(await fitsWidth(page, viewport.width)).toBe(true);
        await saveScreenshot(page, `console-template-rules-${viewport.width}`);
      });
    });
  }

  it("adds a template with a variables justification, and a form saved with warnings says so", async () => {
    await withPage(DESKTOP, async (page) => {
      await page.goto("/templates");
      await page.getByRole("button", { name: "Add template" }).click();
      const form = page.getByRole("form", { name: "Add a DLT template" });
      await form.getByLabel("Template id").fill(BOOKING);
      await form.getByLabel("Entity id").fill(ENTITY_ID);
      await form.getByLabel("Name").fill("booking");
      await form.getByRole("checkbox", { name: "DAKIYA" }).check();
      await form.getByText("6-letter headers; handsets show them with -T.").waitFor();
      await form.getByLabel("Category").selectOption("service_explicit");
      await form.getByText("6-digit headers; handsets show them with -P.").waitFor();
      await form.getByLabel("Category").selectOption("transactional");
      await form.getByLabel("Content").fill(FOUR_SLOTS);
      await form
        .getByLabel("Variables justification")
        .fill("  Booking reference, coach, seat and departure ");
      await form.getByRole("button", { name: "Add template" }).click();
      await page.getByText("Template booking added.").waitFor();
      const saved = (await owner.dashboard<{ data: TemplateView[] }>("GET", "/templates")).data.find(
        (template) => template.template_id === BOOKING,
      );
      expect(saved).toMatchObject({
        variables_justification: "Booking reference, coach, seat and departure",
        warnings: [],
      });

      // Cleared in the edit form: the template now has too many variables, and the notice says so.
      await page.getByRole("button", { name: "Edit template booking" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit template booking" });
      const justification = dialog.getByLabel("Variables justification");
      expect(await justification.inputValue()).toBe("Booking reference, coach, seat and departure");
      await justification.fill("");
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await page
        .getByText("Template booking saved. It has 1 DLT warning: open its badge for how to fix.")
        .waitFor();
      const row = page.getByRole("row").filter({ hasText: BOOKING });
      expect(await row.locator("summary").textContent()).toContain("1 DLT warning");
    });
  });
});
