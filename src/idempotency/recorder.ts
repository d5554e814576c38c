import type { Transaction } from "kysely";
import type { Database } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { type IdempotencyScope, storeIdempotentResponse } from "./idempotency.js";

/**
 * Stores `answer`, the very value the service is about to return, as the response of the
 * request's Idempotency-Key, in `trx`: the transaction of the request's effect. A service that
 * takes one calls it last in that transaction, so the effect and its answer commit together or
 * not at all, and a retry after any crash either replays the answer or runs once.
 */
export type RecordAnswer<T> = (trx: Transaction<Database>, answer: T) => Promise<void>;

/** The answer as it goes on the wire: the body text for `status`, as the route's schema writes it. */
export type SerializeAnswer = (status: number, answer: unknown) => string;

/**
 * A request's hold on its Idempotency-Key, and what it stored under it. Made when the key is
 * claimed; the route hands `recorderFor(status)` to its service and then sends `recorded`.
 */
export class IdempotentResponse {
  #recorded: { status: number; body: string } | undefined;

  constructor(
    readonly scope: IdempotencyScope,
    readonly holder: string,
    private readonly serialize: SerializeAnswer,
  ) {}

  /** The answer stored in the effect's transaction (once that committed, the service returned). */
  get recorded(): { status: number; body: string } | undefined {
    return this.#recorded;
  }

  recorderFor<T>(status: number): RecordAnswer<T> {
    return async (trx, answer) => {
      const body = this.serialize(status, answer);
      if (!(await storeIdempotentResponse(trx, this.scope, this.holder, status, body))) {
        // Throwing rolls the effect back: of two requests that both thought they held the key,
        // only one can ever commit.
        throw new ApiError(
          "idempotency_key_in_use",
          "This request's hold on the Idempotency-Key lapsed and another request took it over; nothing was done. Retry to get that request's response.",
        );
      }
      this.#recorded = { status, body };
    };
  }
}
