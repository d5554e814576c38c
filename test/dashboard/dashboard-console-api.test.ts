/**
 * The dashboard API behind the console's rough edges: the messages' number search (national
 * numbers, the end of a number, LIKE's wildcards kept literal), refunds of failed messages as the
 * ledger recorded them, scheduled messages and cancelling them, one rule for template content,
 * and editing and removing templates.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { endsWith } from "../../src/db/ends-with.js";
import { releaseDueScheduled } from "../../src/delivery/schedule.js";
import { analyseTemplateContent } from "../../src/dlt/template-syntax.js";
import type { App } from "../../src/http/types.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { drainQueue } from "../helpers/delivery.js";
import { useTestInstances } from "../helpers/instances.js";

const TEMPLATE_ID = "1107161234567890123";
const OTP_TEMPLATE_ID = "1107161234567890999";
const ENTITY_ID = "1101456789012345678";

describe.each(DIALECTS)("dashboard console API on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  const newSession = (): Promise<SignedIn> => signedInAccount(ctx, app);

  /** A signed-in account with test credits, a sender, a template and a sandbox key that sends with it. */
  async function sendingAccount() {
    const session = await newSession();
    await dashboardRequest(app, session, "POST", "/dashboard/api/sandbox/credits", { amount: "100.00" });
    await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
    const template = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
      template_id: TEMPLATE_ID,
      entity_id: ENTITY_ID,
      name: "login",
      category: "transactional",
      senders: ["DAKIYA"],
      content: "Your code is {#var#}.",
    });
    expect(template.statusCode).toBe(201);
    const key = (
      await dashboardRequest(app, session, "POST", "/dashboard/api/keys", { environment: "sandbox" })
    ).json<{ secret: string }>();
    /** Sends one SMS and lets the sandbox deliver it, a second apart from the one before. */
    const sendAndDeliver = async (to: string): Promise<string> => {
      const sent = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { authorization: `Bearer ${key.secret}` },
        payload: { to, sender: "DAKIYA", template_id: TEMPLATE_ID, variables: { var1: "4821" } },
      });
      expect(sent.statusCode, sent.body).toBeLessThan(300);
      await drainQueue(ctx);
      instances.clock.advance(1);
      return sent.json<{ id: string }>().id;
    };
    /** Sends one SMS to go out at `sendAt` (RFC 3339); answers its id. */
    const sendLater = async (to: string, sendAt: string): Promise<string> => {
      const sent = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { authorization: `Bearer ${key.secret}` },
        payload: {
          to,
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { var1: "4821" },
          send_at: sendAt,
        },
      });
      expect(sent.statusCode, sent.body).toBe(202);
      expect(sent.json().status).toBe("scheduled");
      return sent.json<{ id: string }>().id;
    };
    return { session, sendAndDeliver, sendLater };
  }

  describe("the number search of messages and the sandbox inbox", () => {
    let session: SignedIn;
    let first: string;
    let sameEnding: string;
    let other: string;

    beforeAll(async () => {
      const account = await sendingAccount();
      session = account.session;
      first = await account.sendAndDeliver("+919876543210");
      sameEnding = await account.sendAndDeliver("+919812343210");
      other = await account.sendAndDeliver("+919876500000");
    });

    const ids = async (query: string, path = "/dashboard/api/messages?environment=sandbox&") => {
      const response = await dashboardRequest(app, session, "GET", `${path}${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response
        .json<{ data: Array<{ id?: string; message_id?: string }> }>()
        .data.map((item) => item.message_id ?? item.id);
    };

    it("finds an Indian mobile written the national way, +91 assumed", async () => {
      for (const to of [
        "9876543210",
        "09876543210",
        "919876543210",
        "98765%2043210",
        "98765-43210",
        "(98765)%2043210",
        "%2B919876543210",
        // An unencoded + arrives as a space.
        "+919876543210",
        "%2B91%2098765%2043210",
      ]) {
        expect(await ids(`to=${to}`), to).toEqual([first]);
      }
    });

    it("finds the numbers ending with 4 digits or more, newest first, page by page", async () => {
      expect(await ids("to=3210")).toEqual([sameEnding, first]);
      expect(await ids("to=543210")).toEqual([first]);
      expect(await ids("to=0000")).toEqual([other]);
      expect(await ids("to=1111")).toEqual([]);

      const page1 = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/messages?environment=sandbox&to=3210&limit=1",
      );
      expect(page1.json()).toMatchObject({ data: [{ id: sameEnding }], has_more: true });
      const page2 = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages?environment=sandbox&to=3210&limit=1&before=${sameEnding}`,
      );
      expect(page2.json()).toMatchObject({ data: [{ id: first }], has_more: false });

      // Combined with the other filters, and kept to the account's environment.
      expect(await ids("to=3210&status=delivered&channel=sms")).toEqual([sameEnding, first]);
      expect(await ids("to=3210", "/dashboard/api/messages?environment=live&")).toEqual([]);
    });

    it("searches the sandbox inbox the same way", async () => {
      expect(await ids("to=3210", "/dashboard/api/sandbox/messages?")).toEqual([sameEnding, first]);
      expect(await ids("to=9876543210", "/dashboard/api/sandbox/messages?")).toEqual([first]);
    });

    it("refuses what is not a number, fewer than 4 digits, and LIKE's wildcards", async () => {
      for (const to of [
        "987",
        "%25%25%25%25",
        "____",
        "98%25",
        "12_4",
        "abcd",
        "%2B91",
        "%2B0123456789",
        "1234567890123456",
      ]) {
        for (const path of [
          "/dashboard/api/messages?environment=sandbox&",
          "/dashboard/api/sandbox/messages?",
        ]) {
          const response = await dashboardRequest(app, session, "GET", `${path}to=${to}`);
          expect(response.statusCode, `${path}${to}`).toBe(400);
          expect(response.json().error).toMatchObject({ code: "invalid_request", param: "to" });
          expect(response.json().error.message).toContain("last 4 digits");
        }
      }
    });

    it("matches a suffix literally, with % _ and \\ escaped, as a bound value", async () => {
      const recipients = async (suffix: string) =>
        (
          await ctx.db
            .selectFrom("messages")
            .select("recipient")
            .where("id", "in", [first, sameEnding, other])
            .where(endsWith("recipient", suffix))
            .orderBy("recipient")
            .execute()
        ).map((row) => row.recipient);
      expect(await recipients("3210")).toEqual(["+919812343210", "+919876543210"]);
      // Unescaped, each of these would match every message.
      for (const wildcard of ["%", "_", "_3210", "%3210", "\\", "\\%", "' or 1=1 --"]) {
        expect(await recipients(wildcard), wildcard).toEqual([]);
      }
    });
  });

  describe("refunds", () => {
    it("shows a failed message's refund in the list, the detail and the overview, as in the ledger", async () => {
      const { session, sendAndDeliver } = await sendingAccount();
      const delivered = await sendAndDeliver("+919876543210");
      const failed = await sendAndDeliver("+919999999933");

      const list = await dashboardRequest(app, session, "GET", "/dashboard/api/messages?environment=sandbox");
      const [failedItem, deliveredItem] = list.json().data;
      expect(deliveredItem).toMatchObject({
        id: delivered,
        status: "delivered",
        cost: "0.2500",
        refund: null,
      });
      expect(failedItem).toMatchObject({
        id: failed,
        status: "failed",
        cost: "0.2500",
        refund: { amount: "0.2500", refunded_at: failedItem.failed_at },
      });

      const ledger = await ctx.db
        .selectFrom("ledger_entries")
        .select(["amount", "reason", "created_at"])
        .where("reference", "=", failed)
        .orderBy("created_at")
        .execute();
      expect(ledger.map((entry) => [Number(entry.amount), entry.reason])).toEqual([
        [-2500, "sms_charge"],
        [2500, "sms_refund"],
      ]);
      expect(failedItem.refund.refunded_at).toBe(ledger[1]?.created_at);

      const detail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${failed}?environment=sandbox`,
      );
      expect(detail.json()).toMatchObject({ status: "failed", refund: failedItem.refund });
      const deliveredDetail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${delivered}?environment=sandbox`,
      );
      expect(deliveredDetail.json().refund).toBeNull();

      const overview = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/overview?environment=sandbox",
      );
      expect(overview.json().balances.sandbox).toBe("99.7500");
      expect(overview.json().messages[0]).toMatchObject({ id: failed, refund: failedItem.refund });
    });
  });

  describe("scheduled messages and cancelling", () => {
    const inAnHour = () => new Date(instances.clock.now().getTime() + 3_600_000).toISOString();
    const balance = async (session: SignedIn) =>
      (await dashboardRequest(app, session, "GET", "/dashboard/api/overview?environment=sandbox")).json<{
        balances: { sandbox: string };
      }>().balances.sandbox;

    it("lists a scheduled message with its times and priority, and cancels it with a refund", async () => {
      const { session, sendLater } = await sendingAccount();
      const sendAt = inAnHour();
      const id = await sendLater("+919876543210", sendAt);
      expect(await balance(session)).toBe("99.7500");

      const scheduled = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/messages?environment=sandbox&status=scheduled",
      );
      expect(scheduled.statusCode).toBe(200);
      const [item] = scheduled.json().data;
      expect(item).toMatchObject({
        id,
        status: "scheduled",
        priority: "transactional",
        send_at: sendAt,
        cancelled_at: null,
        refund: null,
      });
      expect(Date.parse(item.expires_at)).toBeGreaterThan(Date.parse(sendAt));

      instances.clock.advance(60);
      const cancelled = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/messages/${id}/cancel?environment=sandbox`,
        {},
      );
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      const body = cancelled.json();
      expect(body).toMatchObject({ id, status: "cancelled", cost: "0.2500" });
      expect(body.refund).toEqual({ amount: "0.2500", refunded_at: body.cancelled_at });
      expect(await balance(session)).toBe("100.0000");

      const detail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${id}?environment=sandbox`,
      );
      expect(detail.json()).toMatchObject({
        status: "cancelled",
        send_at: sendAt,
        refund: body.refund,
        history: [
          { status: "scheduled", at: item.created_at },
          { status: "cancelled", at: body.cancelled_at },
        ],
      });
      const listed = await dashboardRequest(
        app,
        session,
        "GET",
        "/dashboard/api/messages?environment=sandbox&status=cancelled",
      );
      expect(listed.json().data.map((message: { id: string }) => message.id)).toEqual([id]);

      const again = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/messages/${id}/cancel?environment=sandbox`,
        {},
      );
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({ code: "not_cancellable", param: "id" });
      expect(await balance(session)).toBe("100.0000");
    });

    it("shows a scheduled message that went out joining the queue at its send_at", async () => {
      const { session, sendLater } = await sendingAccount();
      const sendAt = inAnHour();
      const id = await sendLater("+919876543212", sendAt);
      instances.clock.advance(3_601);
      expect(await releaseDueScheduled(ctx)).toBe(1);
      await drainQueue(ctx);
      const detail = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${id}?environment=sandbox`,
      );
      const message = detail.json();
      expect(message.status).toBe("delivered");
      expect(message.history.map((step: { status: string }) => step.status)).toEqual([
        "scheduled",
        "queued",
        "submitted",
        "delivered",
      ]);
      expect(message.history[1].at).toBe(sendAt);
    });

    it("refuses to cancel a delivered message, another account's, another environment's, or without CSRF", async () => {
      const { session, sendAndDeliver, sendLater } = await sendingAccount();
      const delivered = await sendAndDeliver("+919876543210");
      const refused = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/messages/${delivered}/cancel?environment=sandbox`,
        {},
      );
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.code).toBe("not_cancellable");
      expect(refused.json().error.message).toContain("delivered");

      const waiting = await sendLater("+919876543211", inAnHour());
      const stranger = await newSession();
      const foreign = await dashboardRequest(
        app,
        stranger,
        "POST",
        `/dashboard/api/messages/${waiting}/cancel?environment=sandbox`,
        {},
      );
      expect(foreign.statusCode).toBe(404);
      const live = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/messages/${waiting}/cancel?environment=live`,
        {},
      );
      expect(live.statusCode).toBe(404);
      const noToken = await app.inject({
        method: "POST",
        url: `/dashboard/api/messages/${waiting}/cancel?environment=sandbox`,
        headers: { cookie: session.cookie },
        payload: {},
      });
      expect(noToken.statusCode).toBe(403);
      expect(noToken.json().error.code).toBe("csrf_rejected");
      const noEnvironment = await dashboardRequest(
        app,
        session,
        "POST",
        `/dashboard/api/messages/${waiting}/cancel`,
        {},
      );
      expect(noEnvironment.statusCode).toBe(400);

      const still = await dashboardRequest(
        app,
        session,
        "GET",
        `/dashboard/api/messages/${waiting}?environment=sandbox`,
      );
      expect(still.json()).toMatchObject({ status: "scheduled", refund: null });
      expect(await balance(session)).toBe("99.5000");
    });
  });

  describe("template content", () => {
    it("refuses a malformed placeholder with the one message the console's preview shows", async () => {
      const session = await newSession();
      await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
      for (const content of [
        "Your code is {#otp #}.",
        "Your code is {#OTP#}.",
        "Your code is {##}.",
        "Your code is {#otp.",
        "Your code is otp#}.",
        "{#var1#} and {#var#}",
      ]) {
        const response = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
          template_id: TEMPLATE_ID,
          entity_id: ENTITY_ID,
          name: "bad",
          category: "transactional",
          senders: ["DAKIYA"],
          content,
        });
        expect(response.statusCode, content).toBe(400);
        const preview = analyseTemplateContent(content);
        expect(response.json().error).toMatchObject({
          code: "invalid_request",
          param: "content",
          message: preview.problem,
        });
      }
      // The refused token is not offered as a placeholder.
      expect(analyseTemplateContent("Code {#otp #} for {#name#}").placeholders).toEqual(["name"]);
      expect(analyseTemplateContent("Code {#otp #}").pieces).toContainEqual({
        kind: "invalid",
        text: "{#otp #}",
      });
    });
  });

  describe("editing and removing templates", () => {
    let session: SignedIn;
    const template = (templateId: string) => `/dashboard/api/templates/${templateId}`;

    beforeAll(async () => {
      session = await newSession();
      for (const sender of ["DAKIYA", "DKYOTP"]) {
        await dashboardRequest(app, session, "POST", "/dashboard/api/senders", { sender });
      }
      for (const [templateId, name, content] of [
        [TEMPLATE_ID, "login", "Your login code is {#var#}."],
        [OTP_TEMPLATE_ID, "otp", "Your verification code is {#otp#}."],
      ] as const) {
        const added = await dashboardRequest(app, session, "POST", "/dashboard/api/templates", {
          template_id: templateId,
          entity_id: ENTITY_ID,
          name,
          category: "transactional",
          senders: ["DAKIYA"],
          content,
        });
        expect(added.statusCode).toBe(201);
      }
    });

    it("changes the content, senders and name, and nothing else", async () => {
      const response = await dashboardRequest(app, session, "PATCH", template(TEMPLATE_ID), {
        name: "login-code",
        senders: ["DAKIYA", "DKYOTP"],
        content: "Your Dakiya login code is {#var#}. Valid for {#var#} minutes.",
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        template_id: TEMPLATE_ID,
        entity_id: ENTITY_ID,
        name: "login-code",
        category: "transactional",
        senders: ["DAKIYA", "DKYOTP"],
        content: "Your Dakiya login code is {#var1#}. Valid for {#var2#} minutes.",
        placeholders: ["var1", "var2"],
        status: "active",
      });
      const listed = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
      expect(listed.json().data).toContainEqual(response.json());
    });

    it("refuses an edit with the field at fault", async () => {
      const refusals: Array<[object, string | undefined]> = [
        [{ content: "Your code is {#otp #}." }, "content"],
        [{ name: "  " }, "name"],
        [{ senders: ["NOTREG"] }, "senders"],
        [{ entity_id: "not-digits" }, "entity_id"],
        [{}, undefined],
      ];
      for (const [body, param] of refusals) {
        const response = await dashboardRequest(app, session, "PATCH", template(TEMPLATE_ID), body);
        expect(response.statusCode, JSON.stringify(body)).toBe(400);
        expect(response.json().error.code).toBe("invalid_request");
        expect(response.json().error.param).toBe(param);
      }
      const badPlaceholder = await dashboardRequest(app, session, "PATCH", template(TEMPLATE_ID), {
        content: "Your code is {#otp #}.",
      });
      expect(badPlaceholder.json().error.message).toBe(
        analyseTemplateContent("Your code is {#otp #}.").problem,
      );
      // The template id is the template: it is not a field of an edit.
      const renamed = await dashboardRequest(app, session, "PATCH", template(TEMPLATE_ID), {
        template_id: "1107000000000000000",
      });
      expect(renamed.statusCode).toBe(400);
      const missing = await dashboardRequest(app, session, "PATCH", template("1107000000000000000"), {
        name: "x",
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe("not_found");
    });

    it("keeps the template of the OTP settings fit for passcodes", async () => {
      const settings = await dashboardRequest(
        app,
        session,
        "PATCH",
        "/dashboard/api/otp-settings?environment=sandbox",
        { sms_template_id: OTP_TEMPLATE_ID, sms_sender: "DAKIYA" },
      );
      expect(settings.statusCode, settings.body).toBe(200);
      // One placeholder of any name carries the code; two leave no single place for it, and a
      // link cannot hold it.
      for (const content of [
        "Your verification code for {#name#} is {#code#}.",
        "Sign in at {#url#} with your code.",
      ]) {
        const unfit = await dashboardRequest(app, session, "PATCH", template(OTP_TEMPLATE_ID), { content });
        expect(unfit.statusCode, content).toBe(400);
        expect(unfit.json().error.param).toBe("content");
      }
      const removal = await dashboardRequest(app, session, "DELETE", template(OTP_TEMPLATE_ID));
      expect(removal.statusCode).toBe(400);
      expect(removal.json().error).toMatchObject({ code: "invalid_request", param: "template_id" });
      expect(removal.json().error.message).toContain("OTP settings");
      const renamed = await dashboardRequest(app, session, "PATCH", template(OTP_TEMPLATE_ID), {
        name: "passcodes",
      });
      expect(renamed.statusCode).toBe(200);
    });

    it("removes a template: sends with it are refused from then on", async () => {
      const key = (
        await dashboardRequest(app, session, "POST", "/dashboard/api/keys", { environment: "sandbox" })
      ).json<{ secret: string }>();
      const removal = await dashboardRequest(app, session, "DELETE", template(TEMPLATE_ID));
      expect(removal.statusCode).toBe(204);
      const listed = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
      expect(listed.json().data.map((t: { template_id: string }) => t.template_id)).toEqual([
        OTP_TEMPLATE_ID,
      ]);
      const send = await app.inject({
        method: "POST",
        url: "/v2/sms/send",
        headers: { authorization: `Bearer ${key.secret}` },
        payload: {
          to: "+919876543210",
          sender: "DAKIYA",
          template_id: TEMPLATE_ID,
          variables: { var1: "1" },
        },
      });
      expect(send.json().error.code).toBe("unknown_template");
      expect((await dashboardRequest(app, session, "DELETE", template(TEMPLATE_ID))).statusCode).toBe(404);
    });

    it("needs a session, its CSRF token, and the account's own template", async () => {
      const url = template(OTP_TEMPLATE_ID);
      for (const method of ["PATCH", "DELETE"] as const) {
        const payload = method === "PATCH" ? { name: "x" } : undefined;
        const noSession = await app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(noSession.statusCode).toBe(401);
        expect(noSession.json().error.code).toBe("not_signed_in");
        const noCsrf = await app.inject({
          method,
          url,
          headers: { cookie: session.cookie },
          ...(payload ? { payload } : {}),
        });
        expect(noCsrf.statusCode).toBe(403);
        expect(noCsrf.json().error.code).toBe("csrf_rejected");
        const foreign = await app.inject({
          method,
          url,
          headers: { cookie: session.cookie, "x-csrf-token": session.csrf, origin: "https://evil.example" },
          ...(payload ? { payload } : {}),
        });
        expect(foreign.statusCode).toBe(403);
        const stranger = await newSession();
        const response = await dashboardRequest(app, stranger, method, url, payload);
        expect(response.statusCode).toBe(404);
      }
      const unchanged = await dashboardRequest(app, session, "GET", "/dashboard/api/templates");
      expect(unchanged.json().data[0]).toMatchObject({ template_id: OTP_TEMPLATE_ID, name: "passcodes" });
    });
  });
});
