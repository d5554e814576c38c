import { beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { matchesSlotType, type SlotType, slotTypeOf } from "../../src/dlt/variables.js";
import type { App } from "../../src/http/types.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/*
 * Typed DLT variables (docs/sms.md): `{#numeric#}`, `{#alphanumeric#}`, `{#url#}`, `{#urlott#}`,
 * `{#cbn#}` and `{#email#}` slots take values of their type, and no value holds a control
 * character; otherwise 422 invalid_variable with the variable as `param`, and nothing is charged.
 */

/** Pasted from the DLT portal with bare typed tags: they become numeric1, alphanumeric1, …, var1. */
const TYPED_TEMPLATE = "1107161234567890123";
const TYPED_CONTENT =
  "Order {#numeric#} ref {#alphanumeric#}: track {#url#} or {#urlott#}, call {#cbn#}, mail {#email#}. {#var#}";
/** Written with names that look typed: they are typed slots too. */
const NAMED_TEMPLATE = "1107161234567890124";
const NAMED_CONTENT = "Pay {#numeric2#} at {#url1#}, {#name#}.";

const TO = "+919876543210";
const HUNDRED_RUPEES = 1_000_000;
const VALID_VARIABLES = {
  numeric1: "1499.50",
  alphanumeric1: "PNR4821",
  url1: "https://dky.in/t/4821",
  urlott1: "http://dky.in/o/Ab3",
  cbn1: "1800-123-4567",
  email1: "help@dakiya.in",
  var1: "Thanks!",
};

const VALUES: Record<SlotType, { good: string[]; bad: string[] }> = {
  numeric: {
    good: ["4821", "0", "1499.50", "007", "123456789012345678901234567890"],
    bad: [
      "not a number",
      "",
      " 12",
      "12 ",
      "12a",
      "1.",
      ".5",
      "-5",
      "+5",
      "1,000",
      "1e5",
      "1.2.3",
      "१२३",
      "١٢٣",
      "１２",
    ],
  },
  alphanumeric: {
    good: ["PNR4821", "abc", "123", "AbC9"],
    bad: ["", "AB-12", "AB 12", "a_b", "AB12!", "टिकट1", "ÄB12"],
  },
  url: {
    good: [
      "https://dky.in/t/4821",
      "http://example.com",
      "HTTPS://EXAMPLE.COM/A?b=1#c",
      "https://10.0.0.1:8443/x",
    ],
    bad: [
      "javascript:alert(1)",
      "JavaScript://example.com/%0Aalert(1)",
      "data:text/html,<b>x</b>",
      "ftp://example.com/file",
      "example.com/t/4821",
      "//example.com/x",
      "https:example.com",
      "https://",
      "https:///path",
      "https://exa mple.com",
      "https://user:pw@evil.example",
      "https://bank.example@evil.in",
      "https://a\\b.example",
      "",
    ],
  },
  urlott: {
    good: ["https://dky.in/o/Ab3"],
    bad: ["javascript:alert(1)", "dky.in/o/Ab3", "mailto:a@b.in"],
  },
  cbn: {
    good: ["+919876543210", "18001234567", "1800-123-4567", "022 2345 6789", "+91 98765 43210", "112"],
    bad: [
      "call me",
      "",
      "12",
      "+",
      "98765-",
      "-98765",
      "+91--9876543210",
      "9876543210 ext 5",
      "(022) 2345",
      "1234567890123456",
    ],
  },
  email: {
    good: ["help@dakiya.in", "a.b+tag@mail.example.co.in", "X_Y@ex-ample.com"],
    bad: [
      "asha",
      "asha@",
      "@example.com",
      "asha@example",
      "asha @example.com",
      "a@b@c.in",
      "asha@exa_mple.com",
      "asha@-example.com",
      "",
    ],
  },
};

describe("typed DLT slots", () => {
  it("are the placeholders DLT's typed tags are numbered into", () => {
    expect(slotTypeOf("numeric1")).toBe("numeric");
    expect(slotTypeOf("alphanumeric12")).toBe("alphanumeric");
    expect(slotTypeOf("url3")).toBe("url");
    expect(slotTypeOf("urlott1")).toBe("urlott");
    expect(slotTypeOf("cbn1")).toBe("cbn");
    expect(slotTypeOf("email2")).toBe("email");
    for (const free of ["var1", "name", "otp", "numeric", "url", "numeric0", "url_1", "my_url1", "email1x"]) {
      expect(slotTypeOf(free), free).toBeUndefined();
    }
  });

  for (const [type, { good, bad }] of Object.entries(VALUES) as Array<
    [SlotType, (typeof VALUES)[SlotType]]
  >) {
    it(`${type}: takes ${good.length} good values and refuses ${bad.length} bad ones`, () => {
      for (const value of good) expect(matchesSlotType(type, value), JSON.stringify(value)).toBe(true);
      for (const value of bad) expect(matchesSlotType(type, value), JSON.stringify(value)).toBe(false);
    });
  }
});

describe.each(DIALECTS)("typed DLT variables in a send on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  let account: { accountId: string; secret: string };

  beforeAll(async () => {
    ({ ctx, app } = instances);
    account = await createAccountWithKey(ctx, "sandbox", HUNDRED_RUPEES);
    await registerDlt(ctx, account.accountId, {
      senders: ["DAKIYA"],
      templates: [
        { templateId: TYPED_TEMPLATE, content: TYPED_CONTENT },
        { templateId: NAMED_TEMPLATE, content: NAMED_CONTENT },
      ],
    });
  });

  function send(variables: Record<string, unknown>, templateId = TYPED_TEMPLATE) {
    return app.inject({
      method: "POST",
      url: "/v2/sms/send",
      payload: { to: TO, sender: "DAKIYA", template_id: templateId, variables },
      headers: bearer(account.secret),
    });
  }

  async function charged(): Promise<{ messages: number; balance: number }> {
    const messages = await ctx.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.accountId)
      .execute();
    const row = await ctx.db
      .selectFrom("balances")
      .select("balance")
      .where("account_id", "=", account.accountId)
      .where("environment", "=", "sandbox")
      .executeTakeFirstOrThrow();
    return { messages: messages.length, balance: Number(row.balance) };
  }

  it("sends good values of every type", async () => {
    const response = await send(VALID_VARIABLES);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json().text).toBe(
      "Order 1499.50 ref PNR4821: track https://dky.in/t/4821 or http://dky.in/o/Ab3, call 1800-123-4567, mail help@dakiya.in. Thanks!",
    );
  });

  it("refuses a bad value of each type with 422 invalid_variable naming the type, charging nothing", async () => {
    const before = await charged();
    const cases: Array<[string, string, RegExp]> = [
      ["numeric1", "not a number", /\{#numeric#\}.*digits with an optional decimal part/],
      ["numeric1", "1,499", /number/],
      ["alphanumeric1", "PNR-4821", /\{#alphanumeric#\}.*letters A-Z and digits/],
      ["url1", "javascript:alert(1)", /\{#url#\}.*http:\/\/ or https:\/\//],
      ["url1", "data:text/html,x", /http/],
      ["urlott1", "ftp://dky.in/o/1", /\{#urlott#\}/],
      ["cbn1", "call us", /\{#cbn#\}.*phone number/],
      ["email1", "help@dakiya", /\{#email#\}.*email address/],
    ];
    for (const [name, value, message] of cases) {
      const response = await send({ ...VALID_VARIABLES, [name]: value });
      expect(response.statusCode, `${name}=${value}: ${response.body}`).toBe(422);
      const error = response.json().error;
      expect(error).toMatchObject({ code: "invalid_variable", param: `variables.${name}` });
      expect(error.message).toMatch(message);
    }
    expect(await charged()).toEqual(before);
  });

  it("refuses a control character in any value, typed or not", async () => {
    const before = await charged();
    const controls = [
      "\n",
      "\r",
      "\t",
      "\u0007",
      "\u001b[31m",
      "\u007f",
      "\u0085",
      "\u009b",
      "\u2028",
      "\u2029",
    ];
    for (const control of controls) {
      for (const name of ["var1", "alphanumeric1"]) {
        const response = await send({ ...VALID_VARIABLES, [name]: `Hi${control}there` });
        expect(response.statusCode, JSON.stringify(control)).toBe(422);
        expect(response.json().error).toMatchObject({ code: "invalid_variable", param: `variables.${name}` });
        expect(response.json().error.message).toMatch(/control character \(U\+[0-9A-F]{4}\)/);
      }
    }
    expect(await charged()).toEqual(before);
    // Free text is otherwise free: Hindi, symbols, an emoji, an empty value.
    for (const text of ["नमस्ते", "€5 off & more", "🙂 ok", ""]) {
      const response = await send({ ...VALID_VARIABLES, var1: text });
      expect(response.statusCode, `${JSON.stringify(text)}: ${response.body}`).toBe(202);
    }
  });

  it("checks names first, then every length, then types (docs/sms.md's order)", async () => {
    const { numeric1: _numeric, ...withoutNumeric } = VALID_VARIABLES;
    const missing = await send({ ...withoutNumeric, url1: "javascript:alert(1)" });
    expect(missing.json().error).toMatchObject({ code: "missing_variable", param: "variables.numeric1" });
    const unknown = await send({ ...VALID_VARIABLES, url1: "javascript:x", coupon: "X" });
    expect(unknown.json().error).toMatchObject({ code: "unknown_variable", param: "variables.coupon" });
    // A bad type in one variable and a too-long value in a later one: the length is reported.
    const long = await send({ ...VALID_VARIABLES, numeric1: "abc", var1: "x".repeat(31) });
    expect(long.json().error).toMatchObject({ code: "variable_too_long", param: "variables.var1" });
    const typed = await send({ ...VALID_VARIABLES, url1: `https://dky.in/${"x".repeat(20)}` });
    expect(typed.json().error).toMatchObject({ code: "variable_too_long", param: "variables.url1" });
  });

  it("types placeholders named like DLT's numbered tags, and leaves other names free", async () => {
    const ok = await send(
      { numeric2: "250", url1: "https://dky.in/pay", name: "Asha, 2 items" },
      NAMED_TEMPLATE,
    );
    expect(ok.statusCode, ok.body).toBe(202);
    const bad = await send(
      { numeric2: "two fifty", url1: "https://dky.in/pay", name: "Asha" },
      NAMED_TEMPLATE,
    );
    expect(bad.json().error).toMatchObject({ code: "invalid_variable", param: "variables.numeric2" });
  });
});
