import smpp from "smpp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getBalance } from "../../src/accounts/ledger.js";
import { buildApp } from "../../src/app.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { mobile, onWire, type RouteSpec, type RoutesRig, startRoutesRig } from "../helpers/smpp-routes.js";
import type { TestSmsc } from "../helpers/smsc.js";

/* Live SMS over several loopback SMSCs: selection, failover, the circuit breaker, receipts (docs/routes.md). */

const { errors } = smpp;

/** Destinations an SMSC accepted (answered ESME_ROK), one entry per accepted submit_sm. */
function accepted(smsc: TestSmsc | undefined): string[] {
  return (smsc?.submits ?? [])
    .filter((s) => s.commandStatus === errors.ESME_ROK)
    .map((s) => s.destination_addr);
}

describe.each(DIALECTS)("SMS routes on %s", (dialect) => {
  let database: TestDatabase;
  let rig: RoutesRig | undefined;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });

  afterEach(async () => {
    await rig?.stop();
    rig = undefined;
    await database.drop();
  });

  async function start(specs: RouteSpec[]): Promise<RoutesRig> {
    rig = await startRoutesRig(database.url, specs);
    const current = rig;
    await waitFor(async () => current.carrier.routes().every((route) => route.bound), 5_000);
    return current;
  }

  async function sendMany(current: RoutesRig, count: number, from = 0): Promise<string[]> {
    const ids: string[] = [];
    for (let i = from; i < from + count; i++) ids.push((await current.send(mobile(i))).id);
    return ids;
  }

  it("moves the rest of the stream to the backup when the primary dies, losing none and repeating only unanswered submits", async () => {
    const { smscs, meter, messageRows, drained, send } = await start([
      // A long window wait: only the primary's death, not a busy moment, sends traffic to the backup.
      { name: "primary", fields: { priority: 1, window_wait_ms: 60_000 }, smsc: { responseDelayMs: 2 } },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const [primary, backup] = [smscs.primary as TestSmsc, smscs.backup as TestSmsc];
    const ids: string[] = [];
    let backupBeforeKill = -1;
    for (let i = 0; i < 400; i++) {
      ids.push((await send(mobile(i))).id);
      if (i === 150) {
        await primary.waitFor(() => primary.submits.length >= 100, 10_000);
        backupBeforeKill = backup.submits.length;
        await primary.stop();
      }
    }
    await drained(30_000);

    const rows = await messageRows(ids);
    expect(rows.filter((row) => row.status !== "submitted")).toEqual([]);
    const onPrimary = new Set(accepted(primary));
    const onBackup = new Set(accepted(backup));
    // None lost: every message reached an SMSC, and the route it records is one that took it.
    for (const row of rows) {
      const to = onWire(row.recipient);
      expect(onPrimary.has(to) || onBackup.has(to)).toBe(true);
      expect((row.route === "primary" ? onPrimary : onBackup).has(to)).toBe(true);
    }
    expect(rows.filter((row) => row.route === "backup").length).toBeGreaterThanOrEqual(400 - 151);
    // No SMSC got a message twice, and a message reached both only when the primary's answer was lost.
    expect(accepted(primary)).toHaveLength(onPrimary.size);
    expect(accepted(backup)).toHaveLength(onBackup.size);
    const onBoth = [...onPrimary].filter((to) => onBackup.has(to));
    const unanswered = meter.count("primary", "temporary_error") + meter.count("primary", "timeout");
    expect(onBoth.length).toBeLessThanOrEqual(unanswered);
    // The backup had nothing to do while the primary was up.
    expect(backupBeforeKill).toBe(0);
  }, 60_000);

  it("moves traffic off a throttling SMSC to the next route, and opens its circuit", async () => {
    const current = await start([
      {
        name: "primary",
        fields: { priority: 1, window: 1, breaker_failures: 1, breaker_cooldown_seconds: 600 },
        smsc: { answer: () => errors.ESME_RTHROTTLED },
      },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const ids = await sendMany(current, 40);
    await current.drained();
    const rows = await current.messageRows(ids);
    expect(rows.filter((row) => row.status !== "submitted" || row.route !== "backup")).toEqual([]);
    expect(accepted(current.smscs.backup)).toHaveLength(40);
    const primary = current.smscs.primary as TestSmsc;
    expect(primary.submits).toHaveLength(1);
    expect(current.meter.count("primary", "throttled")).toBe(1);
    expect(current.carrier.routes().find((route) => route.name === "primary")?.circuit).toBe("open");
  });

  it("splits equal priorities by weight, within a few percent over 1,000 messages", async () => {
    const current = await start([
      { name: "heavy", fields: { weight: 3, window: 100, window_wait_ms: 60_000 } },
      { name: "light", fields: { weight: 1, window: 100, window_wait_ms: 60_000 } },
    ]);
    const ids = await sendMany(current, 1_000);
    await current.drained(60_000);
    const rows = await current.messageRows(ids);
    const heavy = rows.filter((row) => row.route === "heavy").length;
    const light = rows.filter((row) => row.route === "light").length;
    expect(heavy + light).toBe(1_000);
    expect(Math.abs(heavy / 1_000 - 0.75)).toBeLessThanOrEqual(0.03);
    expect(accepted(current.smscs.heavy)).toHaveLength(heavy);
    expect(accepted(current.smscs.light)).toHaveLength(light);
  }, 90_000);

  it("matches receipts on the route they come back on, though both SMSCs use the same ids", async () => {
    const current = await start([
      { name: "left", fields: { weight: 1 } },
      { name: "right", fields: { weight: 1 } },
    ]);
    const ids = await sendMany(current, 20);
    await current.drained();
    const left = current.smscs.left as TestSmsc;
    const right = current.smscs.right as TestSmsc;
    const rightIds = right.submits.map((s) => s.messageId as string);
    // Both SMSCs number their messages smsc-1, smsc-2, …: the same ids on both routes.
    expect(rightIds.filter((id) => left.submits.some((s) => s.messageId === id)).length).toBeGreaterThan(0);

    for (const id of rightIds) await right.sendReceipt(id, { stat: "DELIVRD", withTlv: true });
    const rightRows = (await current.messageRows(ids)).filter((row) => row.route === "right");
    expect(rightRows).toHaveLength(rightIds.length);
    await waitFor(
      async () =>
        (await current.messageRows(ids)).filter((row) => row.status === "delivered").length ===
        rightIds.length,
      5_000,
    );
    const rows = await current.messageRows(ids);
    expect(rows.filter((row) => row.status === "delivered").every((row) => row.route === "right")).toBe(true);
    expect(rows.filter((row) => row.route === "left").every((row) => row.status === "submitted")).toBe(true);
    expect(current.meter.receipts.map((r) => r.route)).toEqual(rightIds.map(() => "right"));
    expect(current.meter.receipts.every((r) => r.seconds >= 0 && r.seconds < 30)).toBe(true);

    // Once the left SMSC is gone its share goes right, and the right SMSC's receipts deliver it.
    await left.stop();
    const later = await sendMany(current, 5, 100);
    await current.drained();
    const laterRows = await current.messageRows(later);
    expect(laterRows.every((row) => row.route === "right")).toBe(true);
    for (const submit of right.submits.slice(rightIds.length)) {
      await right.sendReceipt(submit.messageId as string, { stat: "DELIVRD" });
    }
    await waitFor(
      async () => (await current.messageRows(later)).every((row) => row.status === "delivered"),
      5_000,
    );
  });

  it("fails a message the SMSC refuses for good without trying another route, and refunds it", async () => {
    const current = await start([
      {
        name: "primary",
        fields: { priority: 1 },
        smsc: {
          answer: (submit) => (submit.destination_addr === onWire(mobile(7)) ? errors.ESME_RINVDSTADR : 0),
        },
      },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const before = await getBalance(current.ctx.db, current.accountId, "live");
    const refused = await current.send(mobile(7));
    const fine = await current.send(mobile(8));
    await current.drained();
    const rows = await current.ctx.db
      .selectFrom("messages")
      .select(["id", "status", "error_code", "route"])
      .where("id", "in", [refused.id, fine.id])
      .execute();
    expect(rows.find((row) => row.id === refused.id)).toMatchObject({
      status: "failed",
      error_code: "esme_rinvdstadr",
      route: null,
    });
    expect(rows.find((row) => row.id === fine.id)).toMatchObject({ status: "submitted", route: "primary" });
    expect(current.smscs.backup?.submits).toHaveLength(0);
    expect(await getBalance(current.ctx.db, current.accountId, "live")).toBe(before - 2_500);
    expect(current.meter.count("primary", "permanent_error")).toBe(1);
    expect(current.carrier.routes().map((route) => route.circuit)).toEqual(["closed", "closed"]);
  });

  it("moves a message whose submit times out to the next route, counting the unanswered submit", async () => {
    const current = await start([
      { name: "slow", fields: { priority: 1, submit_timeout_seconds: 1 }, smsc: { responseDelayMs: 3_000 } },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const message = await current.send(mobile(1));
    await current.drained();
    expect((await current.messageRows([message.id]))[0]).toMatchObject({
      status: "submitted",
      route: "backup",
    });
    expect(current.meter.count("slow", "timeout")).toBe(1);
    // The slow SMSC took it too, late: a repeat the lost answer allows, and the only one.
    expect(current.smscs.slow?.submits).toHaveLength(1);
    expect(accepted(current.smscs.backup)).toEqual([onWire(mobile(1))]);
  });

  it("skips an unbound route, lists every route on /readyz, and is not ready once no route is bound", async () => {
    rig = await startRoutesRig(database.url, [
      { name: "primary", fields: { priority: 1 }, wrongPassword: "wrong" },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const current = rig;
    await waitFor(async () => current.carrier.routes().some((route) => route.bound), 5_000);
    const ids = await sendMany(current, 10);
    await current.drained();
    expect((await current.messageRows(ids)).filter((row) => row.route !== "backup")).toEqual([]);
    expect(current.smscs.primary?.submits).toHaveLength(0);

    const app = await buildApp(current.ctx);
    try {
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().routes).toEqual([
        { name: "primary", bound: false, window: 20, in_flight: 0, circuit: "closed" },
        { name: "backup", bound: true, window: 20, in_flight: 0, circuit: "closed" },
      ]);
      expect(ready.json().carriers["sms:smpp"]).toEqual({ bound: true, window: 40, in_flight: 0 });

      await current.smscs.backup?.stop();
      await waitFor(async () => current.carrier.routes().every((route) => !route.bound), 5_000);
      const down = await app.inject({ method: "GET", url: "/readyz" });
      expect(down.statusCode).toBe(503);
      expect(down.json().error).toMatchObject({
        code: "unavailable",
        message: "No SMSC route is bound (primary unbound, circuit closed; backup unbound, circuit closed).",
      });
    } finally {
      await app.close();
    }
  });

  it("probes a route whose circuit opened once the cool-down has passed, and closes it on success", async () => {
    const current = await start([
      {
        name: "primary",
        fields: {
          priority: 1,
          window: 1,
          window_wait_ms: 2_000,
          breaker_failures: 2,
          breaker_cooldown_seconds: 1,
        },
        smsc: { answer: (_submit, index) => (index < 2 ? errors.ESME_RTHROTTLED : 0) },
      },
      { name: "backup", fields: { priority: 2 } },
    ]);
    const circuit = () => current.carrier.routes().find((route) => route.name === "primary")?.circuit;
    const first = await sendMany(current, 2);
    await current.drained();
    expect((await current.messageRows(first)).map((row) => row.route)).toEqual(["backup", "backup"]);
    expect(circuit()).toBe("open");
    const [openMessage] = await sendMany(current, 1, 10);
    await current.drained();
    expect((await current.messageRows([openMessage as string]))[0]?.route).toBe("backup");
    expect(current.smscs.primary?.submits).toHaveLength(2);

    await waitFor(async () => circuit() === "half_open", 5_000);
    const [probe] = await sendMany(current, 1, 20);
    await current.drained();
    expect((await current.messageRows([probe as string]))[0]?.route).toBe("primary");
    expect(circuit()).toBe("closed");
    const after = await sendMany(current, 3, 30);
    await current.drained();
    expect((await current.messageRows(after)).every((row) => row.route === "primary")).toBe(true);
  });
});
