/**
 * An SMSC on 127.0.0.1 to try live SMS against (`dakiya dev-smsc`) and to benchmark with: it binds
 * ESMEs with one system_id and password, answers submit_sm with a message id (or, when told to, a
 * throttle or another error), sends a delivery receipt for each accepted submit after a delay,
 * answers enquire_link and unbind, and tells `onEvent` of everything it does.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { type AddressInfo, createServer, type Socket } from "node:net";
import smpp from "smpp";
import {
  BIND_COMMANDS,
  type BindCommand,
  COMMAND,
  cString,
  encodePdu,
  encodeReceipt,
  HEADER_BYTES,
  MAX_PDU_BYTES,
  MalformedPdu,
  parseBind,
  parseSubmitSm,
  RESPONSE_BIT,
  type SubmitSm,
} from "./pdu.js";
import { decodeText, encodingOf, splitUdh } from "./submit-view.js";

const { errors } = smpp;

export const DEV_SMSC_HOST = "127.0.0.1";
/** The system_id the SMSC answers binds with. */
const SMSC_SYSTEM_ID = "DAKIYADEV";
/** SMPP 3.4 message_state values of the receipts it sends. */
const MESSAGE_STATE = { DELIVRD: 2, REJECTD: 8 } as const;
/** A receipt's `text:` holds the message's first characters (SMPP 3.4 appendix B). */
const RECEIPT_TEXT_CHARS = 20;

export interface DevSmscOptions {
  /** On 127.0.0.1; 0 (the default) for any free port. */
  port?: number;
  systemId: string;
  password: string;
  /** A receipt this long after each accepted submit that asks for one; none when unset. */
  receiptDelayMs?: number;
  /** Receipts say `stat:REJECTD err:<this>` instead of `stat:DELIVRD err:000`. */
  receiptError?: string;
  /** Every Nth submit_sm (counted from the start, over every session) is answered ESME_RTHROTTLED. */
  throttleEvery?: number;
  /** Submits answered `status`: every one, or every Nth (a throttled one goes first). */
  reject?: { status: number; every?: number };
  /** Each session is closed abruptly this long after it bound. */
  dropAfterMs?: number;
  /** Leave Nagle's algorithm on; off (TCP_NODELAY) by default, so no answer waits for a delayed ACK. */
  nagle?: boolean;
  /** Told of each bind, submit_sm, receipt, unbind, drop and refusal, as it happens. */
  onEvent?: (event: DevSmscEvent) => void;
}

export type ReceiptStat = keyof typeof MESSAGE_STATE;

export type DevSmscEvent =
  | { type: "bind"; session: number; command: BindCommand; systemId: string; status: number }
  | {
      type: "submit_sm";
      session: number;
      /** 1, 2, … over every session since start. */
      number: number;
      submit: SubmitSm;
      status: number;
      messageId: string | undefined;
      at: number;
    }
  | { type: "receipt"; session: number; messageId: string; stat: ReceiptStat; err: string }
  /** No session bound to receive it: it goes out when one binds. */
  | { type: "receipt_held"; messageId: string }
  | { type: "unbind"; session: number }
  | { type: "dropped"; session: number; afterMs: number }
  | { type: "closed"; session: number }
  /** A PDU answered with an error for what it is, not by a setting (malformed, unbound, unknown). */
  | { type: "refused"; session: number; command: string; status: number; reason: string };

export interface DevSmsc {
  readonly port: number;
  /** `smpp://<system_id>:<password>@127.0.0.1:<port>`: what SMPP_URL takes. */
  readonly url: string;
  /** submit_sm answered ESME_ROK since start. */
  readonly submits: number;
  /** Date.now() of the first and the last accepted submit_sm (undefined before the first). */
  readonly firstSubmitAt: number | undefined;
  readonly lastSubmitAt: number | undefined;
  readonly boundSessions: number;
  /** Binds refused for wrong credentials. */
  readonly refusedBinds: number;
  /** Delivery receipts sent, and answered with deliver_sm_resp. */
  readonly receiptsSent: number;
  readonly receiptsAcked: number;
  /** Receipts due later, or waiting for a session to go out on. */
  readonly receiptsPending: number;
  /** Closes every session and the listening socket. Idempotent. */
  stop(): Promise<void>;
}

