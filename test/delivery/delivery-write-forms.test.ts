import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { MessagesTable } from "../../src/db/schema.js";
import type { AcceptingRoute, Carrier, Receipt } from "../../src/delivery/carrier.js";
import { type ClaimedMessage, claimDueMessages } from "../../src/delivery/claims.js";
import { failMessage } from "../../src/delivery/failures.js";
import {
  type Acceptance,
  acceptancesInBursts,
  markSubmitted,
  recordAcceptances,
  recordCarriedPart,
} from "../../src/delivery/status.js";
import { isoAfter, isoNow } from "../../src/lib/clock.js";
import { applyReceipt, receiptsInBursts } from "../../src/receipts/receipts.js";
import { parseReceiptText, toReceipt } from "../../src/receipts/smpp-receipt.js";
import { sendSms } from "../../src/sms/send.js";
import { openTestContext, TestClock } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { registerDlt } from "../helpers/dlt-fixtures.js";
import { createAccountWithKey } from "../helpers/fixtures.js";

/*
 * Acceptances and receipts are written one at a time (markSubmitted or recordAcceptances of one,
 * applyReceipt: the providers' callbacks) or in bursts (acceptancesInBursts: the delivery
 * worker; receiptsInBursts: an SMSC's stream). Each case runs its steps on three messages of one
 * account through the one-at-a-time form, and on three messages of another account through the
 * burst form, the three messages' writes of a step together; the rows each leaves (messages,
 * carrier_messages, ledger_entries, balances, events) and the answers must be the same.
 */

const CARRIER = "scripted";
const ROUTE: AcceptingRoute = { name: "primary", receiptCarrier: CARRIER };
const OWNER = "wkr_forms";
const SHORT_TEMPLATE = "1107161234567890123";
const LONG_TEMPLATE = "1107161234567890124";
/** 170 GSM-7 characters with the code: two parts. */
const LONG_TEXT = `Your code is {#code#}. ${"Keep it to yourself; Dakiya will never ask for it. ".repeat(3)}`;
const COPIES = 3;

/** A part of the case's message, by number, or a carrier message id no one sent. */
type PartName = 1 | 2 | "unknown";
/** The SMPP receipt status a report carries (DELIVRD, UNDELIV, REJECTD, …). */
type Report = { part: PartName; stat: string; err?: string };

type Step =
  /** The carrier accepted the whole message, with reports it already knows (the sandbox's). */
  | { accept: { parts: 1 | 2; carriedBefore?: number; reports?: Report[] } }
  /** A part of a long message accepted while the rest is still to go. */
  | { carry: 1 }
  /** The message will never be accepted whole (failed, or undelivered with the carried parts charged). */
  | { fail: true }
  | { receipts: Report[] };

interface Case {
  name: string;
  segments: 1 | 2;
  steps: Step[];
  /** The status each message ends in, and whether any of its charge went back. */
  ends: MessagesTable["status"];
  refunded?: true;
}

const CASES: Case[] = [
  {
    name: "acceptance of a single-part message",
    ends: "submitted",
    segments: 1,
    steps: [{ accept: { parts: 1 } }],
  },
  {
    name: "acceptance of a two-part message",
    ends: "submitted",
    segments: 2,
    steps: [{ accept: { parts: 2 } }],
  },
  {
    name: "acceptance with every part reported delivered (the sandbox's)",
    ends: "delivered",
    segments: 2,
    steps: [{ accept: { parts: 2, reports: [delivrd(1), delivrd(2)] } }],
  },
  {
    name: "acceptance with a part reported undelivered (the sandbox's)",
    ends: "undelivered",
    segments: 2,
    steps: [{ accept: { parts: 2, reports: [delivrd(1), { part: 2, stat: "UNDELIV", err: "001" }] } }],
  },
  {
    name: "a receipt: delivered",
    ends: "delivered",
    segments: 1,
    steps: [{ accept: { parts: 1 } }, { receipts: [delivrd(1)] }],
  },
  {
    name: "a receipt: undelivered (charged still: the part went out)",
    ends: "undelivered",
    segments: 1,
    steps: [{ accept: { parts: 1 } }, { receipts: [{ part: 1, stat: "UNDELIV", err: "011" }] }],
  },
  {
    name: "a receipt: failed (rejected by the SMSC)",
    ends: "undelivered",
    segments: 1,
    steps: [{ accept: { parts: 1 } }, { receipts: [{ part: 1, stat: "REJECTD" }] }],
  },
  {
    name: "a duplicate receipt",
    ends: "delivered",
    segments: 1,
    steps: [{ accept: { parts: 1 } }, { receipts: [delivrd(1), delivrd(1)] }, { receipts: [delivrd(1)] }],
  },
  {
    name: "a receipt before its acceptance is recorded, and again after",
    ends: "delivered",
    segments: 1,
    steps: [{ receipts: [delivrd(1)] }, { accept: { parts: 1 } }, { receipts: [delivrd(1)] }],
  },
  {
    name: "a receipt for a carried part before the message's acceptance",
    ends: "delivered",
    segments: 2,
    steps: [
      { carry: 1 },
      { receipts: [delivrd(1)] },
      { accept: { parts: 2, carriedBefore: 1 } },
      { receipts: [delivrd(2)] },
    ],
  },
  {
    name: "a carried part reported undelivered before the message's acceptance",
    ends: "undelivered",
    segments: 2,
    steps: [
      { carry: 1 },
      { receipts: [{ part: 1, stat: "UNDELIV", err: "034" }] },
      { accept: { parts: 2, carriedBefore: 1 } },
    ],
  },
  {
    name: "a receipt for an unknown carrier id",
    ends: "submitted",
    segments: 1,
    steps: [{ accept: { parts: 1 } }, { receipts: [delivrd("unknown")] }],
  },
  {
    name: "receipts for the parts of a two-part message: delivered",
    ends: "delivered",
    segments: 2,
    steps: [{ accept: { parts: 2 } }, { receipts: [delivrd(2), delivrd(1)] }],
  },
  {
    name: "receipts for the parts of a two-part message: one undelivered",
    ends: "undelivered",
    segments: 2,
    steps: [{ accept: { parts: 2 } }, { receipts: [delivrd(1), { part: 2, stat: "UNDELIV", err: "001" }] }],
  },
  {
    name: "a failed message: refunded, a late receipt changes nothing",
    ends: "failed",
    refunded: true,
    segments: 1,
    steps: [{ fail: true }, { receipts: [delivrd(1)] }],
  },
  {
    name: "part 1 carried, then the message fails: partly refunded, then part 1's receipt",
    ends: "undelivered",
    refunded: true,
    segments: 2,
    steps: [{ carry: 1 }, { fail: true }, { receipts: [delivrd(1)] }],
  },
];

