import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devSmscCommands } from "../../src/cli/dev-smsc.js";
import type { Receipt } from "../../src/delivery/carrier.js";
import { createSmppCarrier, type SmppCarrier } from "../../src/delivery/carriers/smpp.js";
import { parseSmppRoutes } from "../../src/delivery/carriers/smpp-config.js";
import { type DevSmsc, startDevSmsc } from "../../src/dev-smsc/server.js";
import { peTmChainHash } from "../../src/dlt/tm-chain.js";
import { ConfigError } from "../../src/errors.js";
import { createLogger } from "../../src/lib/logger.js";
import { BIN, cliRunner, json, oneLineError, ROOT } from "../helpers/cli.js";
import { TEST_SECRET } from "../helpers/context.js";
import { createTestDatabase, DIALECTS, type TestDatabase } from "../helpers/database.js";
import { waitFor } from "../helpers/delivery.js";
import { killProcess, type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { outboundSms } from "../helpers/smpp-routes.js";

/*
 * `dakiya dev-smsc` as an operator runs it (docs/try-live-sms.md, docs/cli.md#dev-smsc): its
 * options, its output, its signals, and a real `dakiya serve` delivering through it.
 */

const SLOW = 90_000;
const ENTITY_ID = "1101456789012345678";
const TEMPLATE_ID = "1107161234567890123";

interface SmscProcess {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** The SMPP_URL it printed. */
  url: string;
  /** Resolves with the first line (from the start) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const children: ChildProcess[] = [];
let carrier: SmppCarrier | undefined;

afterEach(async () => {
  await carrier?.close?.();
  carrier = undefined;
  for (const child of children.splice(0)) await killProcess(child);
});

/** Starts `dakiya [--json] dev-smsc --port 0 …args` and resolves once it listens. */
async function startSmscProcess(args: string[], jsonOutput = false): Promise<SmscProcess> {
  const child = spawn(
    process.execPath,
    [BIN, ...(jsonOutput ? ["--json"] : []), "dev-smsc", "--port", "0", ...args],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    lines.push(text);
    for (const wake of waiters) wake();
  });
  const line = (match: (text: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found === undefined) return false;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(`no such line within ${timeoutMs} ms; stdout: ${lines.join("\n")}; stderr: ${stderr}`),
        );
      }, timeoutMs);
      if (!check()) waiters.add(check);
    });
  const url = jsonOutput
    ? (JSON.parse(await line((text) => text.includes('"listening"'))) as { smpp_url: string }).smpp_url
    : (await line((text) => text.startsWith("SMPP_URL="))).slice("SMPP_URL=".length);
  return { child, lines, url, line, exited };
}

/** Dakiya's SMPP carrier, bound with SMPP_URL and the other SMPP_* variables of `env`. */
async function bindCarrier(env: Record<string, string>, receipts: Receipt[] = []): Promise<SmppCarrier> {
  const routes = parseSmppRoutes(env) ?? [];
  const current = createSmppCarrier(routes, {
    log: createLogger("silent"),
    onReceipt: async (receipt) => {
      receipts.push(receipt);
      return true;
    },
  });
  carrier = current;
  current.start?.();
  await waitFor(async () => current.status().bound, 10_000);
  return current;
}

