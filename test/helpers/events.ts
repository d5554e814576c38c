import { sql } from "kysely";
import { beforeAll, expect } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { Dialect, Environment } from "../../src/db/schema.js";
import type { EventView } from "../../src/events/outbox.js";
import type { App } from "../../src/http/types.js";
import type { MessageView } from "../../src/messages/store.js";
import { UNLIMITED_REQUESTS } from "./context.js";
import { createSendingAccount, SMS_TEMPLATE_ID } from "./dlt-fixtures.js";
import { bearer } from "./fixtures.js";
import { type TestInstance, useTestInstances } from "./instances.js";

/* Shared by test/events/events.test.ts and test/sms/sms-list.test.ts. */

import { HUNDRED_RUPEES } from "./otp.js";

export { CARRIER_REJECTED, DND_BLOCKED, HUNDRED_RUPEES, INVALID_NUMBER, NO_RECEIPT } from "./otp.js";

let numbers = 0;
/** A distinct, valid Indian mobile for every call. */
export function nextNumber(): string {
  numbers += 1;
  return `+9197${String(numbers).padStart(8, "0")}`;
}

export type Query = Record<string, string | number | undefined>;

export function queryString(query: Query): string {
  const pairs = Object.entries(query).filter(
    (pair): pair is [string, string | number] => pair[1] !== undefined,
  );
  return new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, String(v)])).toString();
}

/**
 * A fresh database, context and app per dialect's describe block, and the requests the events
 * and message-list tests make.
 */
export function useEventsHarness(dialect: Dialect) {
  const instances = useTestInstances(dialect, { env: UNLIMITED_REQUESTS });
  const { clock } = instances;
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  /** Another process on the same database and clock: its own connection pool. */
  function openOther(): Promise<TestInstance> {
    return instances.openInstance();
  }

  /** A sending account (createSendingAccount) with ₹100 in `environment`. */
  function account(environment: Environment = "sandbox") {
    return createSendingAccount(ctx, HUNDRED_RUPEES, { environment });
  }

  function post(secret: string, url: string, body: unknown) {
    return app.inject({
      method: "POST",
      url,
      payload: JSON.stringify(body),
      headers: { "content-type": "application/json", ...bearer(secret) },
    });
  }

  async function sendSms(secret: string, to: string, reference?: string): Promise<MessageView> {
    const response = await post(secret, "/v2/sms/send", {
      to,
      sender: "DAKIYA",
      template_id: SMS_TEMPLATE_ID,
      variables: { ref: "A-77" },
      ...(reference === undefined ? {} : { reference }),
    });
    expect(response.statusCode, response.body).toBe(202);
    return response.json<MessageView>();
  }

  function get(secret: string, url: string, target: App = app) {
    return target.inject({ method: "GET", url, headers: bearer(secret) });
  }

  async function getOk<T>(secret: string, url: string): Promise<T> {
    const response = await get(secret, url);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<T>();
  }

  async function eventsPage(secret: string, query: Query = {}, target: App = app) {
    const response = await get(secret, `/v2/events?${queryString(query)}`, target);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: EventView[]; has_more: boolean }>();
  }

  /** Every event the feed has for the key, paged through with `after`. */
  async function allEvents(secret: string, query: Query = {}): Promise<EventView[]> {
    const events: EventView[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await eventsPage(secret, { ...query, limit: 100, after });
      events.push(...page.data);
      if (!page.has_more) return events;
      after = page.data.at(-1)?.id;
    }
  }

  /** The events about one message or OTP, in feed order. */
  async function eventsAbout(secret: string, id: string): Promise<EventView[]> {
    return (await allEvents(secret)).filter((event) => event.data.id === id);
  }

  /** Makes the next insert of an event of `type` fail, as a crash at that point would. */
  async function failEventInserts(type: string): Promise<() => Promise<void>> {
    if (dialect === "sqlite") {
      await sql`create trigger fail_event before insert on events when new.type = ${sql.lit(type)}
        begin select raise(abort, 'injected failure'); end`.execute(ctx.db);
      return async () => void (await sql`drop trigger fail_event`.execute(ctx.db));
    }
    await sql`create function fail_event() returns trigger language plpgsql as $$
      begin raise exception 'injected failure'; end $$`.execute(ctx.db);
    await sql`create trigger fail_event before insert on events for each row
      when (new.type = ${sql.lit(type)}) execute function fail_event()`.execute(ctx.db);
    return async () => {
      await sql`drop trigger fail_event on events`.execute(ctx.db);
      await sql`drop function fail_event()`.execute(ctx.db);
    };
  }

  return {
    clock,
    get ctx() {
      return ctx;
    },
    get app() {
      return app;
    },
    openOther,
    account,
    post,
    sendSms,
    get,
    getOk,
    eventsPage,
    allEvents,
    eventsAbout,
    failEventInserts,
  };
}
