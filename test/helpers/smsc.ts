// A real SMPP 3.4 SMSC for tests, on loopback, built on the `smpp` package's server: clients speak
// the protocol over TCP to it, nothing is mocked on the client side.
//
// Received submit_sm PDUs are recorded from the bytes on the wire, not from the library's decoded
// PDU: the library turns `short_message` into `{ udh?: Buffer[], message: string }` (UDH split
// into information elements with the UDHL byte dropped, text decoded by data_coding, GSM 03.38
// lossy for bytes it does not know), and a TLV registered anywhere in the process with
// `smpp.addTLV` shows up under its name instead of `pdu[<id>]`. So every server session wraps its
// socket's `read` to keep the raw bytes of the PDU being parsed (the library reads a PDU as
// `read(4)` for command_length then `read(command_length - 4)`, then emits 'pdu' synchronously),
// and `submit_sm` is parsed from those bytes: `short_message` is exactly the `sm_length` octets
// received (UDH included) and `tlvs` has every TLV by numeric tag, registered or not. Nothing is
// registered with `smpp.addTLV` here.

import { once } from "node:events";
import type { AddressInfo } from "node:net";
import smpp, { type PDU, type Session } from "smpp";

const { errors } = smpp;

export type BindCommand = "bind_transceiver" | "bind_transmitter" | "bind_receiver";

export type ReceiptStat = "DELIVRD" | "UNDELIV" | "REJECTD" | "EXPIRED" | "DELETED" | "ACCEPTD" | "UNKNOWN";

export interface ReceivedBind {
  command: BindCommand;
  system_id: string;
  password: string;
  system_type: string;
  interface_version: number;
  addr_ton: number;
  addr_npi: number;
  address_range: string;
  /** The command_status answered (0 = bound). */
  commandStatus: number;
  /** Id of the TCP session (1, 2, … in accept order). */
  sessionId: number;
}

export interface ReceivedSubmit {
  sessionId: number;
  sequence_number: number;
  service_type: string;
  source_addr_ton: number;
  source_addr_npi: number;
  source_addr: string;
  dest_addr_ton: number;
  dest_addr_npi: number;
  destination_addr: string;
  esm_class: number;
  protocol_id: number;
  priority_flag: number;
  schedule_delivery_time: string;
  validity_period: string;
  registered_delivery: number;
  replace_if_present_flag: number;
  data_coding: number;
  sm_default_msg_id: number;
  /** The `sm_length` octets exactly as received: UDH (with its UDHL byte) followed by the text. */
  short_message: Buffer;
  /** The UDH including its length byte when esm_class has the UDHI bit (0x40), else undefined. */
  udh: Buffer | undefined;
  /** short_message without the UDH. */
  payload: Buffer;
  /** Every TLV by numeric tag (0x1400 → entity ID, …); a repeated tag keeps the last value. */
  tlvs: Map<number, Buffer>;
  /** The whole PDU as received (header included). */
  raw: Buffer;
  /** The library's decoded view of the same PDU (short_message as `{ udh?, message }`, see above). */
  pdu: PDU;
  receivedAt: number;
  /** Answer: set just after `options.answer` runs (still 0/undefined inside it). */
  commandStatus: number;
  /** "smsc-<n>" when answered ESME_ROK, else undefined (also when withheld). */
  messageId: string | undefined;
  /** True once the submit_sm_resp has been written (after `responseDelayMs`). */
  responded: boolean;
}

export interface ReceiptAck {
  messageId: string;
  sessionId: number;
  /** command_status of the client's deliver_sm_resp. */
  commandStatus: number;
  sequence_number: number;
}

export interface ReceiptOptions {
  stat: ReceiptStat;
  /** The `err:` field, default "000". */
  err?: string;
  /** Also carry the receipted_message_id (0x001E) and message_state (0x0427) TLVs. */
  withTlv?: boolean;
  /** Replace the whole short_message text (for malformed / unusual receipt formats). */
  text?: string;
  /** Reject when no deliver_sm_resp arrives in this time (default 5000 ms). */
  timeoutMs?: number;
}