function delivrd(part: PartName): Report {
  return { part, stat: "DELIVRD" };
}

type Form = "one_at_a_time" | "burst";

/** The messages of one form's run of a case, and how to write through that form. */
class World {
  readonly answers: unknown[] = [];

  constructor(
    readonly ctx: AppContext,
    readonly form: Form,
    readonly accountId: string,
    readonly messages: ClaimedMessage[],
  ) {}

  carrierId(index: number, part: PartName): string {
    return part === "unknown" ? "unknown" : `${this.form}-${this.messages[index]?.id}-${part}`;
  }

  receipt(index: number, report: Report): Receipt {
    const text = parseReceiptText(`id:x stat:${report.stat} err:${report.err ?? "000"}`);
    if (!text) throw new Error("an unreadable receipt text");
    return toReceipt(CARRIER, this.carrierId(index, report.part), text);
  }

  async run(step: Step): Promise<void> {
    const indexes = this.messages.map((_, index) => index);
    if ("carry" in step) {
      for (const index of indexes) {
        const part = {
          part: step.carry,
          carrierMessageId: this.carrierId(index, step.carry),
          receiptCarrier: CARRIER,
        };
        this.answers.push(await recordCarriedPart(this.ctx, this.lease(index), CARRIER, part, ROUTE));
      }
      return;
    }
    if ("fail" in step) {
      const error = { code: "ESME_RINVDSTADR", message: "The SMSC refused the destination." };
      for (const index of indexes) {
        this.answers.push(await failMessage(this.ctx, this.messageId(index), error, OWNER));
      }
      return;
    }
    if ("accept" in step) {
      const acceptances = indexes.map((index) => this.acceptance(index, step.accept));
      if (this.form === "burst") {
        const accept = acceptancesInBursts(this.ctx);
        this.answers.push(...(await Promise.all(acceptances.map((acceptance) => accept(acceptance)))));
        return;
      }
      for (const acceptance of acceptances) {
        // markSubmitted takes no parts carried before: those go through the list form, of one.
        this.answers.push(
          acceptance.recordedParts
            ? (await recordAcceptances(this.ctx, [acceptance]))[0]
            : await markSubmitted(
                this.ctx,
                this.lease(acceptances.indexOf(acceptance)),
                CARRIER,
                acceptance.carrierMessageIds,
                acceptance.receipts,
                undefined,
                ROUTE,
              ),
        );
      }
      return;
    }
    const receipts = indexes.flatMap((index) => step.receipts.map((report) => this.receipt(index, report)));
    if (this.form === "burst") {
      const receive = receiptsInBursts(this.ctx);
      this.answers.push(...(await Promise.all(receipts.map((receipt) => receive(receipt)))));
      return;
    }
    for (const receipt of receipts) this.answers.push(await applyReceipt(this.ctx, receipt));
  }

  private messageId(index: number): string {
    return (this.messages[index] as ClaimedMessage).id;
  }

  private lease(index: number) {
    return { messageId: this.messageId(index), owner: OWNER };
  }

  private acceptance(
    index: number,
    { parts, carriedBefore, reports }: { parts: 1 | 2; carriedBefore?: number; reports?: Report[] },
  ): Acceptance {
    const ids = [1, 2].slice(0, parts).map((part) => this.carrierId(index, part as PartName));
    return {
      message: this.messages[index] as ClaimedMessage,
      owner: OWNER,
      carrier: CARRIER,
      carrierMessageIds: ids,
      route: ROUTE,
      receipts: (reports ?? []).map((report) => this.receipt(index, report)),
      ...(carriedBefore ? { recordedParts: carriedBefore } : {}),
    };
  }

