/**
 * The PE–TM chain (docs/dlt-compliance.md#pe-tm-chain-hash): the telemarketers that carry an
 * entity's messages after it, in order. Since December 2024 every commercial SMS carries the
 * SHA-256 of the principal entity's id and those ids, comma-joined without spaces, PE first.
 */
import { createHash } from "node:crypto";

/** A DLT id: digits only (DLT issues 19; kept as text, beyond safe integers). */
const DLT_ID = /^[0-9]{1,30}$/;
/** Aggregators pass the chain on; real chains hold one to three telemarketers. */
export const MAX_TM_CHAIN = 10;

/** A chain's ids, in order, checked; or the first reason it is not one. */
export function parseTmChain(ids: readonly string[]): { chain: string[] } | { problem: string } {
  const chain = ids.map((id) => id.trim());
  if (chain.length === 0) return { problem: "a PE–TM chain lists at least one telemarketer id" };
  if (chain.length > MAX_TM_CHAIN) {
    return { problem: `a PE–TM chain lists at most ${MAX_TM_CHAIN} telemarketer ids, got ${chain.length}` };
  }
  const bad = chain.find((id) => !DLT_ID.test(id));
  if (bad !== undefined) {
    return { problem: `telemarketer ids are DLT ids of 1 to 30 digits, got ${JSON.stringify(bad)}` };
  }
  return { chain };
}

/** Lower-case hex SHA-256 of `entityId,tm1,tm2,…`: what `tlv_tm` carries. */
export function peTmChainHash(entityId: string, chain: readonly string[]): string {
  return createHash("sha256")
    .update([entityId, ...chain].join(","))
    .digest("hex");
}

/**
 * The hashes of one route's messages, kept by entity and chain: a route sees a handful of
 * entities, so each is hashed once rather than per message.
 */
export class ChainHashes {
  static readonly MAX_KEPT = 10_000;
  readonly #kept = new Map<string, Buffer>();

  of(entityId: string, chain: readonly string[]): Buffer {
    const key = `${entityId},${chain.join(",")}`;
    let hash = this.#kept.get(key);
    if (hash === undefined) {
      if (this.#kept.size >= ChainHashes.MAX_KEPT) this.#kept.clear();
      hash = Buffer.from(peTmChainHash(entityId, chain));
      this.#kept.set(key, hash);
    }
    return hash;
  }
}
