/**
 * An account's CTA whitelist: added to and removed from by the CLI and the console, read by
 * sends through the settings cache (compiled once per read, not per send).
 */
import { requireAccountExists } from "../../accounts/accounts.js";
import { recordAudit } from "../../audit/record.js";
import { ctaEntrySnapshot } from "../../audit/snapshots.js";
import type { ChangeOrigin } from "../../audit/types.js";
import type { AppContext } from "../../context.js";
import type { CtaKind } from "../../db/schema.js";
import { inTransaction } from "../../db/transaction.js";
import { ApiError } from "../../errors.js";
import { isoNow } from "../../lib/clock.js";
import { type CtaEntry, parseCtaEntry } from "./entries.js";
import { type CtaWhitelist, compileWhitelist } from "./match.js";

export interface CtaEntryView {
  kind: CtaKind;
  value: string;
  created_at: string;
}

/** Entries per account: far more than DLT registrations need, few enough to match every send against. */
export const MAX_CTA_ENTRIES = 500;

const CACHE_KEY = "cta";

export async function addCtaEntry(
  ctx: AppContext,
  accountId: string,
  kind: CtaKind,
  raw: string,
  origin: ChangeOrigin,
): Promise<CtaEntryView> {
  const entry = parseCtaEntry(kind, raw);
  const row = { account_id: accountId, kind, value: entry.value, created_at: isoNow(ctx.clock) };
  await inTransaction(ctx, async (trx) => {
    await requireAccountExists(trx, accountId);
    const inserted = await trx
      .insertInto("cta_entries")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "kind", "value"]).doNothing())
      .returning("value")
      .executeTakeFirst();
    if (!inserted) {
      throw new ApiError("invalid_request", `${describe(entry)} is already whitelisted.`, "value");
    }
    const { count } = await trx
      .selectFrom("cta_entries")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    if (Number(count) > MAX_CTA_ENTRIES) {
      throw new ApiError(
        "invalid_request",
        `An account may whitelist at most ${MAX_CTA_ENTRIES} links and numbers; remove some first.`,
        "value",
      );
    }
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "cta_entry.created",
      target: { type: "cta_entry", id: `${kind}:${entry.value}` },
      after: ctaEntrySnapshot(entry),
    });
  });
  ctx.settingsCache.forget(accountId);
  return { kind, value: row.value, created_at: row.created_at };
}

/** The account's entries: URL prefixes first, each kind in order of its text. */
export async function listCtaEntries(ctx: AppContext, accountId: string): Promise<CtaEntryView[]> {
  await requireAccountExists(ctx.db, accountId);
  return ctx.db
    .selectFrom("cta_entries")
    .select(["kind", "value", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("kind", "desc")
    .orderBy("value")
    .execute();
}

/** Removes an entry, written in any form that parses to it (`HTTPS://DKY.IN` removes `https://dky.in/`). */
export async function removeCtaEntry(
  ctx: AppContext,
  accountId: string,
  kind: CtaKind,
  raw: string,
  origin: ChangeOrigin,
): Promise<{ kind: CtaKind; value: string }> {
  const entry = parseCtaEntry(kind, raw);
  await inTransaction(ctx, async (trx) => {
    const result = await trx
      .deleteFrom("cta_entries")
      .where("account_id", "=", accountId)
      .where("kind", "=", kind)
      .where("value", "=", entry.value)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) {
      throw new ApiError("not_found", `${describe(entry)} is not whitelisted for this account.`, "value");
    }
    await recordAudit(trx, ctx.clock, {
      accountId,
      environment: null,
      origin,
      action: "cta_entry.deleted",
      target: { type: "cta_entry", id: `${kind}:${entry.value}` },
      before: ctaEntrySnapshot(entry),
    });
  });
  ctx.settingsCache.forget(accountId);
  return { kind, value: entry.value };
}

/** What sends compare with: the account's entries, compiled, read through the settings cache. */
export function readCtaWhitelist(
  ctx: Pick<AppContext, "db" | "settingsCache">,
  accountId: string,
): Promise<CtaWhitelist> {
  return ctx.settingsCache.read(accountId, CACHE_KEY, async () => {
    const rows = await ctx.db
      .selectFrom("cta_entries")
      .select(["kind", "value"])
      .where("account_id", "=", accountId)
      .execute();
    // Stored values are canonical; parsing them again gives the parts the match compares.
    return compileWhitelist(rows.map((row) => parseCtaEntry(row.kind, row.value)));
  });
}

function describe(entry: CtaEntry): string {
  return entry.kind === "url" ? `URL prefix ${entry.value}` : `number ${entry.value}`;
}
