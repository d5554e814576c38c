import { performance } from "node:perf_hooks";

/** How long a read stays in use: a change made elsewhere shows within this (and the read's own time). */
export const SETTINGS_CACHE_MS = 500;
/** Past this many entries the cache starts over rather than track which to drop. */
const MAX_ENTRIES = 20_000;

interface Entry {
  value: Promise<unknown>;
  expiresAt: number;
}

/**
 * What sends read of an account's configuration (DLT senders and templates, OTP settings),
 * kept for half a second. Sends read these on every request but they change rarely; API keys are
 * not cached, so a deleted key fails at once.
 *
 * A change made through this process (`forget`) shows at once; one made by another process
 * (another server, the CLI) within `SETTINGS_CACHE_MS`, as every entry expires by then. Reads
 * of the same entry that arrive together share one query.
 */
export class SettingsCache {
  /** Each account's entries, by key. */
  readonly #accounts = new Map<string, Map<string, Entry>>();
  #size = 0;

  /** The cached value of `key` for `accountId`, or what `load` reads (then kept). */
  read<T>(accountId: string, key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const cached = this.#accounts.get(accountId)?.get(key);
    if (cached && cached.expiresAt > now) return cached.value as Promise<T>;

    if (this.#size >= MAX_ENTRIES) this.clear();
    let entries = this.#accounts.get(accountId);
    if (!entries) {
      entries = new Map();
      this.#accounts.set(accountId, entries);
    }
    const value = load();
    const entry: Entry = { value, expiresAt: now + SETTINGS_CACHE_MS };
    if (!entries.has(key)) this.#size += 1;
    entries.set(key, entry);
    // A failed read is not kept. (A read that a change overtook is gone already: `forget`
    // dropped its entry, so only the callers that joined it before the change see its result.)
    value.catch(() => {
      if (this.#accounts.get(accountId) === entries && entries.get(key) === entry) {
        entries.delete(key);
        this.#size -= 1;
      }
    });
    return value;
  }

  /** Drops everything cached of `accountId`: call after any change to its senders, templates or settings. */
  forget(accountId: string): void {
    const entries = this.#accounts.get(accountId);
    if (!entries) return;
    this.#size -= entries.size;
    this.#accounts.delete(accountId);
  }

  clear(): void {
    this.#accounts.clear();
    this.#size = 0;
  }
}