describe("dakiya dev-smsc", () => {
  it("prints the SMPP_URL to start Dakiya with, logs each submit_sm as a line, and stops on SIGINT", {
    timeout: SLOW,
  }, async () => {
    const smsc = await startSmscProcess(["--receipt-delay-ms", "300", "--tm-chain", "1702000000000000001"]);
    expect(smsc.lines[0]).toMatch(/^Dakiya dev SMSC listening on 127\.0\.0\.1:\d+\. Start Dakiya with:$/);
    expect(smsc.lines[1]).toMatch(/^SMPP_URL=smpp:\/\/dakiya:secret@127\.0\.0\.1:\d+$/);
    const receipts: Receipt[] = [];
    const current = await bindCarrier({ SMPP_URL: smsc.url, SMPP_TM_CHAIN: "1702000000000000001" }, receipts);
    await smsc.line((text) => / session 1: bind_transceiver as "dakiya": bound$/.test(text));
    const sentAt = Date.now();
    const result = await current.send(outboundSms({ text: "Your code is 4821 {ok} €5" }));
    expect(result).toMatchObject({ outcome: "accepted" });
    const id = result.outcome === "accepted" ? result.carrierMessageIds[0] : "";
    const submit = await smsc.line((text) => text.includes("submit_sm #1"));
    expect(submit).toMatch(
      new RegExp(
        `^\\d{2}:\\d{2}:\\d{2}\\.\\d{3} submit_sm #1 session 1: to 919700000001 from DAKIYA data_coding 0 \\(gsm7\\) ` +
          `entity ${ENTITY_ID} template ${TEMPLATE_ID} tm ${peTmChainHash(ENTITY_ID, ["1702000000000000001"])} \\(the PE–TM chain hash\\) ` +
          `validity \\(default\\) priority 0 → ESME_ROK id ${id}: "Your code is 4821 \\{ok\\} €5"$`,
      ),
    );
    await waitFor(async () => receipts.length === 1, 5_000);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(300);
    expect(receipts[0]).toMatchObject({ carrierMessageId: id, state: "delivered" });
    await smsc.line((text) => text.endsWith(`receipt for ${id} on session 1: stat:DELIVRD err:000`));

    smsc.child.kill("SIGINT");
    expect(await smsc.exited).toEqual([0, null]);
    expect(smsc.lines.at(-1)).toBe("Dev SMSC stopped.");
  });

  it("with --json writes one JSON object a line, answers as told, and stops on SIGTERM", {
    timeout: SLOW,
  }, async () => {
    const smsc = await startSmscProcess(
      [
        "--system-id",
        "esme1",
        "--password",
        "p@ss",
        "--throttle-every",
        "2",
        "--receipt-error",
        "623",
        "--tlv-tm",
        "0x1500",
      ],
      true,
    );
    expect(smsc.url).toMatch(/^smpp:\/\/esme1:p%40ss@127\.0\.0\.1:\d+$/);
    expect(JSON.parse(smsc.lines[0] ?? "")).toMatchObject({
      event: "listening",
      host: "127.0.0.1",
      port: Number(new URL(smsc.url).port),
      receipts: { stat: "REJECTD err:623", delay_ms: 1000 },
    });
    const receipts: Receipt[] = [];
    const current = await bindCarrier(
      { SMPP_URL: smsc.url, SMPP_TLV_TM: "0x1500", SMPP_TM_ID: "1702000000000000001" },
      receipts,
    );
    const first = await current.send(outboundSms({ id: "msg_one" }));
    const second = await current.send(outboundSms({ id: "msg_two" }));
    expect([first.outcome, second.outcome]).toEqual(["accepted", "retryable"]);
    await waitFor(async () => receipts.length === 1, 5_000);
    expect(receipts[0]).toMatchObject({ state: "rejected", errorCode: "dlt_header_not_registered" });
    await smsc.line((text) => text.includes('"event":"receipt"'));

    smsc.child.kill("SIGTERM");
    expect(await smsc.exited).toEqual([0, null]);
    const records = smsc.lines.map((text) => JSON.parse(text) as Record<string, unknown>);
    for (const record of records) expect(record.at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(records.map((r) => r.event)).toEqual([
      "listening",
      "bind",
      "submit_sm",
      "submit_sm",
      "receipt",
      "stopped",
    ]);
    expect(records[2]).toMatchObject({
      number: 1,
      destination: "919700000001",
      source: "DAKIYA",
      text: "Your code is 1234. -Dakiya",
      tm: "1702000000000000001",
      status: "ESME_ROK",
    });
    expect(records[3]).toMatchObject({ number: 2, status: "ESME_RTHROTTLED", message_id: null });
    expect(records[4]).toMatchObject({ stat: "REJECTD", err: "623" });
  });

  describe("refuses a bad option with one line and exit status 1", () => {
    const { dakiya } = cliRunner(() => process.env);
    const cases: Array<[string[], string]> = [
      [
        ["--port", "70000"],
        "option '--port <n>' argument '70000' is invalid. must be a whole number from 0 to 65535.",
      ],
      [
        ["--system-id", "a-system-id-too-long"],
        "must be 1 to 15 printable ASCII characters, without spaces.",
      ],
      [["--password", "two words"], "must be 1 to 8 printable ASCII characters, without spaces."],
      [["--receipt-delay-ms", "-5"], "must be a whole number from 0 to 3600000."],
      [["--receipt-error", "000"], "must be 1 to 3 digits and not 0 (err:000 means no error), e.g. 623."],
      [["--receipt-error", "6231"], "must be 1 to 3 digits"],
      [["--throttle-every", "0"], "must be a whole number from 1 to 1000000."],
      [
        ["--reject-status", "0x0"],
        "must be an SMPP command_status from 0x1 to 0xffffffff (0 is ESME_ROK), e.g. 0x45.",
      ],
      [["--reject-status", "0x100000000"], "must be an SMPP command_status"],
      [["--reject-status", "ESME_RTHROTTLED"], "must be an SMPP command_status"],
      [["--reject-every", "1.5"], "must be a whole number from 1 to 1000000."],
      [["--drop-after-seconds", "0"], "must be a whole number from 1 to 86400."],
      [["--tlv-entity-id", "0x13ff"], "must be a TLV tag from 0x1400 to 0x3fff, as 0x… or decimal."],
      [["--tlv-tm", "16384"], "must be a TLV tag from 0x1400 to 0x3fff"],
      [
        ["--tlv-template-id", "0x1402"],
        "--tlv-template-id and --tlv-tm are both 0x1402: give each TLV its own tag",
      ],
      [["--tm-chain", "1702,x"], 'telemarketer ids are DLT ids of 1 to 30 digits, got "x".'],
      [["--throttle"], "unknown option '--throttle'"],
    ];

    /** The command's parsing and checks in this process, as `dakiya` sets up commander: the error line it prints. */
    async function refusal(args: string[]): Promise<string> {
      let written = "";
      const program = new Command("dakiya")
        .option("--json")
        .exitOverride()
        .configureOutput({
          writeOut: () => {},
          writeErr: (text) => {
            written += text;
          },
          outputError: (text, write) => write(`dakiya: ${text.replace(/^error: /, "")}`),
        });
      devSmscCommands(program, () => program.opts());
      const error = await program.parseAsync(["node", "dakiya", "dev-smsc", ...args]).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(Error);
      return error instanceof ConfigError ? `dakiya: ${error.message}\n` : written;
    }

    it.each(cases)("%j", async (args, message) => {
      const line = await refusal(args);
      expect(line).toMatch(/^dakiya: [^\n]+\n$/);
      expect(line).toContain(message);
    });

    it("the same from the command line, and names the port in use", { timeout: SLOW }, async () => {
      const taken: DevSmsc = await startDevSmsc({ systemId: "dakiya", password: "secret" });
      try {
        const [port, tags, inUse] = await Promise.all([
          dakiya("dev-smsc", "--port", "70000"),
          dakiya("dev-smsc", "--tlv-entity-id", "0x1402"),
          dakiya("dev-smsc", "--port", String(taken.port)),
        ]);
        expect(oneLineError(port)).toBe(
          "dakiya: option '--port <n>' argument '70000' is invalid. must be a whole number from 0 to 65535.",
        );
        expect(oneLineError(tags)).toBe(
          "dakiya: --tlv-entity-id and --tlv-tm are both 0x1402: give each TLV its own tag",
        );
        expect(oneLineError(inUse)).toBe(
          `dakiya: port ${taken.port} on 127.0.0.1 is in use; pass --port with another (0 for any free one)`,
        );
      } finally {
        await taken.stop();
      }
    });
  });
});

describe.each(DIALECTS)("dakiya serve through dakiya dev-smsc on %s", (dialect) => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let env: NodeJS.ProcessEnv;
  const { dakiya } = cliRunner(() => env);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = { ...process.env, DATABASE_URL: database.url, DAKIYA_SECRET: TEST_SECRET, LOG_LEVEL: "warn" };
  });
  afterAll(async () => {
    await server?.kill();
    await database?.drop();
  });

  it("a live SMS sent over HTTP ends delivered, with its receipt and sms.delivered", {
    timeout: 180_000,
  }, async () => {
    const smsc = await startSmscProcess(["--receipt-delay-ms", "500"]);
    // The set-up of docs/try-live-sms.md, with the CLI.
    const account = json<{ id: string }>(
      await dakiya(
        "--json",
        "account",
        "create",
        "--email",
        "dev@example.com",
        "--password",
        "a long passphrase",
      ),
    ).id;
    json(
      await dakiya(
        "--json",
        "credits",
        "add",
        "--account",
        account,
        "--environment",
        "live",
        "--amount",
        "100.00",
      ),
    );
    const key = json<{ secret: string }>(
      await dakiya(
        "--json",
        "keys",
        "create",
        "--account",
        account,
        "--environment",
        "live",
        "--label",
        "dev SMSC",
      ),
    ).secret;
    expect(key).toMatch(/^dk_live_/);
    json(await dakiya("--json", "sender", "add", "--account", account, "--sender", "DAKIYA"));
    json(
      await dakiya(
        "--json",
        "template",
        "add",
        "--account",
        account,
        "--template-id",
        TEMPLATE_ID,
        "--entity-id",
        ENTITY_ID,
        "--name",
        "login-code",
        "--category",
        "transactional",
        "--senders",
        "DAKIYA",
        "--content",
        "Your Dakiya login code is {#var#}. Valid for {#var#} minutes. Do not share it.",
      ),
    );
    server = await startServerProcess({
      DATABASE_URL: database.url,
      DAKIYA_SECRET: TEST_SECRET,
      SMPP_URL: smsc.url,
    });
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server?.url}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...init.headers },
      });

    const sent = await api("/v2/sms/send", {
      method: "POST",
      headers: { "Idempotency-Key": "try-live-1" },
      body: JSON.stringify({
        to: "+919876543210",
        sender: "DAKIYA",
        template_id: TEMPLATE_ID,
        variables: { var1: "482913", var2: "10" },
      }),
    });
    expect(sent.status).toBe(202);
    const { id } = (await sent.json()) as { id: string };
    const text = "Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it.";

    const submit = await smsc.line((line) => line.includes("submit_sm #1"));
    expect(submit).toContain(
      `to 919876543210 from DAKIYA data_coding 0 (gsm7) entity ${ENTITY_ID} template ${TEMPLATE_ID}`,
    );
    expect(submit).toContain(`: ${JSON.stringify(text)}`);
    const carrierId = /→ ESME_ROK id (\S+):/.exec(submit)?.[1];
    await smsc.line((line) => line.includes(`receipt for ${carrierId} on session 1: stat:DELIVRD`));

    let message: Record<string, unknown> = {};
    await waitFor(async () => {
      message = (await (await api(`/v2/sms/${id}`)).json()) as Record<string, unknown>;
      return message.status === "delivered";
    }, 20_000);
    expect(message).toMatchObject({
      status: "delivered",
      environment: "live",
      text,
      carrier_message_ids: [carrierId],
      route: "default",
      cost: "0.2500",
    });
    const events = (await (await api("/v2/events?type=sms.delivered")).json()) as {
      data: Array<{ type: string; data: { id: string; status: string } }>;
    };
    expect(events.data).toEqual([
      expect.objectContaining({
        type: "sms.delivered",
        data: expect.objectContaining({ id, status: "delivered" }),
      }),
    ]);
  });
});
