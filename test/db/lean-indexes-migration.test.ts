import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import { down, up } from "../../src/db/migrations/2026-11-25T0010-lean-indexes.js";
import * as mixedTraffic from "../../src/db/migrations/2026-11-29T0014-mixed-traffic.js";
import { contextPerTest } from "../helpers/context.js";
import { DIALECTS, indexDefinition } from "../helpers/database.js";

/* The queue and OTP fallback indexes hold only the rows their readers look for; down restores them whole. */

describe.each(DIALECTS)("the lean-indexes migration on %s", (dialect) => {
  const fresh = contextPerTest(dialect);

  const definition = (db: AppContext["db"], index: string) => indexDefinition(db, dialect, index);

  it("makes both indexes partial, and down makes them whole again", async () => {
    const ctx = await fresh.open();
    const { db } = ctx;
    // The queue's index as this migration left it, before mixed traffic gave it the lanes.
    await mixedTraffic.down(db);
    const partial = async () => ({
      queue: await definition(db, "messages_queue_idx"),
      fallback: await definition(db, "otps_fallback_idx"),
    });

    const latest = await partial();
    expect(latest.queue).toMatch(/where.*status.*=.*'queued'/);
    expect(latest.fallback).toMatch(/where.*fallback_due_at is not null/);

    await down(db);
    const whole = await partial();
    expect(whole.queue).toMatch(/status.*next_attempt_at/);
    expect(whole.queue).not.toMatch(/where/);
    expect(whole.fallback).not.toMatch(/where/);

    await up(db);
    expect(await partial()).toEqual(latest);
    await mixedTraffic.up(db);
  });
});
