/**
 * Settings → Team in a real Chromium against a real server on each database, at 1280 and 390 px:
 * an owner invites a member, the invitee opens the link in another browser, sets a password and
 * lands in the console with their role's pages only; the owner changes the role and removes the
 * member, whose open console is signed out.
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

const UI_TIMEOUT = 10_000;
const PASSWORD = "the invitee's passphrase";

describe.each(DIALECTS)("the Team page on %s", (dialect) => {
  const site = useDashboardBrowser({ uiTimeoutMs: UI_TIMEOUT, dialect });
  let owner: OwnerSession;

  beforeAll(async () => {
    owner = await setUpOwner(site.server.url);
  }, 30_000);

  async function ownerPage(viewport: { width: number; height: number }) {
    const context = await site.newContext({ viewport });
    await context.addCookies([{ ...owner.cookie, url: site.server.url }]);
    return { context, page: await context.newPage() };
  }

  async function fitsWidth(page: Page, width: number) {
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
  }

  it("invites by link, signs the invitee in with their role, changes it and removes them", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const email = `viewer-${viewport.width}@example.com`;
      const { context, page } = await ownerPage(viewport);
      try {
        await page.goto("/settings/team");
        await page.getByRole("cell", { name: /owner@example\.com/ }).waitFor();
        await page.getByRole("button", { name: "Invite member" }).click();
        const dialog = page.getByRole("dialog", { name: "Invite a member" });
        await dialog.getByLabel("Email").fill(email);
        await dialog.getByLabel("Role").selectOption("viewer");
        await dialog.getByRole("button", { name: "Create invite link" }).click();
        const linkBox = page.getByRole("textbox", { name: "Invite link" });
        await linkBox.waitFor();
        const link = await linkBox.inputValue();
        expect(link).toMatch(new RegExp(`^${site.server.url}/invite/[0-9A-Za-z]{43}$`));
        await fitsWidth(page, viewport.width);
        await saveScreenshot(page, `console-team-invite-${viewport.width}`);
        await page.getByRole("button", { name: "Done" }).click();
        await page.getByRole("cell", { name: email }).waitFor();

        // The invitee, in a browser of their own.
        const invitee = await site.newContext({ viewport });
        try {
          const theirs = await invitee.newPage();
          await theirs.goto(new URL(link).pathname);
          await theirs.getByRole("heading", { name: "Set your password" }).waitFor();
          await fitsWidth(theirs, viewport.width);
          await saveScreenshot(theirs, `console-invite-accept-${viewport.width}`);
          await theirs.getByLabel("Password").fill(PASSWORD);
          await theirs.getByRole("button", { name: "Set password and sign in" }).click();
          await theirs.getByRole("heading", { name: "Overview" }).waitFor();
          expect(await theirs.locator(".account-email").textContent()).toBe(email);
          if (viewport === PHONE) await theirs.getByRole("button", { name: "Menu" }).click();
          const nav = theirs.getByRole("navigation", { name: "Main" });
          await nav.getByRole("link", { name: "Messages" }).waitFor();
          // A viewer reads, but has no Team page and no money settings to change.
          expect(await nav.getByRole("link", { name: "Team" }).count()).toBe(0);
          await saveScreenshot(theirs, `console-viewer-${viewport.width}`);
          // Pages show a viewer no button the server would refuse.
          await theirs.goto("/templates");
          await theirs
            .getByText("Senders and templates are read-only for your role (viewer)", { exact: false })
            .waitFor();
          expect(await theirs.getByRole("button", { name: /Add (sender|template)/ }).count()).toBe(0);
          await theirs.goto("/developers/webhooks");
          await theirs.getByRole("heading", { name: "Webhooks" }).waitFor();
          expect(await theirs.getByRole("button", { name: /Add .*endpoint/ }).count()).toBe(0);

          // The link worked once.
          const again = await invitee.newPage();
          await again.goto(new URL(link).pathname);
          await again.getByLabel("Password").fill(PASSWORD);
          await again.getByRole("button", { name: "Set password and sign in" }).click();
          await again.getByText(/This link is not valid/).waitFor();

          await page.getByLabel(`Role of ${email}`).selectOption("developer");
          await page.getByText(`${email} is now developer.`).waitFor();
          // The new role shows on the member's next page, and the top bar still fits a phone.
          await theirs.goto("/developers/keys");
          await theirs.getByRole("heading", { name: "API keys" }).waitFor();
          expect(await theirs.locator(".role-badge").textContent()).toBe("developer");
          await theirs.getByRole("button", { name: "Create key" }).waitFor();
          await fitsWidth(theirs, viewport.width);
          await saveScreenshot(theirs, `console-developer-${viewport.width}`);

          const row = page.getByRole("row").filter({ hasText: email });
          await row.getByRole("button", { name: "Remove" }).click();
          await page.getByRole("button", { name: "Remove member" }).click();
          await page.getByText(`${email} was removed; their sessions have ended.`).waitFor();
          await page.getByRole("cell", { name: email }).waitFor({ state: "detached" });

          // The removed member's open console is signed out on its next request.
          await theirs.goto("/messages");
          await theirs.getByRole("heading", { name: "Sign in to Dakiya" }).waitFor();
        } finally {
          await invitee.close();
        }
      } finally {
        await context.close();
      }
    }
  }, 120_000);
});
