import type { Db } from "../schema.js";
import { type TransactionContext, transactionConflictOf } from "../transaction.js";
import { commitInOneFlight, FlightRefused, type FlightStatement } from "./one-flight.js";

/*
 * PostgreSQL: every send of an account writes the same few rows (its balance, its hourly
 * counters), and a transaction holds those rows from its statement to its COMMIT's WAL flush.
 * Sent one transaction each, one account's sends queue on those rows and pass one flush at a
 * time, however many connections there are. So in each process an account's sends take a lane:
 * one flight of the lane is in the air at a time, and the sends that arrive meanwhile board the
 * next one together, one transaction (still one round trip) that locks the shared rows once.
 *
 * A flight takes its rows in the one order every transaction that counts and charges a send
 * keeps (src/accounts/ledger.ts): every member's own statements first, members in the order of
 * their recipients (the rows of its recipient, and the rows it adds); then every member's
 * statements on the account's counters, by the counter's key; then every member's debit of the
 * balance, last. So a send that waits for a row of its recipient waits before its flight holds
 * the account's rows, and no flight, batch or single send waits for a row another holds while
 * holding one that other waits for. A guard of one member sees what the members before it wrote,
 * as if they had run one after another. No flight carries two sends to one recipient.
 *
 * When a shared flight fails with an answer from the server (a guard refused, a unique index, a
 * deadlock), it wrote nothing, and each member flies again alone to get its own answer. A flight
 * still in the air after STALL_MS (a send waiting for a row another transaction holds) no longer
 * holds the lane: the next one leaves beside it.
 */

/** Which lane a send takes (its account and environment) and its place in a shared flight. */
export interface Lane {
  key: string;
  order: string;
}

/** A send's statements, by the rows they lock: its own, the account's counters, the balance. */
export interface Flight {
  /** On the rows of the send's recipient, and the rows it adds. */
  own: readonly FlightStatement[];
  /** On the account's counters, each with the key of the counter it counts in. */
  counters?: readonly CounterStatement[];
  /** The debit of the account's balance, if the send costs anything. */
  debit?: FlightStatement;
}

export interface CounterStatement extends FlightStatement {
  counter: string;
}

/** The lane of a send of `scope` to `recipient`. */
export function sendLane(scope: { accountId: string; environment: string }, recipient: string): Lane {
  return { key: `${scope.accountId}:${scope.environment}`, order: recipient };
}

/** Sends one shared flight carries at most. */
const MAX_MEMBERS = 32;
/** How long a flight holds its lane before the next one may leave beside it. */
const STALL_MS = 50;

interface Member extends Flight {
  order: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface LaneState {
  waiting: Member[];
  inAir: number;
  overtake: NodeJS.Timeout | undefined;
}

const lanesOfDb = new WeakMap<Db, Map<string, LaneState>>();

/**
 * Commits `flight` in one round trip as `commitInOneFlight` does, in `lane`: at once when the
 * lane is free, else with the sends that wait for it. Throws what `commitInOneFlight` would have
 * thrown for this send alone. A deadlock or serialization failure is counted as run again
 * (`ctx.metrics`): a shared flight's members fly again alone, and a send's own flight throws it,
 * having written nothing, for its caller to run the send in its ordinary transaction.
 */
export function commitInLane(ctx: TransactionContext, lane: Lane, flight: Flight): Promise<void> {
  const { db } = ctx;
  let lanes = lanesOfDb.get(db);
  if (!lanes) {
    lanes = new Map();
    lanesOfDb.set(db, lanes);
  }
  let state = lanes.get(lane.key);
  if (!state) {
    state = { waiting: [], inAir: 0, overtake: undefined };
    lanes.set(lane.key, state);
  }
  const boarded = new Promise<void>((resolve, reject) =>
    state.waiting.push({ ...flight, order: lane.order, resolve, reject }),
  );
  if (state.inAir === 0) depart(ctx, lanes, lane.key, state);
  else waitAtMost(ctx, lanes, lane.key, state);
  return boarded;
}

function depart(ctx: TransactionContext, lanes: Map<string, LaneState>, key: string, state: LaneState): void {
  clearTimeout(state.overtake);
  state.overtake = undefined;
  const members = board(state.waiting);
  state.inAir += 1;
  void fly(ctx, members).finally(() => {
    state.inAir -= 1;
    if (state.waiting.length > 0) {
      if (state.inAir === 0) depart(ctx, lanes, key, state);
      else waitAtMost(ctx, lanes, key, state);
    } else if (state.inAir === 0) {
      lanes.delete(key);
    }
  });
}

/** The sends waiting leave after STALL_MS even if the flight in the air has not landed. */
function waitAtMost(
  ctx: TransactionContext,
  lanes: Map<string, LaneState>,
  key: string,
  state: LaneState,
): void {
  state.overtake ??= setTimeout(() => {
    state.overtake = undefined;
    if (state.waiting.length > 0) depart(ctx, lanes, key, state);
  }, STALL_MS);
}

/** Takes the first waiting sends off `waiting`, up to MAX_MEMBERS and one per recipient, in recipients' order. */
function board(waiting: Member[]): Member[] {
  const members: Member[] = [];
  const orders = new Set<string>();
  for (let index = 0; index < waiting.length && members.length < MAX_MEMBERS; ) {
    const member = waiting[index] as Member;
    if (orders.has(member.order)) {
      index += 1;
      continue;
    }
    orders.add(member.order);
    members.push(member);
    waiting.splice(index, 1);
  }
  return members.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
}

async function fly(ctx: TransactionContext, members: Member[]): Promise<void> {
  if (members.length === 1) {
    await flyAlone(ctx, members[0] as Member);
    return;
  }
  try {
    await commitInOneFlight(ctx.db, inLockOrder(members));
  } catch (error) {
    if (!(error instanceof FlightRefused) && (error as { code?: string }).code === undefined) {
      // No answer from the server (the connection broke): whether it committed is not known,
      // so none may fly again.
      for (const member of members) member.reject(error);
      return;
    }
    countConflict(ctx, error);
    await Promise.all(members.map((member) => flyAlone(ctx, member)));
    return;
  }
  for (const member of members) member.resolve();
}

function flyAlone(ctx: TransactionContext, member: Member): Promise<void> {
  return commitInOneFlight(ctx.db, inLockOrder([member])).then(member.resolve, (error: unknown) => {
    countConflict(ctx, error);
    member.reject(error);
  });
}

/** The statements of `members` (in their recipients' order) in the lock order: own rows, counters, balance. */
function inLockOrder(members: readonly Member[]): FlightStatement[] {
  const counters = members
    .flatMap((member) => member.counters ?? [])
    // Stable: one counter's statements stay in their members' order.
    .sort((a, b) => (a.counter < b.counter ? -1 : a.counter > b.counter ? 1 : 0));
  return [
    ...members.flatMap((member) => member.own),
    ...counters,
    ...members.flatMap((member) => (member.debit ? [member.debit] : [])),
  ];
}

/** A conflict PostgreSQL aborted the flight for: it wrote nothing, and its sends run again. */
function countConflict(ctx: TransactionContext, error: unknown): void {
  const conflict = transactionConflictOf(error);
  if (conflict) ctx.metrics.transactionConflict(conflict, "retried");
}
