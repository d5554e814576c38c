/**
 * The audit log (docs/audit.md): every change writes exactly one row in its own transaction, with
 * the actor (a console member, an API key, the CLI), the client address and a before/after; a
 * change that fails writes none; the database refuses to edit a row or delete one younger than a
 * year; the sweep deletes only rows over a year; the console reads only its own account's rows.
 */
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { recordAudit } from "../../src/audit/record.js";
import { purgeOldAuditRows } from "../../src/audit/retention.js";
import { apiKeySnapshot } from "../../src/audit/snapshots.js";
import { CLI_ORIGIN } from "../../src/audit/types.js";
import type { AppContext } from "../../src/context.js";
import type { AuditLogTable } from "../../src/db/console-schema.js";
import type { Dialect } from "../../src/db/schema.js";
import type { App } from "../../src/http/types.js";
import { createKey, rotateKey } from "../../src/keys/keys.js";
import { purgeExpired } from "../../src/maintenance.js";
import { cliRunner, json } from "../helpers/cli.js";
import { dashboardRequest, type SignedIn, signedInAccount } from "../helpers/dashboard.js";
import { DIALECTS } from "../helpers/database.js";
import { createAccountWithKey } from "../helpers/fixtures.js";
import { useTestInstances } from "../helpers/instances.js";

const PUBLIC_URL = "https://1.1.1.1/hooks/dakiya";
const TEMPLATE_ID = "1107161234567890123";
const DAY_MS = 86_400_000;

type Row = AuditLogTable;