export interface TestSmscOptions {
  /** Default "dakiya". */
  systemId?: string;
  /** Default "secret". */
  password?: string;
  /** Port on 127.0.0.1 (default 0: any free port); pass a stopped SMSC's port to restart it there. */
  port?: number;
  /** Status for binds with wrong credentials (default ESME_RBINDFAIL); the session is then closed. */
  bindFailStatus?: number;
  /** Scripted bind answers: return a command_status to override the credential check. */
  bindAnswer?: (bind: ReceivedBind, index: number) => number | undefined;
  /** Scripted submit answers (index counts every submit_sm recorded, from 0); default ESME_ROK. */
  answer?: (submit: ReceivedSubmit, index: number) => number;
  /** message_id for an accepted submit; default `smsc-${index + 1}`. */
  messageId?: (index: number) => string;
  /** Delay before each submit_sm_resp. */
  responseDelayMs?: number;
  /** Submits never answered, as if the submit_sm_resp were lost (index as for `answer`). */
  withhold?: (submit: ReceivedSubmit, index: number) => boolean;
}

export interface TestSmsc {
  readonly port: number;
  /** `smpp://dakiya:secret@127.0.0.1:<port>` (with the configured credentials). */
  readonly url: string;
  readonly systemId: string;
  readonly password: string;
  readonly binds: ReceivedBind[];
  readonly submits: ReceivedSubmit[];
  readonly receiptAcks: ReceiptAck[];
  /** Harness-level problems (e.g. a PDU whose raw bytes could not be captured). Should stay empty. */
  readonly errors: Error[];
  /** Open TCP sessions right now. */
  readonly sessions: number;
  /** Open sessions that completed a bind. */
  readonly boundSessions: number;
  /** TCP connections accepted since start. */
  readonly connectionsAccepted: number;
  readonly enquireLinks: number;
  readonly unbinds: number;
  /** Sends a delivery receipt (deliver_sm, esm_class 0x04); resolves with the client's deliver_sm_resp. */
  sendReceipt(messageId: string, options: ReceiptOptions): Promise<ReceiptAck>;
  /** Destroys every client socket abruptly; the server keeps listening. Resolves when all are closed. */
  dropConnections(): Promise<void>;
  /** Polls `predicate` every 5 ms; rejects after `timeoutMs` (default 5000). */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Destroys all sessions and closes the server. Idempotent. */
  stop(): Promise<void>;
}

interface SessionState {
  id: number;
  session: Session;
  bound: BindCommand | undefined;
  closed: boolean;
  lastRaw: () => Buffer | undefined;
}

const BIND_COMMANDS: ReadonlySet<string> = new Set(["bind_transceiver", "bind_transmitter", "bind_receiver"]);

