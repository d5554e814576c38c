import { beforeAll, describe, expect, it } from "vitest";
import { changeBalance } from "../../src/accounts/ledger.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { UNLIMITED_REQUESTS } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const SHORT = "1107161234567890123";
/** Renders to two GSM-7 segments: ₹0.5000 at the default price. */
const TWO_PARTS = "1107161234567890124";
const OTP = "1107161234567890125";

let serial = 0;
/** A fresh valid Indian mobile for each send. */
function nextNumber(): string {
  serial += 1;
  return `+9198${String(serial).padStart(8, "0")}`;
}

describe.each(DIALECTS)("what a refused or lenient send says (%s)", (dialect) => {
  const instances = useTestInstances(dialect, { env: UNLIMITED_REQUESTS });
  let ctx: AppContext;
  let app: App;

  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** A sandbox account with `credits` (1/10,000 INR), senders DAKIYA and OTHERS, and three templates. */
  async function account(credits: number) {
    const created = await createAccountWithKey(ctx, "sandbox", credits);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA", "OTHERS"],
      templates: [
        { templateId: SHORT, content: "Your order {#order#} has shipped." },
        { templateId: TWO_PARTS, content: `Statement {#ref#} ${"x".repeat(160)}` },
        { templateId: OTP, content: "{#otp#} is your Dakiya code." },
      ],
    });
    return { ...created, auth: bearer(created.secret) };
  }

  const sms = (sender: string, template_id = SHORT) => ({
    to: nextNumber(),
    sender,
    template_id,
    variables:
      template_id === SHORT ? { order: "A-1" } : template_id === OTP ? { otp: "1234" } : { ref: "R1" },
  });

  function post(url: string, auth: Record<string, string>, payload: object) {
    return app.inject({ method: "POST", url, headers: auth, payload });
  }

  function expectInsufficient(
    error: Record<string, unknown>,
    balance: string,
    cost: string,
    secret: string,
    accountId: string,
  ) {
    expect(error.code).toBe("insufficient_balance");
    expect(error.message).toBe(
      `The sandbox balance is ₹${balance} and this costs ₹${cost}; add credits to send it.`,
    );
    // Nothing but the key's own balance and the price: no account, key, number or other environment.
    for (const secretive of [secret, accountId, "live"])
      expect(String(error.message)).not.toContain(secretive);
    expect(error).not.toHaveProperty("param");
  }

  it("402 on a send says the balance and what the message would cost", async () => {
    const { auth, secret, accountId } = await account(1_000);
    const short = await post("/v2/sms/send", auth, sms("DAKIYA"));
    expect(short.statusCode).toBe(402);
    expect(Object.keys(short.json().error).sort()).toEqual(["code", "message", "request_id"]);
    expectInsufficient(short.json().error, "0.1000", "0.2500", secret, accountId);

    await changeBalance(ctx, {
      accountId,
      environment: "sandbox",
      amount: 3_000,
      reason: "credits_added",
      reference: null,
    });
    const long = await post("/v2/sms/send", auth, sms("DAKIYA", TWO_PARTS));
    expect(long.statusCode).toBe(402);
    expectInsufficient(long.json().error, "0.4000", "0.5000", secret, accountId);
    // Nothing was charged.
    const balance = await app.inject({ method: "GET", url: "/v2/balance", headers: auth });
    expect(balance.json().balance).toBe("0.4000");
  });

  it("402 on a batch item says the balance left after the items before it", async () => {
    const { auth, secret, accountId } = await account(3_000);
    const response = await post("/v2/sms/batch", auth, { messages: [sms("DAKIYA"), sms("DAKIYA")] });
    expect(response.statusCode).toBe(202);
    const { data, accepted, rejected } = response.json();
    expect({ accepted, rejected }).toEqual({ accepted: 1, rejected: 1 });
    expect(data[0]).toMatchObject({ status: "queued", cost: "0.2500" });
    expectInsufficient(data[1].error, "0.0500", "0.2500", secret, accountId);
  });

  it("402 on an OTP send says the balance and the channel's price", async () => {
    const { auth, secret, accountId } = await account(1_000);
    const whatsapp = await post("/v2/otp/send", auth, { to: nextNumber(), channel: "whatsapp" });
    expect(whatsapp.statusCode).toBe(402);
    expectInsufficient(whatsapp.json().error, "0.1000", "0.3500", secret, accountId);

    await updateOtpSettings(
      ctx,
      accountId,
      "sandbox",
      { sms_template_id: OTP, sms_sender: "dakiya" },
      CLI_ORIGIN,
    );
    const viaSms = await post("/v2/otp/send", auth, { to: nextNumber() });
    expect(viaSms.statusCode).toBe(402);
    expectInsufficient(viaSms.json().error, "0.1000", "0.2500", secret, accountId);
  });

  it("compares the sender case-insensitively and keeps the registered form", async () => {
    const { auth, accountId } = await account(1_000_000);
    const sent = await post("/v2/sms/send", auth, sms("dakiya"));
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json().sender).toBe("DAKIYA");
    const fetched = await app.inject({ method: "GET", url: `/v2/sms/${sent.json().id}`, headers: auth });
    expect(fetched.json().sender).toBe("DAKIYA");
    const stored = await ctx.db
      .selectFrom("messages")
      .select("sender")
      .where("id", "=", sent.json().id)
      .executeTakeFirstOrThrow();
    expect(stored.sender).toBe("DAKIYA");

    const batch = await post("/v2/sms/batch", auth, { messages: [sms("DaKiYa"), sms("Dakiya")] });
    expect(batch.json().accepted).toBe(2);
    for (const item of batch.json().data) expect(item.sender).toBe("DAKIYA");

    // The other checks see the registered form too.
    const unknown = await post("/v2/sms/send", auth, sms("nobody"));
    expect(unknown.json().error).toMatchObject({ code: "unknown_sender", param: "sender" });
    expect(unknown.json().error.message).toBe("Sender NOBODY is not registered for this account.");
    const mismatch = await post("/v2/sms/send", auth, sms("others"));
    expect(mismatch.json().error).toMatchObject({ code: "template_sender_mismatch", param: "sender" });
    expect(mismatch.json().error.message).toContain("under OTHERS");

    // OTP settings take a header in any case, and keep it upper-case.
    const settings = await updateOtpSettings(
      ctx,
      accountId,
      "sandbox",
      {
        sms_template_id: OTP,
        sms_sender: "Dakiya",
      },
      CLI_ORIGIN,
    );
    expect(settings.sms_sender).toBe("DAKIYA");
    const otp = await post("/v2/otp/send", auth, { to: nextNumber() });
    expect(otp.statusCode, otp.body).toBe(200);
  });
});
