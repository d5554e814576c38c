import type { AppContext } from "../context.js";
import type { DbOrTrx } from "../db/schema.js";
import type { ApiError } from "../errors.js";
import { queuePreparedSends } from "./queue-sends.js";
import type { RecipientScope } from "./recipient-cap.js";
import type { PreparedSms } from "./send.js";

/** Sends queued in one transaction at most; those past it go in the next. */
const MAX_BURST_SENDS = 256;

interface WaitingSend {
  scope: RecipientScope;
  sms: PreparedSms;
  settle(refusal: ApiError | undefined): void;
  fail(error: unknown): void;
}

/**
 * SQLite: checked sends with no answer to store (POST /v2/sms/send without an Idempotency-Key)
 * that arrive in one turn of the event loop are queued in one transaction, as a batch's items
 * are (queue-sends.ts): per account and environment, one claim of their numbers, one guarded
 * count, one guarded debit, and multi-row inserts, where each send alone took a transaction of
 * five statements. Each is refused or accepted as it would have been alone, in arrival order,
 * and answered once the transaction has committed. A failure of the transaction itself (not a
 * refusal) fails every send in it, and none of them was written.
 */
export function queueInBurst(
  ctx: AppContext,
  scope: RecipientScope,
  sms: PreparedSms,
): Promise<ApiError | undefined> {
  let bursts = burstsByContext.get(ctx);
  if (!bursts) {
    bursts = new SendBursts(ctx);
    burstsByContext.set(ctx, bursts);
  }
  return bursts.queue(scope, sms);
}

const burstsByContext = new WeakMap<AppContext, SendBursts>();

class SendBursts {
  readonly #ctx: AppContext;
  #waiting: WaitingSend[] = [];
  #flushPending = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  queue(scope: RecipientScope, sms: PreparedSms): Promise<ApiError | undefined> {
    return new Promise((settle, fail) => {
      this.#waiting.push({ scope, sms, settle, fail });
      this.#scheduleFlush();
    });
  }

  /**
   * After the event loop's current turn, when the sends that arrived in it are all waiting; the
   * burst is taken once the transaction holds the connection, so sends that arrive while it
   * waits for it go too.
   */
  #scheduleFlush(): void {
    if (this.#flushPending) return;
    this.#flushPending = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    let burst: WaitingSend[] | undefined;
    try {
      const refusals = await this.#ctx.db.transaction().execute(async (trx) => {
        this.#flushPending = false;
        burst = this.#waiting.splice(0, MAX_BURST_SENDS);
        if (this.#waiting.length > 0) this.#scheduleFlush();
        return queueBurst(trx, this.#ctx, burst);
      });
      for (const [index, send] of (burst ?? []).entries()) send.settle(refusals[index]);
    } catch (error) {
      if (!burst) {
        // The transaction never began: every send waiting fails with it.
        this.#flushPending = false;
        burst = this.#waiting.splice(0);
      }
      for (const send of burst) send.fail(error);
    }
  }
}

/** Each send's refusal, by its place in `burst`: the sends of each account and environment together, in order. */
async function queueBurst(
  trx: DbOrTrx,
  ctx: AppContext,
  burst: readonly WaitingSend[],
): Promise<Array<ApiError | undefined>> {
  const groups = new Map<string, { scope: RecipientScope; places: number[] }>();
  burst.forEach((send, place) => {
    const key = `${send.scope.accountId} ${send.scope.environment}`;
    const group = groups.get(key);
    if (group) group.places.push(place);
    else groups.set(key, { scope: send.scope, places: [place] });
  });
  const refusals: Array<ApiError | undefined> = new Array(burst.length);
  for (const { scope, places } of groups.values()) {
    const sends = places.map((place) => (burst[place] as WaitingSend).sms);
    const answers = await queuePreparedSends(trx, ctx, scope, sends);
    places.forEach((place, index) => {
      refusals[place] = answers[index];
    });
  }
  return refusals;
}