const MESSAGE_STATE: Record<ReceiptStat, number> = {
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

/** Keeps the bytes of the last complete PDU the library read from this session's socket. */
function captureRawPdus(session: Session): () => Buffer | undefined {
  const socket = session.socket;
  const read = socket.read.bind(socket);
  let header: Buffer | undefined;
  let last: Buffer | undefined;
  socket.read = ((size?: number) => {
    const chunk: unknown = read(size);
    if (Buffer.isBuffer(chunk) && chunk.length > 0) {
      if (header === undefined) {
        header = chunk;
      } else {
        last = Buffer.concat([header, chunk]);
        header = undefined;
      }
    }
    return chunk;
  }) as typeof socket.read;
  return () => last;
}

class Reader {
  offset = 16;
  constructor(private readonly buffer: Buffer) {}

  int8(): number {
    const value = this.buffer.readUInt8(this.offset);
    this.offset += 1;
    return value;
  }

  cstring(): string {
    const end = this.buffer.indexOf(0, this.offset);
    if (end < 0) throw new Error(`unterminated C-Octet String at offset ${this.offset}`);
    const value = this.buffer.toString("latin1", this.offset, end);
    this.offset = end + 1;
    return value;
  }

  bytes(length: number): Buffer {
    if (this.offset + length > this.buffer.length) throw new Error("field runs past the end of the PDU");
    const value = Buffer.from(this.buffer.subarray(this.offset, this.offset + length));
    this.offset += length;
    return value;
  }

  get remaining(): number {
    return this.buffer.length - this.offset;
  }
}

export type ParsedSubmit = Omit<
  ReceivedSubmit,
  "sessionId" | "receivedAt" | "commandStatus" | "messageId" | "responded" | "raw" | "pdu"
>;

/** Parses a submit_sm body from its wire bytes (SMPP 3.4 §4.4.1). */
export function parseSubmitSm(raw: Buffer): ParsedSubmit {
  const reader = new Reader(raw);
  const head = {
    sequence_number: raw.readUInt32BE(12),
    service_type: reader.cstring(),
    source_addr_ton: reader.int8(),
    source_addr_npi: reader.int8(),
    source_addr: reader.cstring(),
    dest_addr_ton: reader.int8(),
    dest_addr_npi: reader.int8(),
    destination_addr: reader.cstring(),
    esm_class: reader.int8(),
    protocol_id: reader.int8(),
    priority_flag: reader.int8(),
    schedule_delivery_time: reader.cstring(),
    validity_period: reader.cstring(),
    registered_delivery: reader.int8(),
    replace_if_present_flag: reader.int8(),
    data_coding: reader.int8(),
    sm_default_msg_id: reader.int8(),
  };
  const short_message = reader.bytes(reader.int8());
  const tlvs = new Map<number, Buffer>();
  while (reader.remaining >= 4) {
    const tag = raw.readUInt16BE(reader.offset);
    const length = raw.readUInt16BE(reader.offset + 2);
    reader.offset += 4;
    tlvs.set(tag, reader.bytes(length));
  }
  const hasUdh = (head.esm_class & 0x40) !== 0 && short_message.length > 0;
  const udhLength = hasUdh ? (short_message[0] ?? 0) + 1 : 0;
  return {
    ...head,
    short_message,
    udh: hasUdh ? short_message.subarray(0, udhLength) : undefined,
    payload: short_message.subarray(udhLength),
    tlvs,
  };
}

function receiptText(messageId: string, options: ReceiptOptions): string {
  if (options.text !== undefined) return options.text;
  const dlvrd = options.stat === "DELIVRD" ? "001" : "000";
  return `id:${messageId} sub:001 dlvrd:${dlvrd} submit date:2611221200 done date:2611221201 stat:${options.stat} err:${options.err ?? "000"} text:`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startTestSmsc(options: TestSmscOptions = {}): Promise<TestSmsc> {
  const systemId = options.systemId ?? "dakiya";
  const password = options.password ?? "secret";
  const bindFailStatus = options.bindFailStatus ?? errors.ESME_RBINDFAIL;
  const messageIdFor = options.messageId ?? ((index: number) => `smsc-${index + 1}`);
  const responseDelayMs = options.responseDelayMs ?? 0;

  const states = new Set<SessionState>();
  const binds: ReceivedBind[] = [];
  const submits: ReceivedSubmit[] = [];
  const receiptAcks: ReceiptAck[] = [];
  const harnessErrors: Error[] = [];
  let connectionsAccepted = 0;
  let enquireLinks = 0;
  let unbinds = 0;
  let stopped = false;

  const respond = (state: SessionState, pdu: PDU, params?: Record<string, unknown>) => {
    if (!state.closed) state.session.send(pdu.response(params));
  };

  const onBind = (state: SessionState, pdu: PDU) => {
    const bind: ReceivedBind = {
      command: pdu.command as BindCommand,
      system_id: String(pdu.system_id ?? ""),
      password: String(pdu.password ?? ""),
      system_type: String(pdu.system_type ?? ""),
      interface_version: Number(pdu.interface_version ?? 0),
      addr_ton: Number(pdu.addr_ton ?? 0),
      addr_npi: Number(pdu.addr_npi ?? 0),
      address_range: String(pdu.address_range ?? ""),
      commandStatus: errors.ESME_ROK,
      sessionId: state.id,
    };
    let status: number;
    if (state.bound !== undefined) {
      status = errors.ESME_RALYBND;
    } else {
      const scripted = options.bindAnswer?.(bind, binds.length);
      if (scripted !== undefined) status = scripted;
      else if (bind.system_id !== systemId) status = bindFailStatus;
      else if (bind.password !== password) status = bindFailStatus;
      else status = errors.ESME_ROK;
    }
    bind.commandStatus = status;
    binds.push(bind);
    if (status === errors.ESME_ROK) {
      state.bound = bind.command;
      respond(state, pdu, { system_id: "TESTSMSC" });
      return;
    }
    respond(state, pdu, { command_status: status });
    if (state.bound === undefined) state.session.close();
  };

  const onSubmit = (state: SessionState, pdu: PDU) => {
    if (state.bound !== "bind_transceiver" && state.bound !== "bind_transmitter") {
      respond(state, pdu, { command_status: errors.ESME_RINVBNDSTS });
      return;
    }
    const raw = state.lastRaw();
    if (
      raw === undefined ||
      raw.readUInt32BE(4) !== pdu.command_id ||
      raw.readUInt32BE(12) !== pdu.sequence_number
    ) {
      harnessErrors.push(new Error(`could not capture the raw bytes of submit_sm #${pdu.sequence_number}`));
      respond(state, pdu, { command_status: errors.ESME_RSYSERR });
      return;
    }
    let parsed: ParsedSubmit;
    try {
      parsed = parseSubmitSm(raw);
    } catch (error) {
      harnessErrors.push(error instanceof Error ? error : new Error(String(error)));
      respond(state, pdu, { command_status: errors.ESME_RINVMSGLEN });
      return;
    }
    const submit: ReceivedSubmit = {
      ...parsed,
      sessionId: state.id,
      raw,
      pdu,
      receivedAt: Date.now(),
      commandStatus: errors.ESME_ROK,
      messageId: undefined,
      responded: false,
    };
    const index = submits.length;
    submits.push(submit);
    if (options.withhold?.(submit, index)) return;
    const status = options.answer?.(submit, index) ?? errors.ESME_ROK;
    submit.commandStatus = status;
    if (status === errors.ESME_ROK) submit.messageId = messageIdFor(index);
    const send = () => {
      if (status === errors.ESME_ROK) respond(state, pdu, { message_id: submit.messageId });
      else respond(state, pdu, { command_status: status });
      submit.responded = !state.closed;
    };
    if (responseDelayMs > 0) setTimeout(send, responseDelayMs);
    else send();
  };

  const onPdu = (state: SessionState, pdu: PDU) => {
    if (pdu.isResponse()) return; // deliver_sm_resp etc.: handled by send() callbacks
    if (BIND_COMMANDS.has(pdu.command)) return onBind(state, pdu);
    switch (pdu.command) {
      case "submit_sm":
        return onSubmit(state, pdu);
      case "enquire_link":
        enquireLinks += 1;
        return respond(state, pdu);
      case "unbind":
        unbinds += 1;
        respond(state, pdu);
        state.bound = undefined;
        state.session.close();
        return;
      case "unknown":
        return respond(state, pdu); // generic_nack ESME_RINVCMDID
      default:
        return respond(state, pdu, { command_status: errors.ESME_RINVCMDID });
    }
  };

  const server = smpp.createServer((session) => {
    connectionsAccepted += 1;
    const state: SessionState = {
      id: connectionsAccepted,
      session,
      bound: undefined,
      closed: false,
      lastRaw: captureRawPdus(session),
    };
    states.add(state);
    session.on("error", () => {
      // ECONNRESET and the like when a client (or dropConnections) kills the socket.
    });
    session.on("close", () => {
      state.closed = true;
      states.delete(state);
    });
    session.on("pdu", (pdu) => onPdu(state, pdu));
  });

  server.listen(options.port ?? 0, "127.0.0.1");
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => Promise.reject(error)),
  ]);
  const port = (server.address() as AddressInfo).port;

  const receiptTarget = (messageId: string): SessionState | undefined => {
    const canReceive = (state: SessionState) =>
      !state.closed && (state.bound === "bind_transceiver" || state.bound === "bind_receiver");
    const submit = submits.find((s) => s.messageId === messageId);
    const origin = [...states].find((state) => state.id === submit?.sessionId);
    if (origin !== undefined && canReceive(origin)) return origin;
    return [...states].reverse().find(canReceive);
  };

  const sendReceipt = (messageId: string, receipt: ReceiptOptions): Promise<ReceiptAck> => {
    const state = receiptTarget(messageId);
    if (state === undefined) {
      return Promise.reject(new Error("no open session bound as transceiver or receiver"));
    }
    const submit = submits.find((s) => s.messageId === messageId);
    const params: Record<string, unknown> = {
      service_type: "",
      source_addr_ton: submit?.dest_addr_ton ?? 1,
      source_addr_npi: submit?.dest_addr_npi ?? 1,
      source_addr: submit?.destination_addr ?? "",
      dest_addr_ton: submit?.source_addr_ton ?? 5,
      dest_addr_npi: submit?.source_addr_npi ?? 0,
      destination_addr: submit?.source_addr ?? "",
      esm_class: 0x04,
      data_coding: 0,
      // A Buffer is sent as-is; a string would be re-encoded as GSM 03.38 with data_coding 1.
      short_message: Buffer.from(receiptText(messageId, receipt), "latin1"),
    };
    if (receipt.withTlv) {
      params.receipted_message_id = messageId;
      params.message_state = MESSAGE_STATE[receipt.stat];
    }
    const timeoutMs = receipt.timeoutMs ?? 5000;
    return new Promise<ReceiptAck>((resolve, reject) => {
      const onClose = () => finish(new Error(`session closed before the deliver_sm_resp for ${messageId}`));
      const timer = setTimeout(
        () => finish(new Error(`no deliver_sm_resp for ${messageId} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const finish = (error: Error | undefined, ack?: ReceiptAck) => {
        clearTimeout(timer);
        state.session.off("close", onClose);
        if (ack !== undefined) resolve(ack);
        else reject(error);
      };
      state.session.once("close", onClose);
      const sent = state.session.send(new smpp.PDU("deliver_sm", params), (resp) => {
        const ack: ReceiptAck = {
          messageId,
          sessionId: state.id,
          commandStatus: resp.command_status,
          sequence_number: resp.sequence_number,
        };
        receiptAcks.push(ack);
        finish(undefined, ack);
      });
      if (!sent) finish(new Error("session socket is not writable"));
    });
  };

  const destroyAll = async (): Promise<void> => {
    const open = [...states].filter((state) => !state.closed);
    await Promise.all(
      open.map(
        (state) =>
          new Promise<void>((resolve) => {
            state.session.destroy(() => resolve());
          }),
      ),
    );
  };

  const waitFor = async (predicate: () => boolean, timeoutMs = 5000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`test SMSC: condition not met within ${timeoutMs} ms`);
      await delay(5);
    }
  };

  return {
    port,
    url: `smpp://${encodeURIComponent(systemId)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    systemId,
    password,
    binds,
    submits,
    receiptAcks,
    errors: harnessErrors,
    get sessions() {
      return states.size;
    },
    get boundSessions() {
      return [...states].filter((state) => state.bound !== undefined).length;
    },
    get connectionsAccepted() {
      return connectionsAccepted;
    },
    get enquireLinks() {
      return enquireLinks;
    },
    get unbinds() {
      return unbinds;
    },
    sendReceipt,
    dropConnections: destroyAll,
    waitFor,
    async stop() {
      if (stopped) return;
      stopped = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await destroyAll();
      await closed;
    },
  };
}
