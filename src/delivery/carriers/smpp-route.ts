import { createHash } from "node:crypto";
import smpp, { type OutgoingPdu } from "smpp";
import { splitSms, toGsm7Septets } from "../../dlt/encoding.js";
import { ChainHashes } from "../../dlt/tm-chain.js";
import type { Logger } from "../../lib/logger.js";
import type { MessagePriority } from "../../messages/traffic.js";
import { parseReceiptText, toReceipt } from "../../receipts/smpp-receipt.js";
import type { OutboundMessage, PartRecorder, Receipt } from "../carrier.js";
import type { CarrierMeter, RouteState, SubmitOutcome } from "../carrier-meter.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import { RateLimiter, Window } from "./flow-control.js";
import type { SmppRoute } from "./smpp-config.js";
import { relativeValidity, type SubmitSmFields, submitSmPdu } from "./submit-sm.js";

const { errors } = smpp;
/** The SMSC is overloaded or failing for now: another route, or a later try, may do. */
const TEMPORARY_STATUSES = new Set([errors.ESME_RTHROTTLED, errors.ESME_RMSGQFUL, errors.ESME_RSYSERR]);
const THROTTLE_STATUSES = new Set([errors.ESME_RTHROTTLED, errors.ESME_RMSGQFUL]);
const THROTTLE_PAUSE_MS = 1_000;
const ENQUIRE_LINK_MS = 30_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;
const RECEIPT_RETRIES = 10;
const RECEIPT_RETRY_MS = 200;
const ESM_CLASS_UDHI = 0x40;
const ESM_CLASS_RECEIPT = 0x04;

type Session = smpp.Session;
type Pdu = smpp.PDU;

interface Link {
  session: Session;
  mode: "bind_transceiver" | "bind_transmitter" | "bind_receiver";
  bound: boolean;
}

/** How one message went on one route. */
export type RouteAttempt =
  /** Every part was accepted: one id per part, from part 1 (the parts carried before included). */
  | { kind: "accepted"; carrierMessageIds: string[] }
  /** The SMSC refused part `part` of `parts` for good, with `status` (`code`, its number). */
  | { kind: "refused"; status: string; code: number; part: number; parts: number }
  /**
   * A temporary error status, or no answer (`status` undefined): `partial` when earlier parts
   * were accepted, on this try or before.
   */
  | {
      kind: "temporary";
      status: string | undefined;
      reason: "status" | "timeout" | "dropped";
      partial: boolean;
    }
  /** A part was accepted, but the message is no longer this delivery's to send: it stopped there. */
  | { kind: "abandoned" }
  /**
   * The message's `expiresAt` passed before part `part` of `parts` went out: nothing more is
   * sent. `partial` when earlier parts were accepted, on this try or before.
   */
  | { kind: "expired"; part: number; parts: number; partial: boolean };

export interface SmppRouteDeps {
  log: Logger;
  meter: CarrierMeter;
  /** A delivery receipt came in on this route; resolves true once stored, false for an unknown id. */
  onReceipt: (receipt: Receipt) => Promise<boolean>;
  /** A bind completed: messages waiting for any route may go. */
  onBound: () => void;
  /** Now, in epoch milliseconds: what a message's time left is measured against. */
  now: () => number;
}

/**
 * One SMSC route over SMPP 3.4: binds (transceiver, or transmitter + receiver), keeps the link
 * alive with enquire_link, re-binds with backoff after a drop, spaces submits to its rate and
 * window, adds the DLT TLVs, splits long texts into UDH parts, turns delivery receipts into
 * `Receipt`s, and keeps a circuit breaker on its answers.
 */
export class SmppRouteLink {
  readonly name: string;
  readonly breaker: CircuitBreaker;
  /** The carrier name receipts of this route's SMSC account are stored and matched under. */
  readonly receiptCarrier: string;
  readonly #window: Window;
  readonly #rate: RateLimiter;
  readonly #log: Logger;
  readonly #links: Link[] = [];
  readonly #pending = new Set<PendingSettle>();
  readonly #chainHashes = new ChainHashes();
  #started = false;
  #closing = false;

