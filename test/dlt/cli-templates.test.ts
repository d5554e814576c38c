import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS_CACHE_MS } from "../../src/accounts/settings-cache.js";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { listTemplates, type Template, type TemplateView } from "../../src/dlt/registry.js";
import { addSender } from "../../src/dlt/senders.js";
import type { App } from "../../src/http/types.js";
import { updateOtpSettings } from "../../src/otp/settings.js";
import { cliRunner, json, oneLineError } from "../helpers/cli.js";
import { openTestContext, TestClock } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";

const SECRET = "cli-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const SLOW = 90_000;
const SHIPPING = "1107161234567890123";
const OTP = "1107161234567890124";
const SALE = "1107161234567890125";
const BOOKING = "1107161234567890126";
const FOUR_SLOTS =
  "Booking {#alphanumeric#} confirmed: coach {#alphanumeric#}, seat {#numeric#}, departs {#numeric#}. Have a safe trip.";

describe.each(DIALECTS)("dakiya template update and remove (%s)", (dialect) => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const { dakiya } = cliRunner(() => env);
  const strict = cliRunner(() => ({ ...env, DLT_TEMPLATE_RULES: "strict" }));
  let ctx: AppContext;
  let app: App;
  let clock: TestClock;
  let accountId: string;
  let auth: Record<string, string>;
  let queuedId: string;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: SECRET, LOG_LEVEL: "warn" };
    clock = new TestClock();
    ctx = await openTestContext(database.url, { clock });
    app = await buildApp(ctx);
    const account = await createAccountWithKey(ctx, "sandbox", 1_000_000);
    accountId = account.accountId;
    auth = bearer(account.secret);
    await registerDlt(ctx, accountId, {
      senders: ["DAKIYA", "OTHERS"],
      templates: [
        { templateId: SHIPPING, content: "Your order {#order#} has shipped.", name: "Shipped" },
        { templateId: OTP, content: "{#otp#} is your Dakiya code." },
        { templateId: SALE, content: "Sale ends {#var#}." },
      ],
    });
    await addSender(ctx, accountId, "654321", CLI_ORIGIN);
    await updateOtpSettings(
      ctx,
      accountId,
      "sandbox",
      { sms_template_id: OTP, sms_sender: "DAKIYA" },
      CLI_ORIGIN,
    );
    // Queued before any change, and never delivered until the end.
    const queued = await send({ order: "A-1" });
    expect(queued.statusCode, queued.body).toBe(202);
    queuedId = queued.json().id;
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  function send(variables: Record<string, string>, templateId = SHIPPING, sender = "DAKIYA") {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      headers: auth,
      payload: { to: "+919876543210", sender, template_id: templateId, variables },
    });
  }

  const template = (...args: string[]) => dakiya("--json", "template", ...args, "--account", accountId);
  /** The app's sends see a change the CLI (another process) made once their settings cache has expired. */
  const cacheExpired = () => sleep(SETTINGS_CACHE_MS);

  it(
    "corrects a mis-pasted template's content, senders and name; messages already queued keep their text",
    async () => {
      clock.advance(60);
      const updated = json<Template>(
        await template(
          "update",
          "--template-id",
          SHIPPING,
          "--content",
          "Order {#var#} is on its way, {#var#} \u2013 Dakiya",
          "--senders",
          "dakiya, others",
          "--name",
          " Shipping ",
        ),
      );
      expect(updated).toMatchObject({
        template_id: SHIPPING,
        name: "Shipping",
        category: "transactional",
        content: "Order {#var1#} is on its way, {#var2#} - Dakiya",
        placeholders: ["var1", "var2"],
        senders: ["DAKIYA", "OTHERS"],
        status: "active",
      });
      expect(updated.updated_at > updated.created_at).toBe(true);

      const queued = await app.inject({ method: "GET", url: `/v2/sms/${queuedId}`, headers: auth });
      expect(queued.json()).toMatchObject({ status: "queued", text: "Your order A-1 has shipped." });

      await cacheExpired();
      const old = await send({ order: "A-2" });
      expect(old.json().error).toMatchObject({ code: "missing_variable", param: "variables.var1" });
      const fresh = await send({ var1: "A-2", var2: "Asha" }, SHIPPING, "OTHERS");
      expect(fresh.statusCode, fresh.body).toBe(202);
      expect(fresh.json().text).toBe("Order A-2 is on its way, Asha - Dakiya");

      // Only what is given changes; the category and entity id too, checked as on add.
      const renamed = json<Template>(
        await template("update", "--template-id", SHIPPING, "--name", "Shipping 2"),
      );
      expect(renamed).toMatchObject({
        name: "Shipping 2",
        content: updated.content,
        senders: updated.senders,
      });
      const promotional = json<Template>(
        await template(
          "update",
          "--template-id",
          SALE,
          "--category",
          "promotional",
          "--senders",
          "654321",
          "--entity-id",
          "1101000000000000001",
        ),
      );
      expect(promotional).toMatchObject({
        category: "promotional",
        senders: ["654321"],
        entity_id: "1101000000000000001",
      });
      // The human form says what it is now.
      const human = await dakiya(
        "template",
        "update",
        "--account",
        accountId,
        "--template-id",
        SALE,
        "--name",
        "Sale",
      );
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(new RegExp(`^Updated ${SALE} active promotional "Sale" `));
    },
    SLOW,
  );

  it(
    "re-checks an update exactly like add, and refuses it in one line",
    async () => {
      const cases: Array<[string[], RegExp]> = [
        [["--content", "Code {#otp #} now"], /content/],
        [["--content", "   "], /content must not be empty/],
        [["--senders", "NOTREG"], /sender NOTREG is not registered for this account: add it first/],
        [
          ["--senders", "654321"],
          /sender 654321 does not fit: transactional templates go out under 6-letter headers/,
        ],
        [["--senders", ""], /needs at least one sender/],
        [
          ["--category", "promotional"],
          /sender DAKIYA does not fit: promotional templates go out under 6-digit headers/,
        ],
        [["--category", "otp"], /--category.*transactional/],
        [["--name", ""], /name must be 1 to 100 characters/],
        [["--entity-id", "PE-1"], /entity_id must be a DLT id/],
        [
          [],
          /nothing to change; give --content, --senders, --name, --entity-id, --category or --variables-justification/,
        ],
      ];
      const results = await Promise.all(
        cases.map(([args]) => template("update", "--template-id", SHIPPING, ...args)),
      );
      results.forEach((result, i) => {
        expect(oneLineError(result)).toMatch(cases[i]?.[1] as RegExp);
      });

      const [unknownTemplate, unknownAccount] = await Promise.all([
        template("update", "--template-id", "999", "--name", "x"),
        dakiya("template", "update", "--account", "acct_nobody", "--template-id", SHIPPING, "--name", "x"),
      ]);
      expect(oneLineError(unknownTemplate)).toBe("dakiya: No template 999 on this account.");
      expect(oneLineError(unknownAccount)).toBe("dakiya: No account acct_nobody.");
      // Nothing changed.
      const [shipping] = (await listTemplates(ctx, accountId)).filter((t) => t.template_id === SHIPPING);
      expect(shipping).toMatchObject({ name: "Shipping 2", senders: ["DAKIYA", "OTHERS"] });
    },
    SLOW,
  );

  it(
    "keeps the OTP template fit for OTPs, and refuses to remove it while OTP settings use it",
    async () => {
      const [placeholder, sender, removal] = await Promise.all([
        template("update", "--template-id", OTP, "--content", "{#code#} is your code, {#name#}."),
        template("update", "--template-id", OTP, "--senders", "OTHERS"),
        template("remove", "--template-id", OTP),
      ]);
      expect(oneLineError(placeholder)).toBe(
        `dakiya: Template ${OTP} is the SMS OTP template of the sandbox OTP settings, so it must keep one placeholder for the code: an OTP template has exactly one placeholder for the code (such as {#var#}, {#numeric#} or {#otp#}); it has {#code#}, {#name#}.`,
      );
      expect(oneLineError(sender)).toBe(
        `dakiya: Template ${OTP} is the SMS OTP template of the sandbox OTP settings, so its senders must keep DAKIYA.`,
      );
      expect(oneLineError(removal)).toBe(
        `dakiya: Template ${OTP} is the SMS OTP template of the sandbox OTP settings: set another OTP template there first, or deactivate this one instead.`,
      );
      // A change that keeps it fit goes through, and SMS OTPs use it.
      json(
        await template(
          "update",
          "--template-id",
          OTP,
          "--content",
          "{#otp#} is your Dakiya login code.",
          "--senders",
          "DAKIYA,OTHERS",
        ),
      );
      const otp = await app.inject({
        method: "POST",
        url: "/v2/otp/send",
        headers: auth,
        payload: { to: "+919876543211" },
      });
      expect(otp.statusCode, otp.body).toBe(200);

      await updateOtpSettings(ctx, accountId, "sandbox", { sms_template_id: null }, CLI_ORIGIN);
      expect(json(await template("remove", "--template-id", OTP))).toEqual({
        template_id: OTP,
        removed: true,
      });
    },
    SLOW,
  );

  it(
    "removes a template: later sends are unknown_template, queued messages still go out with their text",
    async () => {
      const removed = await dakiya("template", "remove", "--account", accountId, "--template-id", SHIPPING);
      expect(removed).toEqual({ code: 0, stdout: `Removed template ${SHIPPING}.\n`, stderr: "" });
      const listed = json<{ data: Template[] }>(await template("list"));
      expect(listed.data.map((t) => t.template_id)).toEqual([SALE]);

      await cacheExpired();
      const refused = await send({ var1: "A-3", var2: "Asha" });
      expect(refused.json().error).toMatchObject({ code: "unknown_template", param: "template_id" });

      await drainQueue(ctx);
      const delivered = await app.inject({ method: "GET", url: `/v2/sms/${queuedId}`, headers: auth });
      expect(delivered.json()).toMatchObject({
        status: "delivered",
        template_id: SHIPPING,
        text: "Your order A-1 has shipped.",
      });

      const again = await template("remove", "--template-id", SHIPPING);
      expect(oneLineError(again)).toBe(`dakiya: No template ${SHIPPING} on this account.`);
      // It can be registered again, as new.
      const readded = json<Template>(
        await template(
          "add",
          "--template-id",
          SHIPPING,
          "--entity-id",
          "1101456789012345678",
          "--name",
          "Shipped",
          "--category",
          "transactional",
          "--senders",
          "DAKIYA",
          "--content",
          "Your order {#order#} has shipped.",
        ),
      );
      expect(readded).toMatchObject({ template_id: SHIPPING, status: "active" });
    },
    SLOW,
  );

  it(
    "keeps a variables justification and prints the template's DLT warnings; strict mode refuses in one line",
    async () => {
      const added = json<TemplateView>(
        await template(
          "add",
          "--template-id",
          BOOKING,
          "--entity-id",
          "1101456789012345678",
          "--name",
          "Booking",
          "--category",
          "transactional",
          "--senders",
          "DAKIYA",
          "--content",
          FOUR_SLOTS,
          "--variables-justification",
          " Booking reference, coach, seat and departure ",
        ),
      );
      expect(added).toMatchObject({
        variables_justification: "Booking reference, coach, seat and departure",
        warnings: [],
      });

      const cleared = json<TemplateView>(
        await template("update", "--template-id", BOOKING, "--variables-justification", ""),
      );
      expect(cleared.variables_justification).toBeNull();
      expect(cleared.warnings.map((warning) => warning.code)).toEqual(["too_many_variables"]);

      const [human, refused, refusedUpdate] = await Promise.all([
        dakiya("template", "list", "--account", accountId),
        strict.dakiya(
          "template",
          "add",
          "--account",
          accountId,
          "--template-id",
          "1107161234567890127",
          "--entity-id",
          "1101456789012345678",
          "--name",
          "Terse",
          "--category",
          "transactional",
          "--senders",
          "DAKIYA",
          "--content",
          "Code {#var#}",
        ),
        strict.dakiya("template", "update", "--account", accountId, "--template-id", BOOKING, "--name", "x"),
      ]);
      expect(human.code).toBe(0);
      const lines = human.stdout.trimEnd().split("\n");
      const booking = lines.findIndex((line) => line.startsWith(`${BOOKING} active transactional "Booking"`));
      expect(lines[booking + 1]).toBe(`  DLT warning too_many_variables: ${cleared.warnings[0]?.message}`);
      expect(oneLineError(refused)).toMatch(
        /^dakiya: The template breaks TRAI's template rules, and this server refuses such templates: untagged_variable: .* fixed_text_below_30_percent: /,
      );
      expect(oneLineError(refusedUpdate)).toMatch(/too_many_variables: The template has 4 variable slots/);
      const names = (await listTemplates(ctx, accountId)).map((one) => one.name);
      expect(names).not.toContain("Terse");
      expect(names).toContain("Booking");
    },
    SLOW,
  );
});
