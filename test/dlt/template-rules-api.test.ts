import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { createLogger } from "../../src/lib/logger.js";
import { startServer } from "../../src/server.js";
import { openTestContext } from "../helpers/context.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { TEST_ENTITY_ID } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { type TestInstance, useTestInstances } from "../helpers/instances.js";

/*
 * TRAI's template rules through the dashboard API (docs/dlt-variables.md#template-rules), in each
 * DLT_TEMPLATE_RULES mode: `warn` saves a template with its warnings, `strict` refuses it with
 * 422 template_rule and saves nothing, `off` shows none. And service-explicit templates go out
 * under 6-digit headers since May 2025, while those registered before keep sending.
 */

const TEMPLATES = "/dashboard/api/templates";
const template = (templateId: string) => `${TEMPLATES}/${templateId}`;
/** A bare {#var#}: untagged. */
const UNTAGGED = "Your login code is {#var#}. Do not share it with anyone.";
/** Four typed slots and enough fixed text: only too_many_variables, unless justified. */
const FOUR_SLOTS =
  "Booking {#alphanumeric#} confirmed: coach {#alphanumeric#}, seat {#numeric#}, departs {#numeric#}. Have a safe trip with us.";
/** One typed slot, too little fixed text. */
const TERSE = "Code {#numeric#}";
const CLEAN = "Your order {#numeric#} has shipped and arrives in two days.";

type ListedTemplate = Record<string, unknown> & { template_id: string; warnings: Array<{ code: string }> };

