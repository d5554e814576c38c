import type { Transaction } from "kysely";
import type { Database, Db } from "../schema.js";

/*
 * Transaction bursts: the items (an SMS send, an OTP send, a verification) that arrive in one
 * turn of the event loop run in one transaction, a few multi-row statements for all of them
 * rather than a transaction of several statements each.
 *
 * Failure rule, all or none: a runner answers each item's own refusal as a result (the burst
 * commits the others); if the transaction itself throws (a failed statement, a failed COMMIT),
 * every item of the burst fails with that error and nothing of any of them was written. An item
 * is never run again alone, so each is written at most once, in one transaction, answered only
 * once that committed. (The delivery worker's write bursts, src/delivery/, take the other rule:
 * a failed burst's items are written again one by one; docs/development.md, "Write paths".)
 */

/** Items run in one transaction at most; those past it go in the next. */
const MAX_BURST_ITEMS = 256;

interface Waiting<Item, Result> {
  item: Item;
  settle(result: Result): void;
  fail(error: unknown): void;
}

/** How a burst's items are run: in groups (an account and environment, say), each in arrival order. */
export interface BurstRunner<Item, Result> {
  groupOf(item: Item): string;
  /**
   * Runs one group's items in the burst's transaction, answering each one's result in order; a
   * refusal is a result. A throw fails every item of the burst, of every group (all or none).
   */
  run(trx: Transaction<Database>, items: readonly Item[]): Promise<Result[]>;
}

/**
 * Runs the items that arrive in one turn of the event loop in one transaction, group by group.
 * The burst is taken once the transaction holds the connection, so items that arrive while it
 * waits for it go too. Each item is answered once the transaction has committed; if it fails,
 * every item of the burst fails with it, all or none (see above).
 */
export class TransactionBursts<Item, Result> {
  readonly #db: Db;
  readonly #runner: BurstRunner<Item, Result>;
  #waiting: Array<Waiting<Item, Result>> = [];
  #flushPending = false;

  constructor(db: Db, runner: BurstRunner<Item, Result>) {
    this.#db = db;
    this.#runner = runner;
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
        return this.#runGroups(
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

  /** Each item's result, by its place in the burst. */
  async #runGroups(trx: Transaction<Database>, items: readonly Item[]): Promise<Result[]> {
    const groups = new Map<string, { items: Item[]; places: number[] }>();
    items.forEach((item, place) => {
      const key = this.#runner.groupOf(item);
      const group = groups.get(key);
      if (group) {
        group.items.push(item);
        group.places.push(place);
      } else groups.set(key, { items: [item], places: [place] });
    });
    const results: Result[] = new Array(items.length);
    for (const group of groups.values()) {
      const answers = await this.#runner.run(trx, group.items);
      group.places.forEach((place, index) => {
        results[place] = answers[index] as Result;
      });
    }
    return results;
  }
}

type RunnerOf<Ctx, Item, Result> = (ctx: Ctx) => BurstRunner<Item, Result>;

const queues = new WeakMap<object, Map<RunnerOf<never, never, unknown>, TransactionBursts<never, unknown>>>();

/**
 * The bursts on `ctx`'s database that `runnerOf` runs, all or none: one queue per context and
 * runner, made on first use.
 */
export function burstQueue<Ctx extends { db: Db }, Item, Result>(
  ctx: Ctx,
  runnerOf: RunnerOf<Ctx, Item, Result>,
): TransactionBursts<Item, Result> {
  let byRunner = queues.get(ctx);
  if (!byRunner) {
    byRunner = new Map();
    queues.set(ctx, byRunner);
  }
  const key = runnerOf as unknown as RunnerOf<never, never, unknown>;
  let queue = byRunner.get(key) as TransactionBursts<Item, Result> | undefined;
  if (!queue) {
    queue = new TransactionBursts(ctx.db, runnerOf(ctx));
    byRunner.set(key, queue as unknown as TransactionBursts<never, unknown>);
  }
  return queue;
}
