import { performance } from "node:perf_hooks";

/** How long a read stays in use: a change made elsewhere shows within this (and the read's own time). */
export const SETTINGS_CACHE_MS = 500;
/** Past this many entries the cache starts over rather than track which to drop. */
const MAX_ENTRIES = 20_000;

interface Entry {
  value: Promise<unknown>;
  expiresAt: number;
}

interface AccountEntries {
  /** Bumped by every change to the account: a read begun before it is not kept. */
  generation: number;
  entries: Map<string, Entry>;
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
  readonly #accounts = new Map<string, AccountEntries>();
  #size = 0;

  /** The cached value of `key` for `accountId`, or what `load` reads (then kept). */
  read<T>(accountId: string, key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const cached = this.#accounts.get(accountId)?.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value as Promise<T>;

    if (this.#size >= MAX_ENTRIES) this.clear();
    const account = this.#account(accountId);
    const generation = account.generation;
    const value = load();
    const entry: Entry = { value, expiresAt: now + SETTINGS_CACHE_MS };
    if (!account.entries.has(key)) this.#size += 1;
    account.entries.set(key, entry);
    value.then(
      () => {
        // A change landed while this read ran: its result may predate the change.
        if (account.generation !== generation && account.entries.get(key) === entry) {
          account.entries.delete(key);
          this.#size -= 1;
        }
      },
      () => {
        if (account.entries.get(key) === entry) {
          account.entries.delete(key);
          this.#size -= 1;
        }
      },
    );
    return value;
  }

  /** Drops everything cached of `accountId`: call after any change to its senders, templates or settings. */
  forget(accountId: string): void {
    const account = this.#accounts.get(accountId);
    if (!account) return;
    account.generation += 1;
    this.#size -= account.entries.size;
    account.entries.clear();
  }

  clear(): void {
    for (const account of this.#accounts.values()) {
      account.generation += 1;
      account.entries.clear();
    }
    this.#accounts.clear();
    this.#size = 0;
  }

  #account(accountId: string): AccountEntries {
    let account = this.#accounts.get(accountId);
    if (!account) {
      account = { generation: 0, entries: new Map() };
      this.#accounts.set(accountId, account);
    }
    return account;
  }
}
