import { describe, expect, it } from "vitest";
import { type AccountView, getAccount } from "../../src/accounts/update.js";
import { getOtpSettings, type OtpSettings } from "../../src/otp/settings.js";
import { cliAccount, json, oneLineError } from "../helpers/cli.js";

/* `dakiya account update --bfsi | --no-bfsi` and `dakiya otp settings --voice-caller-id`. */

/** Each command is a process of its own, slow on a busy machine. */
const SLOW = 240_000;
const cli = cliAccount();
const { dakiya } = cli;

function accountUpdate(...options: string[]) {
  return dakiya("--json", "account", "update", "--account", cli.accountId, ...options);
}

function voiceCallerId(value: string) {
  const base = ["--json", "otp", "settings", "--account", cli.accountId, "--environment", "live"];
  return dakiya(...base, "--voice-caller-id", value);
}

function stored(): Promise<{ account: AccountView; settings: OtpSettings }> {
  return cli.withContext(async (ctx) => ({
    account: await getAccount(ctx.db, cli.accountId),
    settings: await getOtpSettings(ctx.db, cli.accountId, "live"),
  }));
}

describe("dakiya account update and the voice caller ID", () => {
  it(
    "marks an account BFSI and back, printing it; a BFSI account may save only 1600-series caller IDs",
    async () => {
      const shown = json<AccountView>(await accountUpdate());
      expect(shown).toMatchObject({ id: cli.accountId, bfsi: false });
      expect(shown.email).toMatch(/@example\.com$/);

      // Not BFSI: any E.164 number; "" goes back to the server's VOICE_FROM.
      expect(json<OtpSettings>(await voiceCallerId("+918046001234")).voice_caller_id).toBe("+918046001234");
      expect(json<OtpSettings>(await voiceCallerId("")).voice_caller_id).toBeNull();

      const marked = await dakiya("account", "update", "--account", cli.accountId, "--bfsi");
      expect(marked.stdout).toContain("BFSI: yes (voice OTPs call only from 1600-series numbers)");
      expect((await stored()).account).toEqual({ ...shown, bfsi: true });

      const before = await stored();
      expect(oneLineError(await voiceCallerId("+918046001234"))).toMatch(
        /^dakiya: \+918046001234 cannot be used: a BFSI account may call only from a 1600-series number/,
      );
      expect(oneLineError(await voiceCallerId("1601234567"))).toMatch(
        /voice_caller_id must be an E\.164 number/,
      );
      expect(await stored()).toEqual(before);

      const saved = await dakiya(
        ...["otp", "settings", "--account", cli.accountId, "--environment", "live"],
        ...["--voice-caller-id", "+911601234567"],
      );
      expect(saved.stdout).toContain("Voice: caller ID +911601234567");
      expect((await stored()).settings.voice_caller_id).toBe("+911601234567");

      expect(json<AccountView>(await accountUpdate("--no-bfsi")).bfsi).toBe(false);
      expect((await stored()).account.bfsi).toBe(false);
    },
    SLOW,
  );

  it(
    "refuses contradicting flags and unknown accounts with one line, changing nothing",
    async () => {
      const before = await stored();
      const [both, unknown, noAccount] = await Promise.all([
        accountUpdate("--bfsi", "--no-bfsi"),
        dakiya("account", "update", "--account", "acct_doesnotexist000000000", "--bfsi"),
        dakiya("account", "update", "--bfsi"),
      ]);
      expect(oneLineError(both)).toBe("dakiya: account update: give --bfsi or --no-bfsi, not both");
      expect(oneLineError(unknown)).toBe("dakiya: No account acct_doesnotexist000000000.");
      expect(oneLineError(noAccount)).toMatch(/--account/);
      expect(await stored()).toEqual(before);
    },
    SLOW,
  );

  it(
    'sets an account\'s PE–TM chain, prints it, refuses a chain that is not DLT ids and clears it with ""',
    async () => {
      const set = await dakiya(
        ...["account", "update", "--account", cli.accountId],
        ...["--tm-chain", "1702000000000000007, 1101172974420830004"],
      );
      expect(set.stdout).toContain("PE–TM chain: 1702000000000000007,1101172974420830004");
      expect((await stored()).account.tm_chain).toEqual(["1702000000000000007", "1101172974420830004"]);

      const before = await stored();
      expect(oneLineError(await accountUpdate("--tm-chain", "1702,TM-ONE"))).toBe(
        'dakiya: telemarketer ids are DLT ids of 1 to 30 digits, got "TM-ONE".',
      );
      expect(await stored()).toEqual(before);

      expect(json<AccountView>(await accountUpdate("--tm-chain", "")).tm_chain).toBeNull();
    },
    SLOW,
  );
});
