// Minimal ambient types for the `smpp` package (0.5.1, CommonJS, ships no types).
//
// Only what Dakiya uses as an SMPP client (ESME) and in the test SMSC is described here.
// Runtime shape under Node's ESM/CJS interop: `connect`, `createServer`, `addTLV`, `PDU`,
// `Session` and `Server` are real named exports; `errors`, `consts`, `types`, `encodings` and the
// `ESME_*` constants are copied onto `module.exports` in a loop, which Node cannot detect, so they
// exist only on the default export (`import smpp from "smpp"; smpp.errors.ESME_ROK`).

declare module "smpp" {
  import { EventEmitter } from "node:events";
  import * as net from "node:net";

  /** Parameter values for a PDU: SMPP field names (`system_id`, `short_message`, TLV names, …). */
  export type PduParams = Record<string, unknown>;

  export type PduCallback = (pdu: PDU) => void;

  /**
   * `short_message` / `message_payload` after the library's decode filter on a received PDU.
   * `udh` is the list of information elements (each `IEI, length, data…`), WITHOUT the leading
   * UDHL byte; `message` is a string for data_coding 0/1 (GSM 03.38), 3 (Latin-1) and 8 (UCS-2),
   * and the raw Buffer for codings the library has no codec for (2, 4, …).
   */
  export interface DecodedShortMessage {
    udh?: Buffer[];
    message: string | Buffer;
  }

  export class PDU {
    /** Builds a request/response; params not defined for `command` (and unregistered TLV names) are dropped. */
    constructor(command: string, options?: PduParams);
    command: string;
    command_id: number;
    command_length: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    /** The matching `<command>_resp` (or `generic_nack` for an unknown command). A non-zero `command_status` gives a header-only PDU. */
    response(options?: PduParams): PDU;
    toBuffer(): Buffer;
    static fromBuffer(buffer: Buffer): PDU | false;
    static maxLength: number;
    [key: string]: unknown;
  }

  /** All that `Session.send` reads of a PDU: it sets a request's sequence_number, then writes its bytes. */
  export interface OutgoingPdu {
    sequence_number: number;
    isResponse(): boolean;
    toBuffer(): Buffer;
  }

  export interface ConnectOptions {
    /** `smpp://host:port` or `ssmpp://host:port` (TLS). Note: the scheme is `ssmpp`, not `smpps`; credentials in it are ignored. */
    url?: string;
    host?: string;
    port?: number;
    tls?: boolean;
    /** Milliseconds between automatic `enquire_link`s once connected (0/undefined: none). */
    auto_enquire_link_period?: number;
    /** Passed through to `net.connect` / `tls.connect` with the rest of the options. */
    rejectUnauthorized?: boolean;
    servername?: string;
    ca?: string | Buffer | Array<string | Buffer>;
    [key: string]: unknown;
  }

  /**
   * A PDU shortcut (`session.submit_sm(params, onResponse)`): builds `new PDU(command, params)` and
   * sends it. Returns false (and never calls back) when the socket is not writable.
   */
  export type PduShortcut = (
    options?: PduParams,
    responseCallback?: PduCallback,
    sendCallback?: PduCallback,
  ) => boolean;

  export class Session extends EventEmitter {
    constructor(options: ConnectOptions & { socket?: net.Socket });
    socket: net.Socket;
    options: ConnectOptions;
    sequence: number;
    paused: boolean;
    /** Set on sessions created by a Server. */
    server?: Server;
    /** Request PDUs get the next sequence_number unless one is set; responses are written as-is. */
    send(pdu: PDU | OutgoingPdu, responseCallback?: PduCallback, sendCallback?: PduCallback): boolean;
    /** Reconnects a closed client session (same options). */
    connect(): void;
    /** `socket.end()`; callback on 'close'. */
    close(callback?: () => void): void;
    /** `socket.destroy()`; callback on 'close'. */
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
    bind_transceiver: PduShortcut;
    bind_transmitter: PduShortcut;
    bind_receiver: PduShortcut;
    submit_sm: PduShortcut;
    deliver_sm: PduShortcut;
    enquire_link: PduShortcut;
    unbind: PduShortcut;
    generic_nack: PduShortcut;

    on(event: "connect" | "secureConnect" | "close", listener: () => void): this;
    on(event: "error", listener: (error: Error) => void): this;
    /** 'pdu', 'send', 'unknown' and every command name ('submit_sm', 'deliver_sm_resp', …). */
    on(event: string, listener: (pdu: PDU) => void): this;
    once(event: "connect" | "secureConnect" | "close", listener: () => void): this;
    once(event: "error", listener: (error: Error) => void): this;
    once(event: string, listener: (pdu: PDU) => void): this;
  }