describe.each(DIALECTS)("the audit log on %s", (dialect) => {
  const instances = useTestInstances(dialect);
  let ctx: AppContext;
  let app: App;
  beforeAll(() => {
    ({ ctx, app } = instances);
  });

  async function rowsOf(accountId: string): Promise<Row[]> {
    return ctx.db
      .selectFrom("audit_log")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  /** Runs `change` and answers the one audit row it wrote for the account (failing unless exactly one). */
  async function onlyNewRow(accountId: string, change: () => Promise<unknown>): Promise<Row> {
    const before = new Set((await rowsOf(accountId)).map((row) => row.id));
    await change();
    const added = (await rowsOf(accountId)).filter((row) => !before.has(row.id));
    expect(added.map((row) => row.action)).toHaveLength(1);
    return added[0] as Row;
  }

  /** A dashboard request that must succeed, from `address`. */
  async function dashboard(
    session: SignedIn,
    method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
    url: string,
    payload?: object,
  ) {
    const response = await app.inject({
      method,
      url,
      remoteAddress: "198.51.100.23",
      headers: { cookie: session.cookie, "x-csrf-token": session.csrf },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.body === "" ? undefined : response.json();
  }

  const parsed = (text: string | null) => (text === null ? null : JSON.parse(text));

  it("records each console change once, by the signed-in member, from the client's address", async () => {
    const owner = await signedInAccount(ctx, app);
    const { email, id: memberId } = (await dashboard(owner, "GET", "/dashboard/api/session")).member as {
      email: string;
      id: string;
    };
    const expectMember = (row: Row, action: string, target: [string, string | null]) => {
      expect(row).toMatchObject({
        action,
        actor_type: "member",
        actor_id: memberId,
        actor_label: email,
        client_address: "198.51.100.23",
        target_type: target[0],
        target_id: target[1],
      });
    };
    const id = owner.accountId;

    let key: { id: string; prefix: string } = { id: "", prefix: "" };
    let row = await onlyNewRow(id, async () => {
      key = await dashboard(owner, "POST", "/dashboard/api/keys", { environment: "live", label: "backend" });
    });
    expectMember(row, "key.created", ["api_key", key.id]);
    expect(row.environment).toBe("live");
    expect(parsed(row.before)).toBeNull();
    expect(parsed(row.after)).toMatchObject({ environment: "live", label: "backend", prefix: key.prefix });

    let rotated: { id: string } = { id: "" };
    row = await onlyNewRow(id, async () => {
      const response = await dashboard(owner, "POST", `/dashboard/api/keys/${key.id}/rotate`, {
        grace_seconds: 3600,
      });
      rotated = response.key;
    });
    expectMember(row, "key.rotated", ["api_key", key.id]);
    expect(parsed(row.before)).toMatchObject({ expires_at: null });
    expect(parsed(row.after)).toMatchObject({ replaced_by: rotated.id, expires_at: expect.any(String) });

    row = await onlyNewRow(id, () => dashboard(owner, "DELETE", `/dashboard/api/keys/${rotated.id}`));
    expectMember(row, "key.deleted", ["api_key", rotated.id]);
    expect(parsed(row.before)).toMatchObject({ label: "backend" });
    expect(parsed(row.after)).toBeNull();

    let endpoint: { id: string } = { id: "" };
    row = await onlyNewRow(id, async () => {
      endpoint = await dashboard(owner, "POST", "/dashboard/api/webhooks?environment=sandbox", {
        url: `${PUBLIC_URL}?token=receiver-token-1234`,
        events: ["sms.delivered"],
      });
    });
    expectMember(row, "webhook.created", ["webhook_endpoint", endpoint.id]);
    // The receiver's own token in the query is not kept.
    expect(parsed(row.after)).toEqual({
      url: PUBLIC_URL,
      events: ["sms.delivered"],
      description: null,
      status: "enabled",
    });
    row = await onlyNewRow(id, () =>
      dashboard(owner, "PATCH", `/dashboard/api/webhooks/${endpoint.id}?environment=sandbox`, {
        status: "disabled",
      }),
    );
    expectMember(row, "webhook.updated", ["webhook_endpoint", endpoint.id]);
    expect([parsed(row.before).status, parsed(row.after).status]).toEqual(["enabled", "disabled"]);
    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", `/dashboard/api/webhooks/${endpoint.id}/rotate-secret?environment=sandbox`),
    );
    expectMember(row, "webhook.secret_rotated", ["webhook_endpoint", endpoint.id]);
    expect([row.before, row.after]).toEqual([null, null]);
    row = await onlyNewRow(id, () =>
      dashboard(owner, "DELETE", `/dashboard/api/webhooks/${endpoint.id}?environment=sandbox`),
    );
    expectMember(row, "webhook.deleted", ["webhook_endpoint", endpoint.id]);

    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", "/dashboard/api/senders", { sender: "dakiya" }),
    );
    expectMember(row, "sender.created", ["sender", "DAKIYA"]);
    expect(row.environment).toBeNull();
    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", "/dashboard/api/templates", {
        template_id: TEMPLATE_ID,
        entity_id: "1101234567890123456",
        name: "OTP",
        category: "transactional",
        senders: ["DAKIYA"],
        content: "Your code is {#otp#}",
      }),
    );
    expectMember(row, "template.created", ["template", TEMPLATE_ID]);
    expect(parsed(row.after)).toMatchObject({ name: "OTP", senders: ["DAKIYA"], status: "active" });
    row = await onlyNewRow(id, () =>
      dashboard(owner, "PATCH", `/dashboard/api/templates/${TEMPLATE_ID}`, { name: "Login OTP" }),
    );
    expectMember(row, "template.updated", ["template", TEMPLATE_ID]);
    expect([parsed(row.before).name, parsed(row.after).name]).toEqual(["OTP", "Login OTP"]);
    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", `/dashboard/api/templates/${TEMPLATE_ID}/status`, { status: "inactive" }),
    );
    expectMember(row, "template.updated", ["template", TEMPLATE_ID]);
    expect([parsed(row.before).status, parsed(row.after).status]).toEqual(["active", "inactive"]);

    row = await onlyNewRow(id, () =>
      dashboard(owner, "PATCH", "/dashboard/api/otp-settings?environment=sandbox", {
        expiry_seconds: 300,
        test_numbers: { "+919876543210": "424242" },
      }),
    );
    expectMember(row, "otp_settings.updated", ["otp_settings", null]);
    expect(row.environment).toBe("sandbox");
    expect(parsed(row.before)).toMatchObject({ expiry_seconds: 600, test_numbers: [] });
    // A test number's fixed code is never kept.
    expect(parsed(row.after)).toMatchObject({ expiry_seconds: 300, test_numbers: ["+919876543210"] });
    expect(row.after).not.toContain("424242");

    row = await onlyNewRow(id, () => dashboard(owner, "DELETE", `/dashboard/api/templates/${TEMPLATE_ID}`));
    expectMember(row, "template.deleted", ["template", TEMPLATE_ID]);
    row = await onlyNewRow(id, () => dashboard(owner, "DELETE", "/dashboard/api/senders/DAKIYA"));
    expectMember(row, "sender.deleted", ["sender", "DAKIYA"]);

    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", "/dashboard/api/cta", { kind: "url", value: "HTTPS://Dky.in/app/" }),
    );
    expectMember(row, "cta_entry.created", ["cta_entry", "url:https://dky.in/app/"]);
    row = await onlyNewRow(id, () =>
      dashboard(
        owner,
        "DELETE",
        `/dashboard/api/cta?kind=url&value=${encodeURIComponent("https://dky.in/app/")}`,
      ),
    );
    expectMember(row, "cta_entry.deleted", ["cta_entry", "url:https://dky.in/app/"]);

    row = await onlyNewRow(id, () =>
      dashboard(owner, "PUT", "/dashboard/api/tm-chain", { tm_chain: ["1702000000000000001"] }),
    );
    expectMember(row, "account.updated", ["account", id]);
    expect([parsed(row.before).tm_chain, parsed(row.after).tm_chain]).toEqual([
      null,
      ["1702000000000000001"],
    ]);

    row = await onlyNewRow(id, () =>
      dashboard(owner, "POST", "/dashboard/api/sandbox/credits", { amount: "25.50" }),
    );
    expectMember(row, "credits.added", ["balance", expect.stringMatching(/^led_/) as unknown as string]);
    expect(row.environment).toBe("sandbox");
    expect([parsed(row.before), parsed(row.after)]).toEqual([
      { balance: "0.0000" },
      { balance: "25.5000", amount: "25.5000", reference: null },
    ]);
  });

  it("records webhook changes made with an API key as that key's, from the client's address", async () => {
    const { accountId, keyId, secret } = await createAccountWithKey(ctx, "sandbox");
    const api = (method: "POST" | "PATCH" | "DELETE", url: string, payload?: object) =>
      app.inject({
        method,
        url,
        remoteAddress: "203.0.113.7",
        headers: { authorization: `Bearer ${secret}` },
        ...(payload === undefined ? {} : { payload }),
      });
    const expectKey = (row: Row, action: string) =>
      expect(row).toMatchObject({
        action,
        actor_type: "key",
        actor_id: keyId,
        actor_label: null,
        client_address: "203.0.113.7",
        environment: "sandbox",
        target_type: "webhook_endpoint",
      });

    let endpointId = "";
    let row = await onlyNewRow(accountId, async () => {
      const response = await api("POST", "/v2/webhooks", { url: PUBLIC_URL, events: ["*"] });
      expect(response.statusCode, response.body).toBe(201);
      endpointId = response.json<{ id: string }>().id;
    });
    expectKey(row, "webhook.created");
    expect(row.target_id).toBe(endpointId);
    row = await onlyNewRow(accountId, async () => {
      expect((await api("PATCH", `/v2/webhooks/${endpointId}`, { description: "orders" })).statusCode).toBe(
        200,
      );
    });
    expectKey(row, "webhook.updated");
    expect([parsed(row.before).description, parsed(row.after).description]).toEqual([null, "orders"]);
    row = await onlyNewRow(accountId, async () => {
      expect((await api("POST", `/v2/webhooks/${endpointId}/rotate-secret`, {})).statusCode).toBe(200);
    });
    expectKey(row, "webhook.secret_rotated");
    row = await onlyNewRow(accountId, async () => {
      expect((await api("DELETE", `/v2/webhooks/${endpointId}`)).statusCode).toBe(200);
    });
    expectKey(row, "webhook.deleted");
  });

  it("writes no row for a change that fails, and no change when its row cannot be written", async () => {
    const owner = await signedInAccount(ctx, app);
    const before = await rowsOf(owner.accountId);
    const refused = [
      await dashboardRequest(app, owner, "POST", "/dashboard/api/keys/key_unknown/rotate", {
        grace_seconds: 0,
      }),
      await dashboardRequest(app, owner, "DELETE", "/dashboard/api/keys/key_unknown"),
      await dashboardRequest(app, owner, "POST", "/dashboard/api/senders", { sender: "nope" }),
      await dashboardRequest(app, owner, "PATCH", "/dashboard/api/otp-settings?environment=live", {
        length: 99,
      }),
      await app.inject({
        method: "PUT",
        url: "/dashboard/api/tm-chain",
        headers: { cookie: owner.cookie, "x-csrf-token": owner.csrf },
        payload: { tm_chain: ["not-an-id"] },
      }),
    ];
    for (const response of refused) expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
    // A sender inserted, then refused as a duplicate: the transaction rolls back whole.
    await dashboard(owner, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
    const duplicate = await dashboardRequest(app, owner, "POST", "/dashboard/api/senders", {
      sender: "DAKIYA",
    });
    expect(duplicate.statusCode).toBe(400);
    expect((await rowsOf(owner.accountId)).length).toBe(before.length + 1);

    // With the audit row refused, the change it records is not made either.
    await refuseAuditInserts(ctx, dialect, true);
    try {
      const response = await dashboardRequest(app, owner, "POST", "/dashboard/api/keys", {
        environment: "live",
      });
      expect(response.statusCode).toBe(500);
    } finally {
      await refuseAuditInserts(ctx, dialect, false);
    }
    const keys = await ctx.db
      .selectFrom("api_keys")
      .select("id")
      .where("account_id", "=", owner.accountId)
      .execute();
    expect(keys).toEqual([]);
  });

  it("refuses, in the database, to change any row or delete one younger than a year; the sweep takes only older ones", async () => {
    const { accountId, keyId } = await createAccountWithKey(ctx, "live");
    const now = Date.now();
    const insert = async (id: string, at: number) =>
      ctx.db
        .insertInto("audit_log")
        .values({
          id,
          account_id: accountId,
          environment: "live",
          actor_type: "cli",
          actor_id: null,
          actor_label: null,
          action: "key.created",
          target_type: "api_key",
          target_id: keyId,
          client_address: null,
          before: null,
          after: null,
          created_at: new Date(at).toISOString(),
        })
        .execute();
    await insert("aud_old", now - 366 * DAY_MS);
    await insert("aud_almost", now - 364 * DAY_MS);

    await expect(
      ctx.db.updateTable("audit_log").set({ action: "key.deleted" }).where("id", "=", "aud_old").execute(),
    ).rejects.toThrow(/never changed/);
    await expect(
      ctx.db
        .updateTable("audit_log")
        .set({ client_address: "10.0.0.1" })
        .where("account_id", "=", accountId)
        .execute(),
    ).rejects.toThrow(/never changed/);
    await expect(ctx.db.deleteFrom("audit_log").where("id", "=", "aud_almost").execute()).rejects.toThrow(
      /kept 365 days/,
    );
    await expect(
      ctx.db.deleteFrom("audit_log").where("account_id", "=", accountId).execute(),
    ).rejects.toThrow(/kept 365 days/);
    expect((await rowsOf(accountId)).map((row) => row.id).sort()).toContain("aud_old");

    // The server's clock a little ahead of the database's never makes the sweep fail.
    const ahead = new Date(now + 2 * DAY_MS);
    expect(await purgeOldAuditRows(ctx.db, ctx.dialect, ahead)).toBe(1);
    const left = (await rowsOf(accountId)).map((row) => row.id);
    expect(left).not.toContain("aud_old");
    expect(left).toContain("aud_almost");
    // The maintenance loop runs the sweep.
    await insert("aud_old_2", now - 400 * DAY_MS);
    const purged = await purgeExpired({ ...ctx, clock: { now: () => new Date(now) } });
    expect(purged.auditRows).toBe(1);
    expect((await rowsOf(accountId)).map((row) => row.id)).not.toContain("aud_old_2");
  });

  it("shows the console only its own account's rows, newest first, filtered and paged", async () => {
    const owner = await signedInAccount(ctx, app);
    const stranger = await signedInAccount(ctx, app);
    const key = await dashboard(owner, "POST", "/dashboard/api/keys", { environment: "sandbox", label: "a" });
    instances.clock.advance(60);
    await dashboard(owner, "POST", "/dashboard/api/senders", { sender: "DAKIYA" });
    instances.clock.advance(60);
    await dashboard(owner, "POST", `/dashboard/api/keys/${key.id}/rotate`, { grace_seconds: 0 });
    await dashboard(stranger, "POST", "/dashboard/api/senders", { sender: "OTHERS" });
    await rotateKey(
      ctx,
      {
        accountId: owner.accountId,
        keyId: (await createKey(ctx, { accountId: owner.accountId, environment: "live" }, CLI_ORIGIN)).id,
        graceSeconds: 0,
      },
      CLI_ORIGIN,
    );

    type Page = {
      data: Array<{
        id: string;
        created_at: string;
        action: string;
        actor: { type: string; id: string | null; label: string | null };
        target: { type: string; id: string | null };
        environment: string | null;
        client_address: string | null;
        before: unknown;
        after: unknown;
      }>;
      has_more: boolean;
    };
    const read = async (session: SignedIn, query = "") =>
      (await dashboard(session, "GET", `/dashboard/api/audit${query}`)) as Page;

    const all = await read(owner);
    expect(all.has_more).toBe(false);
    expect(all.data.map((entry) => entry.action)).toEqual([
      "key.rotated",
      "key.created",
      "key.rotated",
      "sender.created",
      "key.created",
      // The owner's sign-in, before the rest.
      "sign_in.succeeded",
    ]);
    expect(all.data.map((entry) => entry.target.id)).not.toContain("OTHERS");
    const newestFirst = all.data.map((entry) => `${entry.created_at} ${entry.id}`);
    expect(newestFirst).toEqual([...newestFirst].sort().reverse());
    expect(all.data[4]).toMatchObject({
      action: "key.created",
      actor: { type: "member", id: expect.stringMatching(/^mbr_/), label: expect.stringContaining("@") },
      target: { type: "api_key", id: key.id },
      environment: "sandbox",
      client_address: "198.51.100.23",
      before: null,
      after: { label: "a", environment: "sandbox" },
    });

    expect((await read(stranger)).data.map((entry) => entry.action)).toEqual([
      "sender.created",
      "sign_in.succeeded",
    ]);
    expect((await read(owner, "?action=sender.created")).data).toHaveLength(1);
    expect((await read(owner, "?action=key")).data).toHaveLength(4);
    expect((await read(owner, "?actor=cli")).data.map((entry) => entry.action)).toEqual([
      "key.rotated",
      "key.created",
    ]);
    expect((await read(owner, `?target=${key.id}`)).data.map((entry) => entry.action)).toEqual([
      "key.rotated",
      "key.created",
    ]);
    const senderAt = all.data[3]?.created_at as string;
    expect(
      (await read(owner, `?created_after=${senderAt}&created_before=${all.data[2]?.created_at}`)).data.map(
        (e) => e.action,
      ),
    ).toEqual(["sender.created"]);

    const first = await read(owner, "?limit=2");
    expect(first.has_more).toBe(true);
    const second = await read(owner, `?limit=2&starting_after=${first.data[1]?.id}`);
    const third = await read(owner, `?limit=2&starting_after=${second.data[1]?.id}`);
    expect([...first.data, ...second.data, ...third.data].map((entry) => entry.id)).toEqual(
      all.data.map((e) => e.id),
    );
    expect(third.has_more).toBe(false);

    // Another account's row is no cursor here.
    const theirs = (await read(stranger)).data[0]?.id as string;
    const response = await dashboardRequest(
      app,
      owner,
      "GET",
      `/dashboard/api/audit?starting_after=${theirs}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: "invalid_request", param: "starting_after" } });
    // Signed out, nothing.
    expect((await app.inject({ method: "GET", url: "/dashboard/api/audit" })).statusCode).toBe(401);
  });

  it("records the CLI's changes as the CLI's, without an address, and lists them with `dakiya audit`", async () => {
    const { dakiya } = cliRunner(() => ({
      ...process.env,
      DATABASE_URL: instances.database.url,
      DAKIYA_SECRET: "test-secret-0123456789abcdefghijklmnopqrstuvwxyz",
      LOG_LEVEL: "warn",
    }));
    const { accountId } = await createAccountWithKey(ctx, "sandbox");
    const key = json<{ id: string }>(
      await dakiya(
        "--json",
        "keys",
        "create",
        "--account",
        accountId,
        "--environment",
        "live",
        "--label",
        "cli",
      ),
    );
    json(await dakiya("--json", "keys", "rotate", "--account", accountId, "--key", key.id));
    json(
      await dakiya(
        "--json",
        "webhooks",
        "add",
        "--account",
        accountId,
        "--environment",
        "sandbox",
        "--url",
        PUBLIC_URL,
      ),
    );
    json(
      await dakiya(
        "--json",
        "credits",
        "add",
        "--account",
        accountId,
        "--environment",
        "live",
        "--amount",
        "10",
      ),
    );
    json(await dakiya("--json", "account", "update", "--account", accountId, "--bfsi"));

    const rows = (await rowsOf(accountId)).filter((row) => row.actor_type === "cli");
    expect(rows.map((row) => row.action)).toEqual([
      "key.created", // the fixture's key, made through the same function
      "key.created",
      "key.rotated",
      "webhook.created",
      "credits.added",
      "account.updated",
    ]);
    for (const row of rows)
      expect([row.actor_id, row.actor_label, row.client_address]).toEqual([null, null, null]);
    expect(parsed(rows[5]?.after ?? null)).toEqual({ bfsi: true, tm_chain: null });

    const listed = json<{ data: Array<{ action: string; actor: { type: string } }>; has_more: boolean }>(
      await dakiya("--json", "audit", "--account", accountId, "--limit", "3"),
    );
    expect(listed.data.map((entry) => entry.action)).toEqual([
      "account.updated",
      "credits.added",
      "webhook.created",
    ]);
    expect(listed.has_more).toBe(true);
    const keysOnly = json<{ data: Array<{ action: string }> }>(
      await dakiya("--json", "audit", "--account", accountId, "--action", "key"),
    );
    expect(keysOnly.data.map((entry) => entry.action)).toEqual(["key.rotated", "key.created", "key.created"]);
    const human = await dakiya("audit", "--account", accountId, "--limit", "1");
    expect(human.stdout).toMatch(/account\.updated {2}account acct_\S+ {2}by the CLI/);
    const bad = await dakiya("audit", "--account", accountId, "--limit", "0");
    expect(bad.code).not.toBe(0);
  });

  it("keeps snapshots to their allowed fields", () => {
    const snapshot = apiKeySnapshot({
      environment: "live",
      label: "x",
      prefix: "dk_live_abcd",
      last_four: "wxyz",
      rate_limit: null,
      expires_at: null,
      scope: "send",
      allowed_ips: ["203.0.113.0/24"],
      // A row carries more; the snapshot takes only what it names.
      ...{ secret_hash: "f".repeat(64) },
    } as Parameters<typeof apiKeySnapshot>[0]);
    expect(Object.keys(snapshot).sort()).toEqual([
      "allowed_ips",
      "environment",
      "expires_at",
      "label",
      "last_four",
      "prefix",
      "rate_limit",
      "scope",
    ]);
  });

  it("writes rows through recordAudit in the caller's transaction", async () => {
    const { accountId } = await createAccountWithKey(ctx, "sandbox");
    const count = async () => (await rowsOf(accountId)).length;
    const start = await count();
    await expect(
      ctx.db.transaction().execute(async (trx) => {
        await recordAudit(trx, ctx.clock, {
          accountId,
          environment: null,
          origin: { actor: { type: "member", id: accountId, email: "a@example.com" }, clientAddress: "::1" },
          action: "sign_in.succeeded",
          target: { type: "member", id: accountId },
        });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await count()).toBe(start);
  });
});

/** Makes the database refuse (or again accept) every insert into audit_log. */
async function refuseAuditInserts(ctx: AppContext, dialect: Dialect, refuse: boolean): Promise<void> {
  if (dialect === "postgres") {
    if (refuse) {
      await sql`create function audit_log_refuse_insert() returns trigger language plpgsql as $$
        begin raise exception 'audit inserts refused by the test'; end $$`.execute(ctx.db);
      await sql`create trigger audit_log_refuse_insert before insert on audit_log
        for each row execute function audit_log_refuse_insert()`.execute(ctx.db);
    } else {
      await sql`drop trigger audit_log_refuse_insert on audit_log`.execute(ctx.db);
      await sql`drop function audit_log_refuse_insert()`.execute(ctx.db);
    }
    return;
  }
  if (refuse) {
    await sql`create trigger audit_log_refuse_insert before insert on audit_log
      begin select raise(abort, 'audit inserts refused by the test'); end`.execute(ctx.db);
  } else {
    await sql`drop trigger audit_log_refuse_insert`.execute(ctx.db);
  }
}