  constructor(
    readonly config: SmppRoute,
    private readonly deps: SmppRouteDeps,
    carrierName: string,
  ) {
    this.name = config.name;
    this.breaker = new CircuitBreaker(config.breaker);
    this.receiptCarrier = `${carrierName}:${config.smsc}`;
    this.#window = new Window(config.window);
    this.#rate = new RateLimiter(config.tps);
    this.#log = deps.log.child({ route: config.name });
  }

  get bound(): boolean {
    return this.#transmitter() !== undefined;
  }

  state(): RouteState {
    return {
      name: this.name,
      bound: this.bound,
      window: this.config.window,
      inFlight: this.#window.inUse,
      circuit: this.breaker.state,
    };
  }

  /** Bound, circuit letting traffic through, and not paused by a throttle beyond the window wait. */
  usable(): boolean {
    return this.bound && this.breaker.allows() && this.#rate.delayMs() <= this.config.windowWaitMs;
  }

  /**
   * A place in the window, in the lane of the message's priority: waits at most the route's
   * window wait unless told otherwise.
   */
  acquire(
    priority: MessagePriority,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<boolean> {
    return this.#window.acquire(priority, { timeoutMs: this.config.windowWaitMs, ...options });
  }

  release(): void {
    this.#window.release();
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    const modes: Link["mode"][] =
      this.config.bindMode === "transceiver" ? ["bind_transceiver"] : ["bind_transmitter", "bind_receiver"];
    for (const mode of modes) this.#connect(mode, 0);
  }

  /**
   * Sends a message's parts in order, from the first not carried before, the first in the
   * window place the caller holds (the place is released before this returns). Stops at the
   * first part not accepted. Each part accepted while more are to go is recorded through
   * `recordPart` before the next is sent, so no try, in this process or after a restart, sends
   * an accepted part again. A part is not sent once the message's `expiresAt` has passed; each
   * one that goes carries the whole seconds left then as its `validity_period`.
   */
  async send(message: OutboundMessage, recordPart?: PartRecorder): Promise<RouteAttempt> {
    const parts = this.#submitParts(message);
    const expiresAtMs = message.expiresAt === null ? undefined : Date.parse(message.expiresAt);
    const ids = (message.carriedParts ?? []).map((part) => part.carrierMessageId);
    if (ids.length >= parts.length) {
      // Nothing left to send (never so: the last part is recorded with the acceptance).
      this.#window.release();
      this.breaker.abandon();
      return { kind: "accepted", carrierMessageIds: ids };
    }
    let holding = true;
    try {
      for (let index = ids.length; index < parts.length; index++) {
        if (!holding) await this.#window.acquire(message.priority);
        holding = true;
        const session = this.#transmitter();
        const answer: Answer = session
          ? await this.#submit(session, parts[index] as SubmitSmFields, expiresAtMs)
          : { lost: "dropped" };
        this.#window.release();
        holding = false;
        const partial = ids.length > 0;
        if ("expired" in answer) {
          this.breaker.abandon();
          return { kind: "expired", part: index + 1, parts: parts.length, partial };
        }
        if ("lost" in answer) {
          this.#meter(answer.lost === "timeout" ? "timeout" : "temporary_error");
          // A drop already shows as unbound; only a silent SMSC counts against the circuit.
          if (answer.lost === "timeout") this.breaker.failed();
          else this.breaker.abandon();
          return { kind: "temporary", status: undefined, reason: answer.lost, partial };
        }
        const response = answer.pdu;
        const status = response.command_status;
        if (status === errors.ESME_ROK) {
          this.#meter("accepted");
          this.breaker.succeeded();
          const carrierMessageId = String(response.message_id);
          ids.push(carrierMessageId);
          if (recordPart && index < parts.length - 1) {
            const route = { name: this.name, receiptCarrier: this.receiptCarrier };
            const part = { part: index + 1, carrierMessageId, receiptCarrier: this.receiptCarrier };
            if (!(await recordPart(part, route))) return { kind: "abandoned" };
          }
          continue;
        }
        const name = statusName(status);
        if (TEMPORARY_STATUSES.has(status)) {
          this.#meter(THROTTLE_STATUSES.has(status) ? "throttled" : "temporary_error");
          if (THROTTLE_STATUSES.has(status)) this.#rate.holdFor(THROTTLE_PAUSE_MS);
          this.breaker.failed();
          return { kind: "temporary", status: name, reason: "status", partial };
        }
        this.#meter("permanent_error");
        // The SMSC answered: the route works, the message is what it refuses.
        this.breaker.succeeded();
        return { kind: "refused", status: name, code: status, part: index + 1, parts: parts.length };
      }
    } finally {
      if (holding) this.#window.release();
    }
    return { kind: "accepted", carrierMessageIds: ids };
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#failInFlight();
    await Promise.all(
      this.#links.map(
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
    if (this.#started) this.#log.info("SMPP unbound");
  }

  #meter(outcome: SubmitOutcome): void {
    this.deps.meter.submit(this.name, outcome);
  }

  #connect(mode: Link["mode"], failures: number): void {
    if (this.#closing) return;
    const { config } = this;
    const log = this.#log;
    const session = smpp.connect({
      host: config.host,
      port: config.port,
      tls: config.tls,
      auto_enquire_link_period: ENQUIRE_LINK_MS,
    });
    const link: Link = { session, mode, bound: false };
    this.#links.push(link);
    let retried = false;
    const retry = (reason: string) => {
      if (retried) return;
      retried = true;
      const wasBound = link.bound;
      link.bound = false;
      this.#links.splice(this.#links.indexOf(link), 1);
      this.#failInFlight(session);
      if (this.#closing) return;
      if (wasBound) log.warn({ mode, reason }, "SMPP link lost");
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** (wasBound ? 0 : failures));
      setTimeout(() => this.#connect(mode, wasBound ? 0 : failures + 1), delay).unref();
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
          this.deps.onBound();
        },
      );
    });
    session.on("deliver_sm", (pdu: Pdu) => void this.#handleDeliverSm(session, pdu));
    session.on("enquire_link", (pdu: Pdu) => sendInTurn(session, pdu.response()));
    session.on("unbind", (pdu: Pdu) => {
      log.info({ mode }, "SMSC asked to unbind");
      sendInTurn(session, pdu.response());
      session.close();
    });
    session.on("error", (error: Error) => {
      log.warn({ mode, err: error.message }, "SMPP connection error");
      retry(error.message);
    });
    session.on("close", () => retry("closed"));
  }

  /** A drop loses the responses of what was in flight on it: those sends count as unanswered. */
  #failInFlight(session?: Session): void {
    for (const settle of [...this.#pending]) {
      if (session === undefined || settle.session === session) settle({ lost: "dropped" });
    }
  }

  #transmitter(): Session | undefined {
    return this.#links.find((l) => l.bound && l.mode !== "bind_receiver")?.session;
  }

