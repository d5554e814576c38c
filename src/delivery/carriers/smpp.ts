import { randomInt } from "node:crypto";
import smpp from "smpp";
import { splitSms, toGsm7Septets } from "../../dlt/encoding.js";
import type { Logger } from "../../logger.js";
import type { Carrier, OutboundMessage, Receipt, SendResult } from "../carrier.js";
import { RateLimiter, Window } from "./flow-control.js";
import type { SmppConfig } from "./smpp-config.js";
import { parseReceiptText, toReceipt } from "./smpp-receipt.js";

export const SMPP_CARRIER = "smpp";

const { errors } = smpp;
/** The SMSC is overloaded: slow down and try again. */
const RETRYABLE_STATUSES = new Set([errors.ESME_RTHROTTLED, errors.ESME_RMSGQFUL, errors.ESME_RSYSERR]);
const THROTTLE_PAUSE_MS = 1_000;
const RESPONSE_TIMEOUT_MS = 30_000;
const ENQUIRE_LINK_MS = 30_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;
const RECEIPT_RETRIES = 10;
const RECEIPT_RETRY_MS = 200;
const ESM_CLASS_UDHI = 0x40;
const ESM_CLASS_RECEIPT = 0x04;

export type SmppStatus = {
  bound: boolean;
  window: number;
  in_flight: number;
};

export interface SmppCarrier extends Carrier {
  status(): SmppStatus;
}

type Session = smpp.Session;
type Pdu = smpp.PDU;

interface Link {
  session: Session;
  mode: "bind_transceiver" | "bind_transmitter" | "bind_receiver";
  bound: boolean;
}

/**
 * Live SMS to an SMSC over SMPP 3.4: binds (transceiver, or transmitter + receiver), keeps the
 * link alive with enquire_link, re-binds with backoff after a drop, spaces submits to the
 * configured rate and window, adds the DLT TLVs, splits long texts into UDH parts, and turns
 * delivery receipts into `Receipt`s.
 */