describe.each(DIALECTS)("TRAI's template rules through the dashboard API on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let warn: TestInstance;
  let strict: TestInstance;
  let off: TestInstance;
  let counter = 0;

  beforeAll(async () => {
    warn = { ctx: instances.ctx, app: instances.app };
    strict = await instances.openInstance({ env: { DLT_TEMPLATE_RULES: "strict" } });
    off = await instances.openInstance({ env: { DLT_TEMPLATE_RULES: "off" } });
  });

  /** A signed-in account on `instance` with senders DAKIYA and 123456. */
  async function account(instance: TestInstance): Promise<SignedIn> {
    const session = await signedInAccount(instance.ctx, instance.app);
    for (const sender of ["DAKIYA", "123456"]) {
      const added = await dashboardRequest(instance.app, session, "POST", "/dashboard/api/senders", {
        sender,
      });
      expect(added.statusCode).toBe(201);
    }
    return session;
  }

  function add(instance: TestInstance, session: SignedIn, fields: Record<string, unknown>) {
    counter += 1;
    return dashboardRequest(instance.app, session, "POST", TEMPLATES, {
      template_id: `11071612345678${String(counter).padStart(5, "0")}`,
      entity_id: TEST_ENTITY_ID,
      name: `template ${counter}`,
      category: "transactional",
      senders: ["DAKIYA"],
      ...fields,
    });
  }

  async function listed(instance: TestInstance, session: SignedIn) {
    const response = await dashboardRequest(instance.app, session, "GET", TEMPLATES);
    expect(response.statusCode).toBe(200);
    return response.json<{ data: ListedTemplate[] }>().data;
  }

  const codesOf = (body: { warnings: Array<{ code: string }> }) => body.warnings.map((w) => w.code);

  describe("warn (the default)", () => {
    it("saves a template with every breach listed, and lists it so", async () => {
      const session = await account(warn);
      const response = await add(warn, session, { content: "{#var#} {#var#} {#var#} {#var#}" });
      expect(response.statusCode, response.body).toBe(201);
      expect(codesOf(response.json())).toEqual([
        "untagged_variable",
        "too_many_variables",
        "fixed_text_below_30_percent",
      ]);
      expect(response.json().variables_justification).toBeNull();
      for (const warning of response.json().warnings) expect(warning.message).toMatch(/\. .+/);
      expect(await listed(warn, session)).toEqual([response.json()]);

      const clean = await add(warn, session, { content: CLEAN });
      expect(clean.json()).toMatchObject({ warnings: [], variables_justification: null });
    });

    it("takes a justification, trimmed, and works the warnings out again on every change", async () => {
      const session = await account(warn);
      const added = await add(warn, session, {
        content: FOUR_SLOTS,
        variables_justification: "  Booking reference, coach, seat and departure  ",
      });
      expect(added.statusCode, added.body).toBe(201);
      expect(added.json()).toMatchObject({
        warnings: [],
        variables_justification: "Booking reference, coach, seat and departure",
      });
      const id = added.json().template_id;

      const cleared = await dashboardRequest(warn.app, session, "PATCH", template(id), {
        variables_justification: "   ",
      });
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json().variables_justification).toBeNull();
      expect(codesOf(cleared.json())).toEqual(["too_many_variables"]);

      // A change of something else keeps the justification (none now) and the warnings it implies.
      const renamed = await dashboardRequest(warn.app, session, "PATCH", template(id), { name: "booking" });
      expect(codesOf(renamed.json())).toEqual(["too_many_variables"]);

      const shorter = await dashboardRequest(warn.app, session, "PATCH", template(id), { content: CLEAN });
      expect(shorter.json()).toMatchObject({ warnings: [], variables_justification: null, name: "booking" });
      expect((await listed(warn, session)).find((t) => t.template_id === id)).toEqual(shorter.json());

      const justified = await dashboardRequest(warn.app, session, "PATCH", template(id), {
        content: FOUR_SLOTS,
        variables_justification: "Booking details",
      });
      expect(justified.json()).toMatchObject({ warnings: [], variables_justification: "Booking details" });
      const nulled = await dashboardRequest(warn.app, session, "PATCH", template(id), {
        variables_justification: null,
      });
      expect(nulled.json()).toMatchObject({ variables_justification: null });
      expect(codesOf(nulled.json())).toEqual(["too_many_variables"]);
    });

    it("refuses a justification over 1000 characters with invalid_request", async () => {
      const session = await account(warn);
      const response = await add(warn, session, {
        content: FOUR_SLOTS,
        variables_justification: "j".repeat(1001),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({
        code: "invalid_request",
        param: "variables_justification",
        message: "variables_justification must be at most 1000 characters.",
      });
      expect(await listed(warn, session)).toEqual([]);
      const atLimit = await add(warn, session, {
        content: FOUR_SLOTS,
        variables_justification: "न".repeat(1000),
      });
      expect(atLimit.statusCode, atLimit.body).toBe(201);
    });

    it("logs one warning line at start with how many templates break the rules", async () => {
      const session = await account(warn);
      for (const content of [UNTAGGED, TERSE, CLEAN])
        expect((await add(warn, session, { content })).statusCode).toBe(201);
      const lines: string[] = [];
      const ctx = await openTestContext(instances.database.url, {
        log: createLogger("warn", { write: (line: string) => void lines.push(line) }),
      });
      const app = await buildApp(ctx);
      const server = await startServer(app, ctx, { host: "127.0.0.1", port: 0 });
      await server.stop();
      const warnings = lines
        .map((line) => JSON.parse(line))
        .filter((line) => /template rules/.test(line.msg));
      expect(warnings).toHaveLength(1);
      const { templates, accounts } = await countBreaches(warn.ctx);
      expect(templates).toBeGreaterThanOrEqual(2);
      expect(warnings[0]).toMatchObject({ level: 40, templates, accounts, dlt_template_rules: "warn" });
      expect(warnings[0].msg).toBe(
        `${templates} DLT templates of ${accounts} account${accounts === 1 ? "" : "s"} break TRAI's template rules: ` +
          "see each template's warnings (console: Templates & senders; dakiya template list --account ID)",
      );
    });
  });

  describe("strict", () => {
    it("refuses a template that breaks a rule with 422 template_rule naming it, and saves nothing", async () => {
      const session = await account(strict);
      const cases: Array<[string, string | undefined, string, string]> = [
        [UNTAGGED, undefined, "content", "untagged_variable"],
        [TERSE, undefined, "content", "fixed_text_below_30_percent"],
        [FOUR_SLOTS, undefined, "variables_justification", "too_many_variables"],
        [FOUR_SLOTS, "  ", "variables_justification", "too_many_variables"],
      ];
      for (const [content, justification, param, rule] of cases) {
        const response = await add(strict, session, {
          content,
          ...(justification === undefined ? {} : { variables_justification: justification }),
        });
        expect(response.statusCode, content).toBe(422);
        expect(response.json().error).toMatchObject({ code: "template_rule", param });
        expect(response.json().error.message).toContain(`${rule}: `);
      }
      expect(await listed(strict, session)).toEqual([]);

      const justified = await add(strict, session, {
        content: FOUR_SLOTS,
        variables_justification: "Booking",
      });
      expect(justified.statusCode, justified.body).toBe(201);
      expect(justified.json().warnings).toEqual([]);
    });

    it("refuses an update whose result breaks a rule, and leaves the template as it was", async () => {
      const session = await account(strict);
      const added = await add(strict, session, { content: FOUR_SLOTS, variables_justification: "Booking" });
      const id = added.json().template_id;
      for (const [change, param] of [
        [{ content: UNTAGGED }, "content"],
        [{ variables_justification: "" }, "variables_justification"],
      ] as const) {
        const response = await dashboardRequest(strict.app, session, "PATCH", template(id), change);
        expect(response.statusCode, JSON.stringify(change)).toBe(422);
        expect(response.json().error).toMatchObject({ code: "template_rule", param });
      }
      expect(await listed(strict, session)).toEqual([added.json()]);
    });

    it("shows the warnings of a template saved before, and saves no change to it until they are mended", async () => {
      const session = await account(strict);
      // Saved by a server in warn mode, on the same database.
      const before = await add(warn, session, { content: UNTAGGED });
      const id = before.json().template_id;
      expect(codesOf((await listed(strict, session))[0] as ListedTemplate)).toEqual(["untagged_variable"]);
      const renamed = await dashboardRequest(strict.app, session, "PATCH", template(id), { name: "renamed" });
      expect(renamed.json().error).toMatchObject({ code: "template_rule", param: "content" });
      const mended = await dashboardRequest(strict.app, session, "PATCH", template(id), {
        name: "renamed",
        content: "Your login code is {#numeric#}. Do not share it with anyone.",
      });
      expect(mended.statusCode, mended.body).toBe(200);
      expect(mended.json()).toMatchObject({ name: "renamed", warnings: [] });
    });
  });

  describe("off", () => {
    it("saves any template and shows no warnings; a server that checks shows them", async () => {
      const session = await account(off);
      const response = await add(off, session, { content: "{#var#} {#var#} {#var#} {#var#}" });
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().warnings).toEqual([]);
      expect((await listed(off, session))[0]?.warnings).toEqual([]);
      // The breaches were kept: switched back to warn, they are there.
      expect(codesOf((await listed(warn, session))[0] as ListedTemplate)).toEqual([
        "untagged_variable",
        "too_many_variables",
        "fixed_text_below_30_percent",
      ]);
    });
  });

  describe("service-explicit templates (promotional since May 2025)", () => {
    it("go out under 6-digit headers; a letter header is refused with the reason", async () => {
      const session = await account(warn);
      const letters = await add(warn, session, {
        content: CLEAN,
        category: "service_explicit",
        senders: ["DAKIYA"],
      });
      expect(letters.statusCode).toBe(400);
      expect(letters.json().error).toMatchObject({ code: "invalid_request", param: "senders" });
      expect(letters.json().error.message).toBe(
        "sender DAKIYA does not fit: service_explicit templates go out under 6-digit headers: since May 2025 " +
          "DLT treats service-explicit content as promotional, so it needs a promotional (numeric) header.",
      );
      const digits = await add(warn, session, {
        content: CLEAN,
        category: "service_explicit",
        senders: ["123456"],
      });
      expect(digits.statusCode, digits.body).toBe(201);
      // A service-implicit template still goes out under letters.
      const implicit = await add(warn, session, {
        content: CLEAN,
        category: "service_implicit",
        senders: ["DAKIYA"],
      });
      expect(implicit.statusCode, implicit.body).toBe(201);
    });

    it("registered before May 2025 under a letter header, keep sending and can be edited", async () => {
      const { accountId, secret } = await createAccountWithKey(warn.ctx, "sandbox", 1_000_000);
      await warn.ctx.db
        .insertInto("senders")
        .values({ account_id: accountId, sender: "DAKIYA", created_at: "2025-01-01T00:00:00.000Z" })
        .execute();
      await warn.ctx.db
        .insertInto("templates")
        .values({
          id: "tpl_legacyserviceexplicit01",
          account_id: accountId,
          template_id: "1107160000000000001",
          entity_id: TEST_ENTITY_ID,
          name: "consented offers",
          category: "service_explicit",
          content: "Your offer {#numeric1#} is ready for you to use today.",
          placeholders: JSON.stringify(["numeric1"]),
          senders: JSON.stringify(["DAKIYA"]),
          status: "active",
          variables_justification: null,
          warnings: "[]",
          created_at: "2025-01-01T00:00:00.000Z",
          updated_at: "2025-01-01T00:00:00.000Z",
        })
        .execute();
      const { updateTemplate } = await import("../../src/dlt/template-edits.js");
      const renamed = await updateTemplate(
        warn.ctx,
        accountId,
        "1107160000000000001",
        { name: "offers" },
        CLI_ORIGIN,
      );
      expect(renamed).toMatchObject({ name: "offers", senders: ["DAKIYA"], category: "service_explicit" });
      // Only a change of senders or category re-checks the headers.
      await expect(
        updateTemplate(warn.ctx, accountId, "1107160000000000001", { senders: ["DAKIYA"] }, CLI_ORIGIN),
      ).rejects.toMatchObject({ code: "invalid_request", param: "senders" });

      const sent = await warn.app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: bearer(secret),
        payload: {
          to: "+919876543210",
          sender: "DAKIYA",
          template_id: "1107160000000000001",
          variables: { numeric1: "42" },
        },
      });
      expect(sent.statusCode, sent.body).toBe(202);
    });
  });
});

async function countBreaches(ctx: AppContext): Promise<{ templates: number; accounts: number }> {
  const rows = await ctx.db.selectFrom("templates").select(["account_id", "warnings"]).execute();
  const breaking = rows.filter((row) => row.warnings !== "[]");
  return { templates: breaking.length, accounts: new Set(breaking.map((row) => row.account_id)).size };
}