  async #handleDeliverSm(session: Session, pdu: Pdu): Promise<void> {
    const esmClass = Number(pdu.esm_class ?? 0);
    const text = messageText(pdu.short_message);
    const parsed = esmClass & ESM_CLASS_RECEIPT ? parseReceiptText(text) : undefined;
    if (parsed) {
      const id =
        typeof pdu.receipted_message_id === "string" && pdu.receipted_message_id
          ? pdu.receipted_message_id
          : parsed.id;
      const receipt = toReceipt(this.receiptCarrier, id, parsed, this.config.rejections);
      // The receipt can overtake the record of the submit; acknowledge only once it is stored.
      for (let attempt = 0; attempt < RECEIPT_RETRIES; attempt++) {
        try {
          if (await this.deps.onReceipt(receipt)) break;
        } catch (error) {
          this.#log.error({ err: error, carrier_message_id: id }, "storing a delivery receipt failed");
        }
        if (attempt === RECEIPT_RETRIES - 1)
          this.#log.warn({ carrier_message_id: id }, "receipt for an unknown message id");
        else await sleep(RECEIPT_RETRY_MS);
      }
    }
    sendInTurn(session, pdu.response());
  }

  /** Submits `part` once its rate slot comes, with the time left then; not at all once none is left. */
  async #submit(session: Session, part: SubmitSmFields, expiresAtMs: number | undefined): Promise<Answer> {
    await this.#rate.take();
    if (expiresAtMs !== undefined) {
      const leftMs = expiresAtMs - this.deps.now();
      if (!(leftMs > 0)) return { expired: true };
      part.validityPeriod = relativeValidity(Math.max(1, Math.floor(leftMs / 1000)));
    }
    return new Promise<Answer>((resolve) => {
      const settle: PendingSettle = Object.assign(
        (answer: Answer) => {
          clearTimeout(timer);
          this.#pending.delete(settle);
          resolve(answer);
        },
        { session },
      );
      const timer = setTimeout(() => settle({ lost: "timeout" }), this.config.submitTimeoutMs);
      this.#pending.add(settle);
      const sent = sendInTurn(session, submitSmPdu(part), (pdu) => settle({ pdu }));
      if (!sent) settle({ lost: "dropped" });
    });
  }

  /**
   * What `tlv_tm` carries: the route's literal `tm_id`, else the PE–TM chain hash of the message's
   * entity and the account's chain or the route's (docs/dlt-compliance.md#pe-tm-chain-hash).
   */
  #telemarketerTlv(message: OutboundMessage): Buffer | undefined {
    if (this.config.tmId) return Buffer.from(this.config.tmId);
    const chain = message.tmChain ?? this.config.tmChain;
    if (chain === undefined || !message.entityId) return undefined;
    return this.#chainHashes.of(message.entityId, chain);
  }

  #submitParts(message: OutboundMessage): SubmitSmFields[] {
    const { config } = this;
    const tlvs = new Map<number, Buffer>([
      [config.tlv.entityId, Buffer.from(message.entityId ?? "")],
      [config.tlv.templateId, Buffer.from(message.templateId ?? "")],
    ]);
    const tm = this.#telemarketerTlv(message);
    if (tm) tlvs.set(config.tlv.tm, tm);
    const base = {
      sourceAddr: message.sender ?? "",
      sourceTon: config.source.ton,
      sourceNpi: config.source.npi,
      destinationAddr: message.to.replace(/^\+/, ""),
      destTon: config.destination.ton,
      destNpi: config.destination.npi,
      priorityFlag: message.priority === "otp" ? 1 : 0,
      validityPeriod: "",
      registeredDelivery: 1,
      dataCoding: message.encoding === "gsm7" ? 0 : 8,
      tlvs,
    };
    const parts = splitSms(message.text);
    if (parts.length === 1)
      return [{ ...base, esmClass: 0, shortMessage: encode(message.text, message.encoding) }];
    const reference = concatenationReference(message.id);
    return parts.map((part, index) => ({
      ...base,
      esmClass: ESM_CLASS_UDHI,
      shortMessage: Buffer.concat([
        Buffer.from([0x05, 0x00, 0x03, reference, parts.length, index + 1]),
        encode(part, message.encoding),
      ]),
    }));
  }
}