export function createSmppCarrier(
  config: SmppConfig,
  deps: { log: Logger; onReceipt: (receipt: Receipt) => Promise<boolean> },
): SmppCarrier {
  const log = deps.log.child({ carrier: SMPP_CARRIER });
  const window = new Window(config.window);
  const rate = new RateLimiter(config.tps);
  const tlvName = (tag: number) => `dlt_tlv_${tag.toString(16)}`;
  for (const tag of [config.tlv.entityId, config.tlv.templateId, config.tlv.tm]) {
    smpp.addTLV(tlvName(tag), { id: tag, type: smpp.types.tlv.buffer });
  }

  const links: Link[] = [];
  let started = false;
  let closing = false;
  const pending = new Set<(result: Pdu | undefined) => void>();
  let bindWaiters: Array<() => void> = [];

  function start(): void {
    if (started) return;
    started = true;
    const modes: Link["mode"][] =
      config.bindMode === "transceiver" ? ["bind_transceiver"] : ["bind_transmitter", "bind_receiver"];
    for (const mode of modes) connect(mode, 0);
  }

  function connect(mode: Link["mode"], failures: number): void {
    if (closing) return;
    const session = smpp.connect({
      host: config.host,
      port: config.port,
      tls: config.tls,
      auto_enquire_link_period: ENQUIRE_LINK_MS,
    });
    const link: Link = { session, mode, bound: false };
    links.push(link);
    let retried = false;
    const retry = (reason: string) => {
      if (retried) return;
      retried = true;
      const wasBound = link.bound;
      link.bound = false;
      links.splice(links.indexOf(link), 1);
      failInFlight();
      if (closing) return;
      if (wasBound) log.warn({ mode, reason }, "SMPP link lost");
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** (wasBound ? 0 : failures));
      setTimeout(() => connect(mode, wasBound ? 0 : failures + 1), delay).unref();
    };
    session.on(config.tls ? "secureConnect" : "connect", () => {
      session[mode](
        {
          system_id: config.systemId,
          password: config.password,
          system_type: config.systemType,
          interface_version: 0x34,
        },
        (pdu: Pdu) => {
          if (pdu.command_status !== errors.ESME_ROK) {
            log.error({ mode, status: statusName(pdu.command_status) }, "SMPP bind refused");
            session.destroy();
            return;
          }
          link.bound = true;
          log.info({ mode, host: config.host, port: config.port }, "SMPP bound");
          const waiters = bindWaiters;
          bindWaiters = [];
          for (const wake of waiters) wake();
        },
      );
    });
    session.on("deliver_sm", (pdu: Pdu) => void handleDeliverSm(session, pdu));
    session.on("enquire_link", (pdu: Pdu) => session.send(pdu.response()));
    session.on("unbind", (pdu: Pdu) => {
      log.info({ mode }, "SMSC asked to unbind");
      session.send(pdu.response());
      session.close();
    });
    session.on("error", (error: Error) => {
      log.warn({ mode, err: error.message }, "SMPP connection error");
      retry(error.message);
    });
    session.on("close", () => retry("closed"));
  }

  /** A drop loses the responses of everything in flight: those sends are retried (at-least-once). */
  function failInFlight(): void {
    for (const settle of [...pending]) settle(undefined);
  }

  function transmitter(): Session | undefined {
    return links.find((l) => l.bound && l.mode !== "bind_receiver")?.session;
  }

  async function waitForBind(ms: number): Promise<Session | undefined> {
    const ready = transmitter();
    if (ready) return ready;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      bindWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return transmitter();
  }

  async function handleDeliverSm(session: Session, pdu: Pdu): Promise<void> {
    const esmClass = Number(pdu.esm_class ?? 0);
    const text = messageText(pdu.short_message);
    const parsed = esmClass & ESM_CLASS_RECEIPT ? parseReceiptText(text) : undefined;
    if (parsed) {
      const id =
        typeof pdu.receipted_message_id === "string" && pdu.receipted_message_id
          ? pdu.receipted_message_id
          : parsed.id;
      const receipt = toReceipt(SMPP_CARRIER, id, parsed);
      // The receipt can overtake the record of the submit; acknowledge only once it is stored.
      for (let attempt = 0; attempt < RECEIPT_RETRIES; attempt++) {
        try {
          if (await deps.onReceipt(receipt)) break;
        } catch (error) {
          log.error({ err: error, carrier_message_id: id }, "storing a delivery receipt failed");
        }
        if (attempt === RECEIPT_RETRIES - 1)
          log.warn({ carrier_message_id: id }, "receipt for an unknown message id");
        else await sleep(RECEIPT_RETRY_MS);
      }
    }
    session.send(pdu.response());
  }

  async function submit(session: Session, params: Record<string, unknown>): Promise<Pdu | undefined> {
    // Inside the window, so a throttle answer holds back every submit not yet on the wire.
    await window.acquire();
    try {
      await rate.take();
      return await new Promise<Pdu | undefined>((resolve) => {
        const settle = (pdu: Pdu | undefined) => {
          clearTimeout(timer);
          pending.delete(settle);
          resolve(pdu);
        };
        const timer = setTimeout(() => settle(undefined), RESPONSE_TIMEOUT_MS);
        pending.add(settle);
        if (session.send(new smpp.PDU("submit_sm", params), settle) === false) settle(undefined);
      });
    } finally {
      window.release();
    }
  }

  function submitParams(message: OutboundMessage): Array<Record<string, unknown>> {
    const base: Record<string, unknown> = {
      source_addr: message.sender ?? "",
      source_addr_ton: config.source.ton,
      source_addr_npi: config.source.npi,
      destination_addr: message.to.replace(/^\+/, ""),
      dest_addr_ton: config.destination.ton,
      dest_addr_npi: config.destination.npi,
      registered_delivery: 1,
      data_coding: message.encoding === "gsm7" ? 0 : 8,
      [tlvName(config.tlv.entityId)]: Buffer.from(message.entityId ?? ""),
      [tlvName(config.tlv.templateId)]: Buffer.from(message.templateId ?? ""),
      ...(config.tmId ? { [tlvName(config.tlv.tm)]: Buffer.from(config.tmId) } : {}),
    };
    const parts = splitSms(message.text);
    if (parts.length === 1) return [{ ...base, short_message: encode(message.text, message.encoding) }];
    const reference = randomInt(256);
    return parts.map((part, index) => ({
      ...base,
      esm_class: ESM_CLASS_UDHI,
      short_message: {
        udh: Buffer.from([0x05, 0x00, 0x03, reference, parts.length, index + 1]),
        message: encode(part, message.encoding),
      },
    }));
  }

  return {
    name: SMPP_CARRIER,
    start,
    async send(message: OutboundMessage): Promise<SendResult> {
      start();
      const session = await waitForBind(5_000);
      if (!session) {
        return {
          outcome: "retryable",
          errorCode: "smsc_unavailable",
          errorMessage: "Not bound to the SMSC.",
          retryAfterSeconds: 2,
        };
      }
      const ids: string[] = [];
      for (const params of submitParams(message)) {
        const response = await submit(session, params);
        if (!response) {
          return {
            outcome: "retryable",
            errorCode: "smsc_no_response",
            errorMessage: "The SMSC did not answer the submit.",
          };
        }
        const status = response.command_status;
        if (status === errors.ESME_ROK) {
          ids.push(String(response.message_id));
          continue;
        }
        const name = statusName(status);
        if (RETRYABLE_STATUSES.has(status)) {
          rate.holdFor(THROTTLE_PAUSE_MS);
          return {
            outcome: "retryable",
            errorCode: name.toLowerCase(),
            errorMessage: `The SMSC answered ${name}.`,
          };
        }
        return {
          outcome: "permanent",
          errorCode: name.toLowerCase(),
          errorMessage: `The SMSC refused the message: ${name}.`,
        };
      }
      return { outcome: "accepted", carrierMessageIds: ids };
    },
    status: () => ({ bound: transmitter() !== undefined, window: config.window, in_flight: window.inUse }),
    async close() {
      closing = true;
      failInFlight();
      await Promise.all(
        links.map(
          ({ session, bound }) =>
            new Promise<void>((resolve) => {
              if (!bound) {
                session.destroy();
                return resolve();
              }
              const timer = setTimeout(() => session.destroy(() => resolve()), 2_000);
              session.unbind({}, () => {
                clearTimeout(timer);
                session.close(() => resolve());
              });
            }),
        ),
      );
      log.info("SMPP unbound");
    },
  };
}

function encode(text: string, encoding: OutboundMessage["encoding"]): Buffer {
  return encoding === "gsm7" ? Buffer.from(toGsm7Septets(text)) : Buffer.from(text, "utf16le").swap16();
}

function messageText(shortMessage: unknown): string {
  if (typeof shortMessage === "string") return shortMessage;
  if (Buffer.isBuffer(shortMessage)) return shortMessage.toString("latin1");
  if (shortMessage && typeof shortMessage === "object" && "message" in shortMessage) {
    return messageText((shortMessage as { message: unknown }).message);
  }
  return "";
}

const STATUS_NAMES = new Map(Object.entries(errors).map(([name, code]) => [code, name]));

function statusName(status: number): string {
  return STATUS_NAMES.get(status) ?? `ESME_0x${status.toString(16).padStart(4, "0")}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
