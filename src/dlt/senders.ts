/**
 * The DLT headers (senders) of an account, as registered on the DLT portal: sends and templates
 * are checked against them (docs/dlt-senders.md).
 */

import { requireAccountExists } from "../accounts/accounts.js";
import { recordAudit } from "../audit/record.js";
import { senderSnapshot } from "../audit/snapshots.js";
import type { ChangeOrigin } from "../audit/types.js";
import type { AppContext } from "../context.js";
import type { DbOrTrx, Environment } from "../db/schema.js";
import { inTransaction } from "../db/transaction.js";
import { ApiError } from "../errors.js";
import { isoNow } from "../lib/clock.js";

export interface Sender {
  sender: string;
  created_at: string;
}

/** Transactional and service-implicit headers: 6 letters. */
export const LETTER_HEADER = /^[A-Z]{6}$/;

/** Promotional and (since May 2025) service-explicit headers: 6 digits, the first the consumer preference category. */
export const DIGIT_HEADER = /^[0-9]{6}$/;

export async function addSender(
  ctx: AppContext,
  accountId: string,
  sender: string,
  origin: ChangeOrigin,
): Promise<Sender> {
  const header = normaliseHeader(sender);
  if (!LETTER_HEADER.test(header) && !DIGIT_HEADER.test(header)) {
    throw new ApiError(
      "invalid_request",
      `sender ${JSON.stringify(sender)} is not a DLT header: 6 letters A-Z for transactional and ` +
        "service-implicit templates, or 6 digits for promotional and service-explicit ones.",
      "sender",
    );
  }
  const row = { account_id: accountId, sender: header, created_at: isoNow(ctx.clock) };
  await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    const inserted = await trx
      .insertInto("senders")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "sender"]).doNothing())
      .returning("sender")
      .executeTakeFirst();
    if (!inserted) {
      throw new ApiError("invalid_request", `sender ${header} is already registered.`, "sender");
    }
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "sender.created",
      target: { type: "sender", id: header },
      after: senderSnapshot(row),
    });
  });
  ctx.settingsCache.forget(accountId);
  return { sender: row.sender, created_at: row.created_at };
}

export async function listSenders(ctx: AppContext, accountId: string): Promise<Sender[]> {
  await requireAccountExists(ctx.db, accountId);
  return ctx.db
    .selectFrom("senders")
    .select(["sender", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("sender")
    .execute();
}

export interface RemovedSender {
  sender: string;
  /** Environments whose OTP settings had it as the SMS sender, and now have none. */
  otp_settings_cleared: Environment[];
}

/**
 * Unregisters a header. From then on sends under it are refused (`unknown_sender`), and SMS
 * OTPs too: the OTP settings that named it lose their SMS sender in the same transaction
 * (`channel_not_configured` until another is chosen). Templates keep their DLT link to the
 * header but list only registered senders, so they show it again if it is registered again.
 * Messages already queued under it still go out (docs/dlt-senders.md).
 */
export async function removeSender(
  ctx: AppContext,
  accountId: string,
  sender: string,
  origin: ChangeOrigin,
): Promise<RemovedSender> {
  const header = normaliseHeader(sender);
  const removed = await inTransaction(ctx, async (trx) => {
    const result = await trx
      .deleteFrom("senders")
      .where("account_id", "=", accountId)
      .where("sender", "=", header)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) {
      throw new ApiError("not_found", `No sender ${header} on this account.`, "sender");
    }
    const cleared = await trx
      .updateTable("otp_settings")
      .set({ sms_sender: null, updated_at: isoNow(ctx.clock) })
      .where("account_id", "=", accountId)
      .where("sms_sender", "=", header)
      .returning("environment")
      .execute();
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "sender.deleted",
      target: { type: "sender", id: header },
      before: senderSnapshot({ sender: header }),
    });
    return { sender: header, otp_settings_cleared: cleared.map((row) => row.environment).sort() };
  });
  ctx.settingsCache.forget(accountId);
  return removed;
}

/** `invalid_request` (param `senders`) unless every one of `senders` is registered for the account. */
export async function requireRegisteredSenders(
  db: DbOrTrx,
  accountId: string,
  senders: readonly string[],
): Promise<void> {
  const registered = await db
    .selectFrom("senders")
    .select("sender")
    .where("account_id", "=", accountId)
    .where("sender", "in", senders)
    .execute();
  const known = new Set(registered.map((r) => r.sender));
  const unknown = senders.filter((s) => !known.has(s));
  if (unknown.length > 0) {
    throw new ApiError(
      "invalid_request",
      unknown.length === 1
        ? `sender ${unknown[0]} is not registered for this account: add it first.`
        : `senders ${unknown.join(", ")} are not registered for this account: add them first.`,
      "senders",
    );
  }
}

/** The send path's sender check: one query on the (account_id, sender) primary key. Exact match. */
export async function senderExists(db: DbOrTrx, accountId: string, sender: string): Promise<boolean> {
  const row = await senderQuery(db, accountId, sender).executeTakeFirst();
  return row !== undefined;
}

/** The query of `senderExists`: a row if the sender is registered. */
export function senderQuery(db: DbOrTrx, accountId: string, sender: string) {
  return db
    .selectFrom("senders")
    .select("sender")
    .where("account_id", "=", accountId)
    .where("sender", "=", sender);
}

/** A batch send's sender check: which of `senders` are registered (exact match), in one query. */
export async function findSenders(
  db: DbOrTrx,
  accountId: string,
  senders: readonly string[],
): Promise<Set<string>> {
  if (senders.length === 0) return new Set();
  const rows = await db
    .selectFrom("senders")
    .select("sender")
    .where("account_id", "=", accountId)
    .where("sender", "in", [...new Set(senders)])
    .execute();
  return new Set(rows.map((row) => row.sender));
}

export async function registeredSenders(db: DbOrTrx, accountId: string): Promise<Set<string>> {
  const rows = await db.selectFrom("senders").select("sender").where("account_id", "=", accountId).execute();
  return new Set(rows.map((row) => row.sender));
}

export function normaliseHeader(sender: string): string {
  return sender.trim().toUpperCase();
}
