import { beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.js";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { addSender, removeSender } from "../../src/dlt/senders.js";
import type { App } from "../../src/http/types.js";
import { createKey } from "../../src/keys/keys.js";
import { getOtpSettings, updateOtpSettings } from "../../src/otp/settings.js";
import { cliAccount, json } from "../helpers/cli.js";
import { dashboardRequest, type SignedIn, signIn } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, TEST_PASSWORD } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/*
 * Removing a sender (header) stops everything that would go out under it from then on: SMS sends
 * (unknown_sender), SMS OTPs (channel_not_configured; tested in otp-channels.test.ts), and it leaves
 * the views: the OTP settings lose it, templates stop listing it. Messages already queued still go out.
 */

const OTP_TEMPLATE = "1107161234567890123";
const SHARED_TEMPLATE = "1107161234567890124";
const TO = "+919876543210";
const HUNDRED_RUPEES = 1_000_000;

describe.each(DIALECTS)("removing a sender on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let accounts = 0;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** A signed-in account with a sandbox key and credits, DAKIYA and DKYOTP, and OTP settings on DAKIYA in both environments. */
  async function setUp(): Promise<{ accountId: string; secret: string; session: SignedIn }> {
    accounts += 1;
    const email = `owner${accounts}-${dialect}@example.com`;
    const { id: accountId } = await createAccount(ctx, { email, password: TEST_PASSWORD });
    const key = await createKey(ctx, { accountId, environment: "sandbox", label: "test" }, CLI_ORIGIN);
    await changeBalance(ctx, {
      accountId,
      environment: "sandbox",
      amount: HUNDRED_RUPEES,
      reason: "credits_added",
      reference: null,
    });
    await registerDlt(ctx, accountId, {
      senders: ["DAKIYA", "DKYOTP"],
      templates: [
        { templateId: OTP_TEMPLATE, content: "{#otp#} is your Dakiya code.", senders: ["DAKIYA"] },
        { templateId: SHARED_TEMPLATE, content: "Hi {#name#}, you are in.", senders: ["DAKIYA", "DKYOTP"] },
      ],
    });
    for (const environment of ["live", "sandbox"] as const) {
      await updateOtpSettings(
        ctx,
        accountId,
        environment,
        {
          sms_template_id: OTP_TEMPLATE,
          sms_sender: "DAKIYA",
        },
        CLI_ORIGIN,
      );
    }
    return { accountId, secret: key.secret, session: await signIn(app, email, TEST_PASSWORD) };
  }

  function sendSms(secret: string, sender: string) {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: { to: TO, sender, template_id: SHARED_TEMPLATE, variables: { name: "Asha" } },
      headers: bearer(secret),
    });
  }

  it("refuses SMS under it, and the templates and OTP settings the dashboard shows lose it", async () => {
    const { accountId, secret, session } = await setUp();
    const removed = await dashboardRequest(app, session, "DELETE", "/dashboard/api/senders/dakiya");
    expect(removed.statusCode, removed.body).toBe(204);

    const refused = await sendSms(secret, "DAKIYA");
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: "unknown_sender", param: "sender" });
    expect((await sendSms(secret, "DKYOTP")).statusCode).toBe(202);

    const templates = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
    expect(
      templates
        .json()
        .data.map((t: { template_id: string; senders: string[] }) => [t.template_id, t.senders]),
    ).toEqual([
      [OTP_TEMPLATE, []],
      [SHARED_TEMPLATE, ["DKYOTP"]],
    ]);
    const deactivated = await dashboardRequest(
      app,
      session,
      "POST",
      `/dashboard/api/templates/${SHARED_TEMPLATE}/status`,
      { status: "inactive" },
    );
    expect(deactivated.json().senders).toEqual(["DKYOTP"]);
    for (const environment of ["live", "sandbox"]) {
      const settings = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/otp-settings?environment=${environment}`,
      );
      expect(settings.json()).toMatchObject({ sms_template_id: OTP_TEMPLATE, sms_sender: null });
    }

    // Registering the header again restores the templates' DLT links; the OTP sender is chosen again explicitly.
    await addSender(ctx, accountId, "DAKIYA", CLI_ORIGIN);
    const again = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
    expect(again.json().data.map((t: { senders: string[] }) => t.senders)).toEqual([
      ["DAKIYA"],
      ["DAKIYA", "DKYOTP"],
    ]);
    expect((await getOtpSettings(ctx.db, accountId, "sandbox")).sms_sender).toBeNull();
  });

  it("returns which OTP settings it cleared, changing nothing for other senders or accounts", async () => {
    const { accountId } = await setUp();
    const neighbour = await setUp();
    expect(await removeSender(ctx, accountId, "dkyotp", CLI_ORIGIN)).toEqual({
      sender: "DKYOTP",
      otp_settings_cleared: [],
    });
    expect((await getOtpSettings(ctx.db, accountId, "sandbox")).sms_sender).toBe("DAKIYA");
    expect(await removeSender(ctx, accountId, "DAKIYA", CLI_ORIGIN)).toEqual({
      sender: "DAKIYA",
      otp_settings_cleared: ["live", "sandbox"],
    });
    expect((await getOtpSettings(ctx.db, neighbour.accountId, "sandbox")).sms_sender).toBe("DAKIYA");
    await expect(removeSender(ctx, accountId, "DAKIYA", CLI_ORIGIN)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("lets a message already queued under it go out, charged once and not refunded", async () => {
    const { accountId, secret } = await setUp();
    const sms = await sendSms(secret, "DAKIYA");
    expect(sms.statusCode).toBe(202);
    const otp = await app.inject({
      method: "POST",
      url: "/v2/otp/send",
      payload: { to: "+919876543211" },
      headers: bearer(secret),
    });
    expect(otp.statusCode, otp.body).toBe(200);
    await removeSender(ctx, accountId, "DAKIYA", CLI_ORIGIN);
    await drainQueue(ctx);
    for (const id of [sms.json().id, otp.json().message_id]) {
      const message = await app.inject({ method: "GET", url: `/v2/sms/${id}`, headers: bearer(secret) });
      expect(message.json()).toMatchObject({ status: "delivered", sender: "DAKIYA" });
    }
    const ledger = await ctx.db
      .selectFrom("ledger_entries")
      .select("reason")
      .where("account_id", "=", accountId)
      .where("environment", "=", "sandbox")
      .orderBy("created_at")
      .execute();
    expect(ledger.map((row) => row.reason)).toEqual(["credits_added", "sms_charge", "sms_charge"]);
  });
});

describe("dakiya sender remove", () => {
  const cli = cliAccount(async (ctx, accountId) => {
    await registerDlt(ctx, accountId, {
      senders: ["DAKIYA"],
      templates: [{ templateId: OTP_TEMPLATE, content: "{#otp#} is your Dakiya code." }],
    });
    await updateOtpSettings(
      ctx,
      accountId,
      "sandbox",
      {
        sms_template_id: OTP_TEMPLATE,
        sms_sender: "DAKIYA",
      },
      CLI_ORIGIN,
    );
  });
  const { dakiya } = cli;

  it("says which OTP settings lost the sender, and otp settings no longer shows it", async () => {
    const text = await dakiya("sender", "remove", "--account", cli.accountId, "--sender", "dakiya");
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Removed sender DAKIYA.");
    expect(text.stdout).toContain("SMS OTPs (sandbox) have no sender now");

    const settings = json<{ sms_sender: string | null; sms_template_id: string }>(
      await dakiya("--json", "otp", "settings", "--account", cli.accountId, "--environment", "sandbox"),
    );
    expect(settings).toMatchObject({ sms_template_id: OTP_TEMPLATE, sms_sender: null });
  }, 60_000);
});