interface Connection {
  id: number;
  socket: Socket;
  bound: BindCommand | undefined;
  closed: boolean;
  sequence: number;
  /** The start of a PDU whose rest has not arrived. */
  pending: Buffer | undefined;
  dropTimer: NodeJS.Timeout | undefined;
  /** Receipts sent on this session awaiting their deliver_sm_resp, by sequence number. */
  unacked: Set<number>;
}

interface DueReceipt {
  origin: Connection;
  messageId: string;
  submit: SubmitSm;
  submittedAt: number;
  stat: ReceiptStat;
  err: string;
}

export async function startDevSmsc(options: DevSmscOptions): Promise<DevSmsc> {
  const url = (port: number) =>
    `smpp://${encodeURIComponent(options.systemId)}:${encodeURIComponent(options.password)}@${DEV_SMSC_HOST}:${port}`;
  const emit = options.onEvent ?? (() => {});
  const idPrefix = `${randomBytes(3).toString("hex")}-`;
  const connections = new Set<Connection>();
  const timers = new Set<NodeJS.Timeout>();
  let held: DueReceipt[] = [];
  let connectionsAccepted = 0;
  let submitsReceived = 0;
  let submits = 0;
  let firstSubmitAt: number | undefined;
  let lastSubmitAt: number | undefined;
  let refusedBinds = 0;
  let receiptsSent = 0;
  let receiptsAcked = 0;
  let stopping: Promise<void> | undefined;

  const answer = (connection: Connection, request: Buffer, status: number, body?: Buffer[]) => {
    if (!open(connection)) return;
    const commandId = request.readUInt32BE(4) | RESPONSE_BIT;
    connection.socket.write(encodePdu(commandId >>> 0, status, request.readUInt32BE(12), body));
  };

  const refuse = (
    connection: Connection,
    request: Buffer,
    command: string,
    status: number,
    reason: string,
  ) => {
    answer(connection, request, status);
    emit({ type: "refused", session: connection.id, command, status, reason });
  };

  /** Neither closed nor closing (after an unbind, a refused bind or a bad PDU). */
  const open = (connection: Connection) => !connection.closed && !connection.socket.writableEnded;

  const canReceive = (connection: Connection) =>
    open(connection) && (connection.bound === "bind_transceiver" || connection.bound === "bind_receiver");

  const deliver = (receipt: DueReceipt) => {
    const target = canReceive(receipt.origin) ? receipt.origin : [...connections].find(canReceive);
    if (target === undefined) {
      held.push(receipt);
      emit({ type: "receipt_held", messageId: receipt.messageId });
      return;
    }
    target.sequence = target.sequence >= 0x7fffffff ? 1 : target.sequence + 1;
    const { submit } = receipt;
    const pdu = encodeReceipt(
      {
        handset: { addr: submit.destinationAddr, ton: submit.destTon, npi: submit.destNpi },
        sender: { addr: submit.sourceAddr, ton: submit.sourceTon, npi: submit.sourceNpi },
        text: receiptText(receipt, Date.now()),
        messageId: receipt.messageId,
        messageState: MESSAGE_STATE[receipt.stat],
      },
      target.sequence,
    );
    target.unacked.add(target.sequence);
    target.socket.write(pdu);
    receiptsSent += 1;
    emit({
      type: "receipt",
      session: target.id,
      messageId: receipt.messageId,
      stat: receipt.stat,
      err: receipt.err,
    });
  };

  const onBind = (connection: Connection, pdu: Buffer, command: BindCommand) => {
    let systemId = "";
    let status: number;
    try {
      const bind = parseBind(pdu);
      systemId = bind.systemId;
      if (connection.bound !== undefined) status = errors.ESME_RALYBND;
      else if (bind.systemId !== options.systemId) status = errors.ESME_RINVSYSID;
      else if (bind.password !== options.password) status = errors.ESME_RINVPASWD;
      else status = errors.ESME_ROK;
    } catch (error) {
      if (!(error instanceof MalformedPdu)) throw error;
      status = errors.ESME_RBINDFAIL;
    }
    if (status !== errors.ESME_ROK) {
      answer(connection, pdu, status);
      emit({ type: "bind", session: connection.id, command, systemId, status });
      if (connection.bound === undefined) {
        refusedBinds += 1;
        connection.socket.end();
      }
      return;
    }
    connection.bound = command;
    answer(connection, pdu, status, [cString(SMSC_SYSTEM_ID)]);
    emit({ type: "bind", session: connection.id, command, systemId, status });
    const dropAfterMs = options.dropAfterMs;
    if (dropAfterMs !== undefined) {
      connection.dropTimer = setTimeout(() => {
        emit({ type: "dropped", session: connection.id, afterMs: dropAfterMs });
        connection.socket.destroy();
      }, dropAfterMs);
    }
    if (canReceive(connection) && held.length > 0) {
      const waiting = held;
      held = [];
      for (const receipt of waiting) deliver({ ...receipt, origin: connection });
    }
  };

  const statusFor = (number: number): number => {
    if (options.throttleEvery !== undefined && number % options.throttleEvery === 0)
      return errors.ESME_RTHROTTLED;
    const reject = options.reject;
    if (reject !== undefined && (reject.every === undefined || number % reject.every === 0))
      return reject.status;
    return errors.ESME_ROK;
  };

  const onSubmit = (connection: Connection, pdu: Buffer) => {
    if (connection.bound !== "bind_transceiver" && connection.bound !== "bind_transmitter") {
      const reason = connection.bound ? "a receiver bind cannot submit" : "not bound";
      refuse(connection, pdu, "submit_sm", errors.ESME_RINVBNDSTS, reason);
      return;
    }
    let submit: SubmitSm;
    try {
      submit = parseSubmitSm(pdu);
    } catch (error) {
      if (!(error instanceof MalformedPdu)) throw error;
      refuse(connection, pdu, "submit_sm", errors.ESME_RINVMSGLEN, error.message);
      return;
    }
    submitsReceived += 1;
    const number = submitsReceived;
    const status = statusFor(number);
    const at = Date.now();
    let messageId: string | undefined;
    if (status === errors.ESME_ROK) {
      messageId = `${idPrefix}${submits + 1}`;
      submits += 1;
      firstSubmitAt ??= at;
      lastSubmitAt = at;
      answer(connection, pdu, status, [cString(messageId)]);
      scheduleReceipt(connection, submit, messageId, at);
    } else {
      answer(connection, pdu, status);
    }
    emit({ type: "submit_sm", session: connection.id, number, submit, status, messageId, at });
  };

  const scheduleReceipt = (origin: Connection, submit: SubmitSm, messageId: string, submittedAt: number) => {
    const delayMs = options.receiptDelayMs;
    // registered_delivery bits 0–1: 1 asks for a receipt of the final state, 2 for a failure only.
    const wanted = submit.registeredDelivery & 0x03;
    const failed = options.receiptError !== undefined;
    if (delayMs === undefined || !(wanted === 1 || (wanted === 2 && failed))) return;
    const receipt: DueReceipt = {
      origin,
      messageId,
      // The submit's fields are views of the socket's chunk: keep a copy of their own.
      submit: { ...submit, shortMessage: Buffer.from(submit.shortMessage), tlvs: new Map() },
      submittedAt,
      stat: failed ? "REJECTD" : "DELIVRD",
      err: options.receiptError ?? "000",
    };
    const timer = setTimeout(() => {
      timers.delete(timer);
      deliver(receipt);
    }, delayMs);
    timers.add(timer);
  };

  const onPdu = (connection: Connection, pdu: Buffer) => {
    const commandId = pdu.readUInt32BE(4);
    if (commandId & RESPONSE_BIT) {
      // deliver_sm_resp (or a generic_nack) for a receipt; enquire_link_resp and unbind_resp need nothing.
      const sequence = pdu.readUInt32BE(12);
      if (connection.unacked.delete(sequence) && commandId === (COMMAND.deliver_sm | RESPONSE_BIT) >>> 0) {
        receiptsAcked += 1;
      }
      return;
    }
    const bind = BIND_COMMANDS.get(commandId);
    if (bind !== undefined) return onBind(connection, pdu, bind);
    switch (commandId) {
      case COMMAND.submit_sm:
        return onSubmit(connection, pdu);
      case COMMAND.enquire_link:
        return answer(connection, pdu, errors.ESME_ROK);
      case COMMAND.unbind:
        connection.bound = undefined;
        answer(connection, pdu, errors.ESME_ROK);
        emit({ type: "unbind", session: connection.id });
        connection.socket.end();
        return;
      default: {
        // generic_nack carries the request's sequence number (SMPP 3.4 §4.3).
        const nack = encodePdu(COMMAND.generic_nack, errors.ESME_RINVCMDID, pdu.readUInt32BE(12));
        if (open(connection)) connection.socket.write(nack);
        const command = `command 0x${commandId.toString(16).padStart(8, "0")}`;
        emit({
          type: "refused",
          session: connection.id,
          command,
          status: errors.ESME_RINVCMDID,
          reason: "not supported",
        });
      }
    }
  };

  /** Splits what the socket read into PDUs; their answers leave together, in one write. */
  const onData = (connection: Connection, chunk: Buffer) => {
    const data = connection.pending ? Buffer.concat([connection.pending, chunk]) : chunk;
    connection.pending = undefined;
    let offset = 0;
    connection.socket.cork();
    try {
      while (open(connection) && data.length - offset >= 4) {
        const length = data.readUInt32BE(offset);
        if (length < HEADER_BYTES || length > MAX_PDU_BYTES) {
          const sequence = data.length - offset >= HEADER_BYTES ? data.readUInt32BE(offset + 12) : 0;
          connection.socket.write(encodePdu(COMMAND.generic_nack, errors.ESME_RINVCMDLEN, sequence));
          emit({
            type: "refused",
            session: connection.id,
            command: "PDU",
            status: errors.ESME_RINVCMDLEN,
            reason: `command_length ${length} is outside ${HEADER_BYTES}–${MAX_PDU_BYTES}: closing the session`,
          });
          connection.socket.end();
          return;
        }
        if (data.length - offset < length) break;
        onPdu(connection, data.subarray(offset, offset + length));
        offset += length;
      }
      if (offset < data.length) connection.pending = Buffer.from(data.subarray(offset));
    } finally {
      connection.socket.uncork();
    }
  };

  const server = createServer((socket) => {
    connectionsAccepted += 1;
    const connection: Connection = {
      id: connectionsAccepted,
      socket,
      bound: undefined,
      closed: false,
      sequence: 0,
      pending: undefined,
      dropTimer: undefined,
      unacked: new Set(),
    };
    connections.add(connection);
    if (options.nagle !== true) socket.setNoDelay(true);
    // ECONNRESET and the like when an ESME goes away abruptly: the session just closes.
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      if (open(connection)) onData(connection, chunk);
    });
    socket.on("close", () => {
      connection.closed = true;
      connection.bound = undefined;
      clearTimeout(connection.dropTimer);
      connections.delete(connection);
      if (stopping === undefined) emit({ type: "closed", session: connection.id });
    });
  });

  server.listen(options.port ?? 0, DEV_SMSC_HOST);
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => Promise.reject(error)),
  ]);
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: url(port),
    get submits() {
      return submits;
    },
    get firstSubmitAt() {
      return firstSubmitAt;
    },
    get lastSubmitAt() {
      return lastSubmitAt;
    },
    get boundSessions() {
      let bound = 0;
      for (const connection of connections) if (connection.bound !== undefined) bound += 1;
      return bound;
    },
    get refusedBinds() {
      return refusedBinds;
    },
    get receiptsSent() {
      return receiptsSent;
    },
    get receiptsAcked() {
      return receiptsAcked;
    },
    get receiptsPending() {
      return timers.size + held.length;
    },
    stop() {
      stopping ??= (async () => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        held = [];
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const connection of connections) connection.socket.destroy();
        await closed;
      })();
      return stopping;
    },
  };
}

/** `id:… sub:001 dlvrd:… submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:… err:… text:…` (UTC). */
function receiptText(receipt: DueReceipt, doneAt: number): string {
  const delivered = receipt.stat === "DELIVRD";
  const { payload } = splitUdh(receipt.submit);
  const start = decodeText(
    payload.subarray(0, 2 * RECEIPT_TEXT_CHARS),
    encodingOf(receipt.submit.dataCoding),
  );
  // The receipt goes in data_coding 0: its text keeps to characters that read the same in ASCII.
  const text = [...start.slice(0, RECEIPT_TEXT_CHARS)].map((c) => (/^[ -~]$/.test(c) ? c : ".")).join("");
  return (
    `id:${receipt.messageId} sub:001 dlvrd:${delivered ? "001" : "000"} ` +
    `submit date:${receiptDate(receipt.submittedAt)} done date:${receiptDate(doneAt)} ` +
    `stat:${receipt.stat} err:${receipt.err} text:${text}`
  );
}

function receiptDate(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-22T12:00:00.000Z
  return `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
