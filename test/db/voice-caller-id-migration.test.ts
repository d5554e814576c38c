import { describe, expect, it } from "vitest";
import { getAccount } from "../../src/accounts/update.js";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-29T0015-voice-caller-id.js";
import { getOtpSettings } from "../../src/otp/settings.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS } from "../helpers/database.js";
import { createTestAccount } from "../helpers/fixtures.js";

/* Accounts of before are not BFSI and their OTP settings call from VOICE_FROM; down removes both columns. */

describe.each(DIALECTS)("the voice-caller-id migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  async function columnsOf(db: AppContext["db"], table: string): Promise<string[]> {
    const tables = await db.introspection.getTables();
    return (tables.find((t) => t.name === table)?.columns ?? []).map((column) => column.name);
  }

  it("adds accounts.bfsi (0 for existing accounts) and otp_settings.voice_caller_id (null), and down drops them", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    const accountId = await createTestAccount(ctx);
    await down(db);
    expect(await columnsOf(db, "accounts")).not.toContain("bfsi");
    expect(await columnsOf(db, "otp_settings")).not.toContain("voice_caller_id");

    // Settings saved by the version before, without the new column.
    // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration
    const before = db as any;
    await before
      .insertInto("otp_settings")
      .values({
        account_id: accountId,
        environment: "live",
        expiry_seconds: 300,
        max_attempts: 5,
        resend_cooldown_seconds: 30,
        fallback_after_seconds: 7,
        code_length: 6,
        sms_template_id: null,
        sms_sender: null,
        whatsapp_template: null,
        whatsapp_language: "en",
        test_numbers: "{}",
        updated_at: ctx.clock.now().toISOString(),
      })
      .execute();

    await up(db);
    expect((await getAccount(db, accountId)).bfsi).toBe(false);
    const settings = await getOtpSettings(db, accountId, "live");
    expect(settings).toMatchObject({ expiry_seconds: 300, voice_caller_id: null });

    // The column is NOT NULL with its default, on both databases.
    await expect(
      db
        .updateTable("accounts")
        .set({ bfsi: null as unknown as number })
        .where("id", "=", accountId)
        .execute(),
    ).rejects.toThrow();
  });
});
