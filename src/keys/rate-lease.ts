import type { AppContext } from "../context.js";

/** A key's token bucket: refilled at `perMinute`, holding at most `burst` requests. */
export interface KeyRate {
  perMinute: number;
  burst: number;
}

/**
 * Tokens this process took from a key's shared bucket in one statement and spends on its own
 * requests, so a busy key costs a write every few hundred requests instead of one per request.
 * Taken tokens are already counted in the shared bucket: a lease can only make the limit
 * stricter (by the tokens it holds unspent), never looser.
 */
export interface TokenLease {
  /** The rate the tokens were taken at: a key whose rate changed drops its lease. */
  perMinute: number;
  burst: number;
  /** Tokens taken and not spent yet. */
  tokens: number;
  /** How many the lease took: the next one's size is measured against it. */
  size: number;
  /** The shared bucket's "full again" instant right after the lease was taken, in µs. */
  fullAtUs: number;
  /**
   * The time the bucket judged the lease at, in µs: this process's own, or a later one another
   * instance had brought; the lease's requests never read the bucket at an earlier time.
   */
  bucketNowUs: number;
  /** Unspent tokens are given up then, so no process sits on a share of the bucket for long. */
  expiresAtUs: number;
  /** A lease being taken: the key's other requests wait for it instead of taking one each. */
  pending: Promise<void> | undefined;
}

/** How long a lease's tokens may be spent: short, so other instances soon see what is left. */
export const LEASE_LIFETIME_US = 200_000;
/**
 * At most this share of a key's burst is leased at once, and a key whose burst makes that less
 * than two tokens is counted request by request: what an instance holds unspent is the limit's
 * imprecision, so it stays within a few percent of the burst (100 by default: 2 tokens).
 */
const LEASE_SHARE_OF_BURST = 0.02;
/** Beyond this many keys a process forgets the leases that have expired. */
const MAX_REMEMBERED_KEYS = 10_000;

const leasesByContext = new WeakMap<AppContext, Map<string, TokenLease>>();

/** The largest lease for `rate`; 1 means every request goes to the shared bucket. */
export function maxLeaseSize(rate: KeyRate): number {
  return Math.max(1, Math.floor(rate.burst * LEASE_SHARE_OF_BURST));
}

/** This process's leases, one per key that has one. */
export function leasesOf(ctx: AppContext): Map<string, TokenLease> {
  let leases = leasesByContext.get(ctx);
  if (!leases) {
    leases = new Map();
    leasesByContext.set(ctx, leases);
  }
  return leases;
}

/** Whether `lease` may still pay for a request at `nowUs` under `rate`. */
export function canSpend(lease: TokenLease, rate: KeyRate, nowUs: number): boolean {
  return (
    lease.tokens > 0 &&
    nowUs < lease.expiresAtUs &&
    lease.perMinute === rate.perMinute &&
    lease.burst === rate.burst
  );
}

/**
 * The size of the next lease: twice the last if it was spent before expiring (the key is busy),
 * what was spent of it if not, one for a key's first, within [1, maxLeaseSize].
 */
export function nextLeaseSize(previous: TokenLease | undefined, rate: KeyRate, nowUs: number): number {
  if (!previous || previous.perMinute !== rate.perMinute || previous.burst !== rate.burst) return 1;
  const spent = previous.size - previous.tokens;
  const size = previous.tokens === 0 && nowUs < previous.expiresAtUs ? previous.size * 2 : spent;
  return Math.min(maxLeaseSize(rate), Math.max(1, size));
}

/** Forgets expired leases once many keys are remembered. */
export function forgetExpired(leases: Map<string, TokenLease>, nowUs: number): void {
  if (leases.size < MAX_REMEMBERED_KEYS) return;
  for (const [keyId, lease] of leases) {
    if (!lease.pending && lease.expiresAtUs <= nowUs) leases.delete(keyId);
  }
}
