import type { Transaction } from "kysely";
import type { Database, Db } from "./schema.js";

/** Items run in one transaction at most; those past it go in the next. */
const MAX_BURST_ITEMS = 256;

interface Waiting<Item, Result> {
  item: Item;
  settle(result: Result): void;
  fail(error: unknown): void;
}

/**
 * Runs the items that arrive in one turn of the event loop in one transaction, through `run`,
 * which answers each item's result in the order given. The burst is taken once the transaction
 * holds the connection, so items that arrive while it waits for it go too. Each item is answered
 * once the transaction has committed; if it fails, every item of the burst fails with it, and
 * nothing of any of them was written.
 */
export class TransactionBursts<Item, Result> {
  readonly #db: Db;
  readonly #run: (trx: Transaction<Database>, items: readonly Item[]) => Promise<Result[]>;
  #waiting: Array<Waiting<Item, Result>> = [];
  #flushPending = false;

  constructor(db: Db, run: (trx: Transaction<Database>, items: readonly Item[]) => Promise<Result[]>) {
    this.#db = db;
    this.#run = run;
  }

  add(item: Item): Promise<Result> {
    return new Promise((settle, fail) => {
      this.#waiting.push({ item, settle, fail });
      this.#scheduleFlush();
    });
  }

  #scheduleFlush(): void {
    if (this.#flushPending) return;
    this.#flushPending = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    let burst: Array<Waiting<Item, Result>> | undefined;
    try {
      const results = await this.#db.transaction().execute(async (trx) => {
        this.#flushPending = false;
        burst = this.#waiting.splice(0, MAX_BURST_ITEMS);
        if (this.#waiting.length > 0) this.#scheduleFlush();
        return this.#run(
          trx,
          burst.map((waiting) => waiting.item),
        );
      });
      for (const [index, waiting] of (burst ?? []).entries()) waiting.settle(results[index] as Result);
    } catch (error) {
      if (!burst) {
        // The transaction never began: every item waiting fails with it.
        this.#flushPending = false;
        burst = this.#waiting.splice(0);
      }
      for (const waiting of burst) waiting.fail(error);
    }
  }
}

/** Items of a burst by a key (an account and environment, say), each with its place in the burst. */
export function groupedBy<Item>(
  items: readonly Item[],
  keyOf: (item: Item) => string,
): Array<{ items: Item[]; places: number[] }> {
  const groups = new Map<string, { items: Item[]; places: number[] }>();
  items.forEach((item, place) => {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) {
      group.items.push(item);
      group.places.push(place);
    } else groups.set(key, { items: [item], places: [place] });
  });
  return [...groups.values()];
}