  export class Server extends net.Server {
    /** Open sessions (removed on socket close). */
    sessions: Session[];
    on(event: "session", listener: (session: Session) => void): this;
    on(event: string | symbol, listener: (...args: unknown[]) => void): this;
  }

  export interface ServerOptions extends net.ServerOpts {
    /** With both key and cert a TLS server is created. */
    key?: string | Buffer;
    cert?: string | Buffer;
  }

  export function connect(url?: string, listener?: () => void): Session;
  export function connect(options: ConnectOptions, listener?: () => void): Session;
  export function createServer(listener?: (session: Session) => void): Server;
  export function createServer(options: ServerOptions, listener?: (session: Session) => void): Server;

  /** Opaque field codec from the library's `types` table. */
  export interface FieldType {
    read(buffer: Buffer, offset: number, length?: number): unknown;
    write(value: unknown, buffer: Buffer, offset: number): void;
    size(value: unknown): number;
    default: unknown;
  }

  /**
   * Registers a TLV for EVERY session in the process (the table is module-global). Once
   * registered, a received TLV appears as `pdu[name]` instead of `pdu[<numeric id>]`, and only
   * registered names are ever written into an outgoing PDU.
   */
  export function addTLV(name: string, options: { id: number; type: FieldType; multiple?: boolean }): void;

  export interface Encoding {
    match(value: string): boolean;
    encode(value: string): Buffer;
    decode(value: Buffer): string;
  }

  type NumberTable<K extends string> = { readonly [P in K]: number } & Readonly<Record<string, number>>;

  const smpp: {
    connect: typeof connect;
    createServer: typeof createServer;
    addTLV: typeof addTLV;
    PDU: typeof PDU;
    Session: typeof Session;
    Server: typeof Server;
    types: {
      int8: FieldType;
      int16: FieldType;
      int32: FieldType;
      string: FieldType;
      cstring: FieldType;
      buffer: FieldType;
      tlv: {
        int8: FieldType;
        int16: FieldType;
        int32: FieldType;
        string: FieldType;
        cstring: FieldType;
        buffer: FieldType;
      };
    };
    errors: NumberTable<
      | "ESME_ROK"
      | "ESME_RINVMSGLEN"
      | "ESME_RINVCMDLEN"
      | "ESME_RINVCMDID"
      | "ESME_RINVBNDSTS"
      | "ESME_RALYBND"
      | "ESME_RSYSERR"
      | "ESME_RINVSRCADR"
      | "ESME_RINVDSTADR"
      | "ESME_RINVMSGID"
      | "ESME_RBINDFAIL"
      | "ESME_RINVPASWD"
      | "ESME_RINVSYSID"
      | "ESME_RMSGQFUL"
      | "ESME_RSUBMITFAIL"
      | "ESME_RTHROTTLED"
      | "ESME_RINVTLVVAL"
      | "ESME_RDELIVERYFAILURE"
      | "ESME_RUNKNOWNERR"
    >;
    encodings: {
      ASCII?: Encoding;
      LATIN1?: Encoding;
      UCS2?: Encoding;
      /** Codec name used for data_coding 0 (default "ASCII", meaning GSM 03.38). */
      default: string;
      detect(value: string): string | false;
    };
    consts: {
      REGISTERED_DELIVERY: NumberTable<"FINAL" | "FAILURE" | "SUCCESS">;
      ESM_CLASS: NumberTable<"MC_DELIVERY_RECEIPT" | "UDH_INDICATOR">;
      MESSAGE_STATE: NumberTable<
        | "SCHEDULED"
        | "ENROUTE"
        | "DELIVERED"
        | "EXPIRED"
        | "DELETED"
        | "UNDELIVERABLE"
        | "ACCEPTED"
        | "UNKNOWN"
        | "REJECTED"
        | "SKIPPED"
      >;
      TON: NumberTable<"UNKNOWN" | "INTERNATIONAL" | "NATIONAL" | "ALPHANUMERIC">;
      NPI: NumberTable<"UNKNOWN" | "ISDN">;
      ENCODING: NumberTable<"SMSC_DEFAULT" | "ASCII" | "IA5" | "LATIN1" | "BINARY" | "UCS2">;
    };
  };
  // Lets the default import double as a namespace for the types: `smpp.Session`, `smpp.PDU`.
  type PDUType = PDU;
  type SessionType = Session;
  type ServerType = Server;
  type PduParamsType = PduParams;
  type ConnectOptionsType = ConnectOptions;
  type DecodedShortMessageType = DecodedShortMessage;
  namespace smpp {
    type PDU = PDUType;
    type Session = SessionType;
    type Server = ServerType;
    type PduParams = PduParamsType;
    type ConnectOptions = ConnectOptionsType;
    type DecodedShortMessage = DecodedShortMessageType;
  }
  export default smpp;
}
