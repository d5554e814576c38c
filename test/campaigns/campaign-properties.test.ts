import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getBalance, sumLedger } from "../../src/accounts/ledger.js";
import { CampaignFeeder } from "../../src/campaigns/feed.js";
import type { AppContext } from "../../src/context.js";
import type { App } from "../../src/http/types.js";
import { DIALECTS } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { bearer, createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

/*
 * Any list of rows — good and bad numbers, repeats, names that make one part or three, a missing
 * or unknown variable — and any balance: every row is either accepted or refused with its index,
 * no number is accepted twice, the campaign's charge is exactly what its accepted rows cost, the
 * balance is the ledger's sum, and the feed turns the accepted rows, and only them, into messages.
 */

const TEMPLATE = "1107161234567890127";
const CONTENT = `Dear {#name#}, ${"your parcel is on its way and will reach you within two working days. ".repeat(2)}`;
const PRICE = 2_500;

const row = fc.record({
  to: fc.oneof(
    fc.integer({ min: 0, max: 12 }).map((n) => `+9198${String(n).padStart(8, "0")}`),
    fc.constantFrom("98765", "+14155550100", "+91123"),
  ),
  variables: fc.oneof(
    fc.constantFrom(
      { name: "Asha" },
      { name: "आशा" },
      { name: "x".repeat(31) },
      {},
      { name: "Ravi", extra: "1" },
    ),
  ),
});

describe.each(DIALECTS)("campaign acceptance for any rows and balance on %s", (dialect) => {
  const instances = useTestInstances(dialect, {
    env: { SMS_MAX_RECIPIENTS_PER_ACCOUNT_PER_HOUR: "1000000" },
  });
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  it("accepts or refuses every row once, charges exactly the accepted, and feeds exactly them", {
    timeout: 120_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 40 }),
        async (rows, credits) => {
          const balance = credits * PRICE;
          const { accountId, secret } = await createAccountWithKey(ctx, "sandbox", balance);
          await registerDlt(ctx, accountId, {
            senders: ["DAKIYA"],
            templates: [{ templateId: TEMPLATE, content: CONTENT }],
          });
          const response = await app.inject({
            method: "POST",
            url: "/v2/campaigns",
            payload: { name: "Any", template_id: TEMPLATE, sender: "DAKIYA", recipients: rows },
            headers: bearer(secret),
          });
          expect(response.statusCode, response.body).toBe(202);
          const campaign = response.json() as {
            id: string;
            accepted: number;
            rejected: number;
            cost: string;
            errors: Array<{ index: number; to: string }>;
          };
          const refused = campaign.errors.map((error) => error.index);
          expect(refused).toEqual([...new Set(refused)].sort((a, b) => a - b));
          expect(campaign.accepted + campaign.rejected).toBe(rows.length);
          expect(refused).toHaveLength(campaign.rejected);
          const acceptedRows = rows.filter((_, index) => !refused.includes(index));
          expect(new Set(acceptedRows.map((r) => r.to)).size).toBe(acceptedRows.length);

          const cost = Math.round(Number(campaign.cost) * 10_000);
          expect(await getBalance(ctx.db, accountId, "sandbox")).toBe(balance - cost);
          expect(await sumLedger(ctx.db, accountId, "sandbox")).toBe(balance - cost);

          await new CampaignFeeder(ctx).feed();
          const messages = await ctx.db
            .selectFrom("messages")
            .select(["recipient", "cost"])
            .where("campaign_id", "=", campaign.id)
            .execute();
          expect(messages.map((m) => m.recipient).sort()).toEqual(acceptedRows.map((r) => r.to).sort());
          expect(messages.reduce((sum, m) => sum + Number(m.cost), 0)).toBe(cost);
        },
      ),
      { numRuns: 20 },
    );
  });
});