/**
 * A submit's response, or why none came: no answer in time, or the connection went first; or
 * the message expired before the submit could go.
 */
type Answer = { pdu: Pdu } | { lost: "timeout" | "dropped" } | { expired: true };
type PendingSettle = ((answer: Answer) => void) & { session: Session };

/**
 * The reference number that ties a long message's parts together on the handset: drawn from the
 * message id, so a part sent on a later try joins the parts that went before it.
 */
export function concatenationReference(messageId: string): number {
  return createHash("sha256").update(messageId).digest()[0] as number;
}

function encode(text: string, encoding: OutboundMessage["encoding"]): Buffer {
  return encoding === "gsm7" ? toGsm7Septets(text) : Buffer.from(text, "utf16le").swap16();
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

export function statusName(status: number): string {
  return STATUS_NAMES.get(status) ?? `ESME_0x${status.toString(16).padStart(4, "0")}`;
}

/** Whether `status` is one the SMPP 3.4 specification names (the others are the SMSC vendor's own). */
export function isStandardStatus(status: number): boolean {
  return STATUS_NAMES.has(status);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Sends a PDU, its socket corked until this turn's callbacks are done: the worker submits a
 * claimed batch together and receipts are answered in bursts, and the PDUs of one turn then
 * leave in one `writev`. Written one by one, each PDU cost a system call and a packet.
 */
export function sendInTurn(
  session: Session,
  pdu: Pdu | OutgoingPdu,
  onResponse?: (response: Pdu) => void,
): boolean {
  const socket = session.socket;
  if (socket.writableCorked === 0) {
    socket.cork();
    process.nextTick(() => socket.uncork());
  }
  return session.send(pdu, onResponse);
}
