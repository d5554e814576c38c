import { beforeAll, describe, expect, it, vi } from "vitest";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import { addCtaEntry } from "../../src/dlt/cta/store.js";
import type { App } from "../../src/http/types.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey, sendStateOf } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/*
 * Whitelisted calls to action on the send path (docs/dlt-compliance.md#whitelisted-links-and-numbers):
 * a url/urlott/cbn value outside the account's whitelist is refused with 422 cta_not_whitelisted
 * before anything is charged, on POST /v2/sms/send and per item of POST /v2/sms/batch, as
 * DLT_TEMPLATE_RULES says (warn: once the account has an entry of the kind; strict: always; off: never).
 */

const CTA = "1107161234567890123";
const PLAIN = "1107161234567890124";
const TO = "+919876543210";
const HUNDRED_RUPEES = 1_000_000;

describe.each(DIALECTS)("CTA whitelist on sends on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let strict: App;
  let strictCtx: AppContext;
  let off: App;
  beforeAll(async () => {
    ({ ctx, app } = instances);
    ({ app: strict, ctx: strictCtx } = await instances.openInstance({
      env: { DLT_TEMPLATE_RULES: "strict" },
    }));
    off = (await instances.openInstance({ env: { DLT_TEMPLATE_RULES: "off" } })).app;
  });

  /** An account with credits, DAKIYA, a template with a link and a callback number, and one without. */
  async function account() {
    const created = await createAccountWithKey(ctx, "sandbox", HUNDRED_RUPEES);
    await registerDlt(ctx, created.accountId, {
      senders: ["DAKIYA"],
      templates: [
        { templateId: CTA, content: "Track {#url#} or call {#cbn#}. Offer {#urlott#}." },
        { templateId: PLAIN, content: "Your order {#var#} has shipped." },
      ],
    });
    return created;
  }

  function ctaBody(variables: Partial<Record<"url1" | "cbn1" | "urlott1", string>> = {}) {
    return {
      to: TO,
      sender: "DAKIYA",
      template_id: CTA,
      variables: {
        url1: "https://dky.in/t/1",
        cbn1: "1800-123-4567",
        urlott1: "https://dky.in/o/2",
        ...variables,
      },
    };
  }

  function send(secret: string, body: object, target: App = app) {
    return target.inject({ method: "POST", url: "/v2/sms/send", payload: body, headers: bearer(secret) });
  }

  function batch(secret: string, messages: object[], target: App = app) {
    return target.inject({
      method: "POST",
      url: "/v2/sms/batch",
      payload: { messages },
      headers: bearer(secret),
    });
  }

  it("sends any link and number while the account whitelists none", async () => {
    const { secret } = await account();
    const sent = await send(secret, ctaBody({ url1: "https://evil.example.com/", cbn1: "+12025550123" }));
    expect(sent.statusCode, sent.body).toBe(202);
  });

  it("refuses a link outside the whitelist before charging, and sends those inside it", async () => {
    const { accountId, secret } = await account();
    await addCtaEntry(ctx, accountId, "url", "https://dky.in/", CLI_ORIGIN);
    const before = await sendStateOf(ctx.db, accountId);

    for (const [name, value] of [
      ["url1", "https://dky.in.evil.com/t/1"],
      ["url1", "https://e.co/?https://dky.in/"],
      ["urlott1", "https://dky%2Ein/"],
      ["urlott1", "https://dky.in:444/"],
    ] as const) {
      const refused = await send(secret, ctaBody({ [name]: value }));
      expect(refused.statusCode, value).toBe(422);
      expect(refused.json().error).toMatchObject({ code: "cta_not_whitelisted", param: `variables.${name}` });
      expect(refused.json().error.message).toMatch(/is not a whitelisted link/);
    }
    // Nothing charged, no message, no ledger row.
    expect(await sendStateOf(ctx.db, accountId)).toEqual(before);

    // No number entry yet: any callback number goes.
    const sent = await send(secret, ctaBody({ url1: "HTTPS://DKY.IN/t/9", cbn1: "+12025550123" }));
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json().text).toBe("Track HTTPS://DKY.IN/t/9 or call +12025550123. Offer https://dky.in/o/2.");
  });

  it("refuses a callback number outside the whitelist once the account has one, national forms compared as +91", async () => {
    const { accountId, secret } = await account();
    await addCtaEntry(ctx, accountId, "number", "+9118001234567", CLI_ORIGIN);
    for (const cbn1 of ["1800-123-4567", "01800 123 4567", "+91 1800 123 4567"]) {
      const sent = await send(secret, ctaBody({ cbn1 }));
      expect(sent.statusCode, `${cbn1}: ${sent.body}`).toBe(202);
    }
    const before = await sendStateOf(ctx.db, accountId);
    for (const cbn1 of ["1800-123-4568", "+18001234567", "918001234567"]) {
      const refused = await send(secret, ctaBody({ cbn1 }));
      expect(refused.statusCode, cbn1).toBe(422);
      expect(refused.json().error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.cbn1" });
    }
    expect(await sendStateOf(ctx.db, accountId)).toEqual(before);
  });

  it("refuses each batch item on its own, charging only what it sends", async () => {
    const { accountId, secret } = await account();
    await addCtaEntry(ctx, accountId, "url", "https://dky.in/app/", CLI_ORIGIN);
    await addCtaEntry(ctx, accountId, "number", "+9118001234567", CLI_ORIGIN);
    const before = await sendStateOf(ctx.db, accountId);
    const answer = await batch(secret, [
      ctaBody({ url1: "https://dky.in/app/a", urlott1: "https://dky.in/app/b" }),
      ctaBody({ url1: "https://dky.in/app/../evil", urlott1: "https://dky.in/app/b" }),
      ctaBody({ url1: "https://dky.in/app/a", urlott1: "https://dky.in/app/b", cbn1: "1800-999-9999" }),
      { to: TO, sender: "DAKIYA", template_id: PLAIN, variables: { var1: "https://anything.example/" } },
    ]);
    expect(answer.statusCode, answer.body).toBe(202);
    const body = answer.json();
    expect(body).toMatchObject({ accepted: 2, rejected: 2 });
    expect(body.data[0].id).toMatch(/^msg_/);
    expect(body.data[1].error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.url1" });
    expect(body.data[2].error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.cbn1" });
    expect(body.data[3].id).toMatch(/^msg_/);
    const after = await sendStateOf(ctx.db, accountId);
    expect(after.messages).toHaveLength(before.messages.length + 2);
    expect(after.messages.sort()).toEqual([...before.messages, body.data[0].id, body.data[3].id].sort());
  });

  it("under strict, an empty whitelist allows no link or number; templates without one still send", async () => {
    const { accountId, secret } = await account();
    const before = await sendStateOf(ctx.db, accountId);
    const refused = await send(secret, ctaBody(), strict);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.url1" });
    expect(refused.json().error.message).toMatch(/no whitelisted links/);
    expect(await sendStateOf(ctx.db, accountId)).toEqual(before);

    // Through the strict process, whose cache then forgets the account at once.
    await addCtaEntry(strictCtx, accountId, "url", "https://dky.in/", CLI_ORIGIN);
    const noNumber = await send(secret, ctaBody(), strict);
    expect(noNumber.json().error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.cbn1" });

    const plain = await send(
      secret,
      { to: TO, sender: "DAKIYA", template_id: PLAIN, variables: { var1: "A1" } },
      strict,
    );
    expect(plain.statusCode, plain.body).toBe(202);
  });

  it("under off, nothing is checked", async () => {
    const { accountId, secret } = await account();
    await addCtaEntry(ctx, accountId, "url", "https://dky.in/", CLI_ORIGIN);
    await addCtaEntry(ctx, accountId, "number", "+9118001234567", CLI_ORIGIN);
    const sent = await send(
      secret,
      ctaBody({ url1: "https://evil.example.com/", cbn1: "+12025550123" }),
      off,
    );
    expect(sent.statusCode, sent.body).toBe(202);
  });

  it("reads the whitelist through the settings cache, and only for templates with a CTA slot", async () => {
    const { accountId, secret } = await account();
    await addCtaEntry(ctx, accountId, "url", "https://dky.in/", CLI_ORIGIN);
    const read = vi.spyOn(ctx.settingsCache, "read");
    try {
      const plain = await send(secret, {
        to: TO,
        sender: "DAKIYA",
        template_id: PLAIN,
        variables: { var1: "A1" },
      });
      expect(plain.statusCode).toBe(202);
      expect(read.mock.calls.map(([, key]) => key)).not.toContain("cta");

      expect((await send(secret, ctaBody())).statusCode).toBe(202);
      expect(read.mock.calls.filter(([, key]) => key === "cta")).toHaveLength(1);

      // A row written behind the cache's back (another process) is not seen within the cache's life...
      await ctx.db.deleteFrom("cta_entries").where("account_id", "=", accountId).execute();
      await ctx.db
        .insertInto("cta_entries")
        .values({
          account_id: accountId,
          kind: "url",
          value: "https://other.example.com/",
          created_at: "2026-01-01T00:00:00.000Z",
        })
        .execute();
      expect((await send(secret, ctaBody())).statusCode).toBe(202);
      // ...while a change made through this process is seen at once.
      await addCtaEntry(ctx, accountId, "url", "https://third.example.com/", CLI_ORIGIN);
      const refused = await send(secret, ctaBody());
      expect(refused.json().error).toMatchObject({ code: "cta_not_whitelisted", param: "variables.url1" });
    } finally {
      read.mockRestore();
    }
  });
});
