import { beforeAll, describe, expect, it } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { otpCodeSlot } from "../../src/dlt/otp-slot.js";
import { addTemplate } from "../../src/dlt/registry.js";
import { updateTemplate } from "../../src/dlt/template-edits.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { nextNumber, useOtpHarness } from "../helpers/otp.js";

/*
 * OTP templates as DLT portals approve them (docs/otp.md#the-sms-template): a bare {#var#} or a
 * typed tag carries the code, not only a placeholder named {#otp#}.
 */

describe("which placeholder carries an OTP's code", () => {
  it.each([
    [["otp"], "otp"],
    [["var1"], "var1"],
    [["numeric1"], "numeric1"],
    [["alphanumeric1"], "alphanumeric1"],
    [["code"], "code"],
  ])("takes the one placeholder of %j", (placeholders, slot) => {
    expect(otpCodeSlot(placeholders)).toBe(slot);
  });

  it.each([[[]], [["var1", "var2"]], [["url1"]], [["urlott1"]], [["cbn1"]], [["email1"]]])(
    "finds none in %j",
    (placeholders) => {
      expect(otpCodeSlot(placeholders)).toBeUndefined();
    },
  );
});

describe.each(DIALECTS)("OTP templates pasted from the DLT portal on %s", (dialect) => {
  const harness = useOtpHarness(dialect);
  const { account, sendOk, verifyOk, inboxOf } = harness;
  let ctx: AppContext;
  beforeAll(() => {
    ({ ctx } = harness);
  });

  async function useTemplate(accountId: string, templateId: string, content: string) {
    await addTemplate(
      ctx,
      {
        accountId,
        templateId,
        entityId: TEST_ENTITY_ID,
        name: `otp ${templateId}`,
        category: "transactional",
        senders: ["DAKIYA"],
        content,
      },
      CLI_ORIGIN,
    );
    return updateOtpSettings(ctx, accountId, "sandbox", { sms_template_id: templateId }, CLI_ORIGIN);
  }

  it.each([
    {
      what: "a bare {#var#}",
      templateId: "1107161234567899001",
      content: "{#var#} is your OTP to sign in to Dakiya. Do not share it.",
      delivered: /^(\d{6}) is your OTP to sign in/,
      stored: /^\*{6} is your OTP to sign in/,
    },
    {
      what: "a typed {#numeric#}",
      templateId: "1107161234567899002",
      content: "Use {#numeric#} to sign in to Dakiya. Valid 10 minutes.",
      delivered: /^Use (\d{6}) to sign in/,
      stored: /^Use \*{6} to sign in/,
    },
  ])("sends the code in $what, and it verifies", async ({ templateId, content, delivered, stored }) => {
    const { accountId, secret } = await account();
    const settings = await useTemplate(accountId, templateId, content);
    expect(settings.sms_template_id).toBe(templateId);

    const to = nextNumber();
    const otp = await sendOk(secret, { to });
    await drainQueue(ctx);
    const [item] = await inboxOf(secret, to);
    const code = delivered.exec(item?.text ?? "")?.[1];
    expect(code, item?.text).toMatch(/^\d{6}$/);
    // The stored message has the code masked, in the same slot.
    const row = await ctx.db
      .selectFrom("messages")
      .select("text")
      .where("id", "=", otp.message_id as string)
      .executeTakeFirstOrThrow();
    expect(row.text).toMatch(stored);
    expect((await verifyOk(secret, to, code as string)).reason).toBe("approved");
  });

  it("refuses a template whose one placeholder is a link, and one with two placeholders, naming why", async () => {
    const { accountId } = await account();
    await expect(
      useTemplate(accountId, "1107161234567899003", "Sign in at {#url#} with your code."),
    ).rejects.toMatchObject({
      code: "invalid_request",
      param: "sms_template_id",
      message: expect.stringMatching(/its only placeholder, \{#url1#\}, holds a link, number or address/),
    });
    await expect(
      useTemplate(accountId, "1107161234567899004", "{#var#} is your OTP. Ref {#var#}."),
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringMatching(/exactly one placeholder for the code .* it has \{#var1#\}, \{#var2#\}/),
    });
  });

  it("keeps a template in use fit for OTPs when it is edited", async () => {
    const { accountId } = await account();
    await useTemplate(accountId, "1107161234567899005", "{#var#} is your Dakiya code.");
    // Retyped on DLT after November 2025: still one slot, so the change is taken.
    const retyped = await updateTemplate(
      ctx,
      accountId,
      "1107161234567899005",
      {
        content: "{#numeric#} is your Dakiya code.",
      },
      CLI_ORIGIN,
    );
    expect(retyped.placeholders).toEqual(["numeric1"]);
    await expect(
      updateTemplate(
        ctx,
        accountId,
        "1107161234567899005",
        {
          content: "{#numeric#} is your code for {#var#}.",
        },
        CLI_ORIGIN,
      ),
    ).rejects.toMatchObject({ code: "invalid_request", param: "content" });
  });
});
