import { type Command, InvalidArgumentError } from "commander";
import { DEFAULT_TLV_TAGS, TLV_TAG_RANGE } from "../delivery/carriers/smpp-config.js";
import { parseTmChain } from "../dlt/tm-chain.js";
import { ConfigError } from "../errors.js";
import type { OutputOptions } from "./run.js";

/** SMPP 3.4 limits: system_id is a C string of 16 octets at most, password of 9 (NUL included). */
const MAX_SYSTEM_ID = 15;
const MAX_PASSWORD = 8;
const PRINTABLE = /^[!-~]+$/;
/** What --reject-every answers without --reject-status: ESME_RSUBMITFAIL. */
const DEFAULT_REJECT_STATUS = 0x45;

interface DevSmscCliOptions {
  port: number;
  systemId: string;
  password: string;
  receiptDelayMs: number;
  receiptError?: string;
  throttleEvery?: number;
  rejectStatus?: number;
  rejectEvery?: number;
  dropAfterSeconds?: number;
  tlvEntityId?: number;
  tlvTemplateId?: number;
  tlvTm?: number;
  tmChain?: string[];
}

export function devSmscCommands(program: Command, output: () => OutputOptions): void {
  program
    .command("dev-smsc")
    .description(
      "run an SMSC on 127.0.0.1 to try live SMS against: logs each submit_sm, answers with receipts (docs/try-live-sms.md)",
    )
    .option("--port <n>", "port on 127.0.0.1, 0 for any free one", integer(0, 65_535), 2775)
    .option(
      "--system-id <id>",
      `system_id ESMEs bind with (1–${MAX_SYSTEM_ID} characters)`,
      credential(MAX_SYSTEM_ID),
      "dakiya",
    )
    .option(
      "--password <p>",
      `password ESMEs bind with (1–${MAX_PASSWORD} characters)`,
      credential(MAX_PASSWORD),
      "secret",
    )
    .option(
      "--receipt-delay-ms <ms>",
      "send each delivery receipt this long after its submit (0–3600000)",
      integer(0, 3_600_000),
      1000,
    )
    .option(
      "--receipt-error <code>",
      "receipts say stat:REJECTD err:CODE (1–3 digits, not 0; e.g. 623) instead of DELIVRD",
      receiptError,
    )
    .option("--throttle-every <n>", "answer every Nth submit_sm ESME_RTHROTTLED", integer(1, 1_000_000))
    .option(
      "--reject-status <status>",
      "answer submit_sm with this command_status (0x… or decimal): every one, or every Nth with --reject-every",
      commandStatus,
    )
    .option(
      "--reject-every <n>",
      "answer every Nth submit_sm --reject-status (ESME_RSUBMITFAIL, 0x45, when not given)",
      integer(1, 1_000_000),
    )
    .option(
      "--drop-after-seconds <n>",
      "close every session this long after it bound (1–86400)",
      integer(1, 86_400),
    )
    .option("--tlv-entity-id <tag>", "TLV tag of the DLT entity id (default 0x1400)", tlvTag)
    .option("--tlv-template-id <tag>", "TLV tag of the DLT template id (default 0x1401)", tlvTag)
    .option("--tlv-tm <tag>", "TLV tag of the PE–TM chain hash (default 0x1402)", tlvTag)
    .option(
      "--tm-chain <ids>",
      "telemarketer ids after the PE, comma-separated: check each TM TLV against the chain hash",
      tmChain,
    )
    .action(async (options: DevSmscCliOptions) => {
      const tags = {
        entityId: options.tlvEntityId ?? DEFAULT_TLV_TAGS.entityId,
        templateId: options.tlvTemplateId ?? DEFAULT_TLV_TAGS.templateId,
        tm: options.tlvTm ?? DEFAULT_TLV_TAGS.tm,
      };
      checkDistinctTags(tags);
      const [{ startDevSmsc, DEV_SMSC_HOST }, { formatEvent }] = await Promise.all([
        import("../dev-smsc/server.js"),
        import("../dev-smsc/log.js"),
      ]);
      const json = output().json === true;
      const format = { json, tags, tmChain: options.tmChain };
      const write = (line: string) => process.stdout.write(`${line}\n`);
      const reject =
        options.rejectStatus !== undefined || options.rejectEvery !== undefined
          ? { status: options.rejectStatus ?? DEFAULT_REJECT_STATUS, every: options.rejectEvery }
          : undefined;
      const smsc = await startDevSmsc({
        port: options.port,
        systemId: options.systemId,
        password: options.password,
        receiptDelayMs: options.receiptDelayMs,
        receiptError: options.receiptError,
        throttleEvery: options.throttleEvery,
        reject,
        dropAfterMs: options.dropAfterSeconds === undefined ? undefined : options.dropAfterSeconds * 1000,
        onEvent: (event) => write(formatEvent(event, format)),
      }).catch((error: unknown) => {
        throw explainListenError(error, options.port);
      });
      const stat = options.receiptError === undefined ? "DELIVRD" : `REJECTD err:${options.receiptError}`;
      if (json) {
        write(
          JSON.stringify({
            at: new Date().toISOString(),
            event: "listening",
            host: DEV_SMSC_HOST,
            port: smsc.port,
            smpp_url: smsc.url,
            receipts: { stat, delay_ms: options.receiptDelayMs },
          }),
        );
      } else {
        write(`Dakiya dev SMSC listening on ${DEV_SMSC_HOST}:${smsc.port}. Start Dakiya with:`);
        write(`SMPP_URL=${smsc.url}`);
        write(
          `Receipts: stat:${stat} ${options.receiptDelayMs} ms after each accepted submit. Ctrl-C stops.`,
        );
      }
      const stop = () => {
        smsc.stop().then(
          () => {
            write(
              json ? JSON.stringify({ at: new Date().toISOString(), event: "stopped" }) : "Dev SMSC stopped.",
            );
            process.exit(0);
          },
          (error: unknown) => {
            process.stderr.write(`dakiya: stopping the dev SMSC failed: ${String(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}

function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
    if (!(n >= min && n <= max))
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}.`);
    return n;
  };
}

function credential(max: number): (value: string) => string {
  return (value) => {
    if (value.length < 1 || value.length > max || !PRINTABLE.test(value)) {
      throw new InvalidArgumentError(`must be 1 to ${max} printable ASCII characters, without spaces.`);
    }
    return value;
  };
}

function receiptError(value: string): string {
  if (!/^\d{1,3}$/.test(value) || Number(value) === 0) {
    throw new InvalidArgumentError("must be 1 to 3 digits and not 0 (err:000 means no error), e.g. 623.");
  }
  return value.padStart(3, "0");
}

function commandStatus(value: string): number {
  const n = /^0x[0-9a-f]{1,8}$/i.test(value)
    ? Number.parseInt(value, 16)
    : /^\d{1,10}$/.test(value)
      ? Number(value)
      : Number.NaN;
  if (!(n >= 1 && n <= 0xffffffff)) {
    throw new InvalidArgumentError(
      "must be an SMPP command_status from 0x1 to 0xffffffff (0 is ESME_ROK), e.g. 0x45.",
    );
  }
  return n;
}

function tlvTag(value: string): number {
  const n = /^0x[0-9a-f]{1,4}$/i.test(value)
    ? Number.parseInt(value, 16)
    : /^\d{1,5}$/.test(value)
      ? Number(value)
      : Number.NaN;
  const { min, max } = TLV_TAG_RANGE;
  if (!(n >= min && n <= max)) {
    throw new InvalidArgumentError(
      `must be a TLV tag from 0x${min.toString(16)} to 0x${max.toString(16)}, as 0x… or decimal.`,
    );
  }
  return n;
}

function tmChain(value: string): string[] {
  const parsed = parseTmChain(value.split(","));
  if ("problem" in parsed) throw new InvalidArgumentError(`${parsed.problem}.`);
  return parsed.chain;
}

function checkDistinctTags(tags: { entityId: number; templateId: number; tm: number }): void {
  const named = [
    ["--tlv-entity-id", tags.entityId],
    ["--tlv-template-id", tags.templateId],
    ["--tlv-tm", tags.tm],
  ] as const;
  for (const [i, [name, tag]] of named.entries()) {
    const other = named.slice(i + 1).find(([, t]) => t === tag);
    if (other) {
      throw new ConfigError(
        `${name} and ${other[0]} are both 0x${tag.toString(16)}: give each TLV its own tag`,
      );
    }
  }
}

function explainListenError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    return new ConfigError(
      `port ${port} on 127.0.0.1 is in use; pass --port with another (0 for any free one)`,
    );
  }
  if (code === "EACCES") {
    return new ConfigError(
      `port ${port} on 127.0.0.1 needs privileges this user does not have (ports below 1024 do); pass --port 1024 or above`,
    );
  }
  return error;
}