  /** The rows the account's messages left, with ids that differ between the forms named alike. */
  async rows() {
    const { db } = this.ctx;
    const ids = this.messages.map((message) => message.id);
    const messages = await db
      .selectFrom("messages")
      .selectAll()
      .where("account_id", "=", this.accountId)
      .execute();
    const parts = await db
      .selectFrom("carrier_messages")
      .selectAll()
      .where("message_id", "in", ids)
      .orderBy("message_id")
      .orderBy("part")
      .execute();
    const ledger = await db
      .selectFrom("ledger_entries")
      .select(["environment", "amount", "balance_after", "reason", "reference", "created_at"])
      .where("account_id", "=", this.accountId)
      .execute();
    const balances = await db
      .selectFrom("balances")
      .select(["environment", "balance", "updated_at"])
      .where("account_id", "=", this.accountId)
      .orderBy("environment")
      .execute();
    const events = await db
      .selectFrom("events")
      .select(["environment", "type", "data", "created_at", "fanned_out_at"])
      .where("account_id", "=", this.accountId)
      .orderBy("txid")
      .orderBy("seq")
      .execute();
    const byMessage = <T extends { id?: string; message_id?: string }>(rows: T[]) =>
      [...rows].sort(
        (a, b) => ids.indexOf(a.id ?? a.message_id ?? "") - ids.indexOf(b.id ?? b.message_id ?? ""),
      );
    const rows = {
      messages: byMessage(messages),
      parts: byMessage(parts),
      // Entries of one transaction share a time: in the order of the messages they reference.
      ledger: [...ledger]
        .map((entry) => ({
          ...entry,
          amount: Number(entry.amount),
          balance_after: Number(entry.balance_after),
        }))
        .sort(
          (a, b) =>
            a.created_at.localeCompare(b.created_at) ||
            ids.indexOf(a.reference ?? "") - ids.indexOf(b.reference ?? "") ||
            a.reason.localeCompare(b.reason),
        ),
      balances: balances.map((row) => ({ ...row, balance: Number(row.balance) })),
      events: events.map((event) => ({ ...event, data: JSON.parse(event.data) as unknown })),
      answers: this.answers,
    };
    let text = JSON.stringify(rows);
    for (const [index, id] of ids.entries()) text = text.replaceAll(id, `message-${index}`);
    text = text.replaceAll(this.accountId, "account").replaceAll(`${this.form}-`, "");
    return JSON.parse(text) as typeof rows;
  }
}

describe.each(DIALECTS)("acceptances and receipts, one at a time and in bursts, on %s", (dialect) => {
  let database: TestDatabase;
  let ctx: AppContext;
  const idle: Carrier = {
    name: CARRIER,
    send: async () => ({ outcome: "retryable", errorCode: "idle", errorMessage: "Never sends." }),
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    ctx = await openTestContext(database.url, { clock: new TestClock(), liveCarriers: { sms: idle } });
  });

  afterAll(async () => {
    await ctx?.close();
    await database?.drop();
  });

  async function world(form: Form, segments: 1 | 2): Promise<World> {
    const { accountId, keyId } = await createAccountWithKey(ctx, "live", 10_000_000);
    await registerDlt(ctx, accountId, {
      templates: [
        { templateId: SHORT_TEMPLATE, content: "Your code is {#code#}. -Dakiya" },
        { templateId: LONG_TEMPLATE, content: LONG_TEXT },
      ],
    });
    const principal = { accountId, environment: "live" as const, keyId };
    const sent: string[] = [];
    for (let copy = 0; copy < COPIES; copy++) {
      const { id } = await sendSms(ctx, principal, {
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: segments === 1 ? SHORT_TEMPLATE : LONG_TEMPLATE,
        variables: { code: "1234" },
      });
      sent.push(id);
    }
    const claimed = await claimDueMessages(ctx.db, ctx.dialect, {
      owner: OWNER,
      now: isoNow(ctx.clock),
      leaseUntil: isoAfter(ctx.clock, 3_600),
      limit: 100,
    });
    // In the order they were sent, which the ledger's entries follow.
    const messages = sent.map((id) => claimed.find((message) => message.id === id) as ClaimedMessage);
    expect(messages.map((message) => message.segments)).toEqual(Array(COPIES).fill(segments));
    return new World(ctx, form, accountId, messages);
  }

  it.each(CASES)("$name", async ({ segments, steps, ends, refunded }) => {
    const alone = await world("one_at_a_time", segments);
    const together = await world("burst", segments);
    for (const step of steps) {
      await alone.run(step);
      await together.run(step);
    }
    const reference = await alone.rows();
    expect(reference.messages.map((message) => message.status)).toEqual(Array(COPIES).fill(ends));
    const refunds = reference.ledger.filter((entry) => entry.reason === "sms_refund");
    expect(refunds).toHaveLength(refunded ? COPIES : 0);
    expect(await together.rows()).toEqual(reference);
  });
});
