// A lean SMSC for the benchmark, on loopback: binds anyone with the configured credentials,
// answers every submit_sm at once with a message id, answers enquire_link and unbind, and only
// counts. Nothing is recorded per message (the test SMSC in test/helpers/smsc.ts records every
// byte, which is too slow to stand in for a carrier here); `onSubmit` lets a scenario watch the
// destinations it cares about. With `receiptDelayMs` it also sends a
// DELIVRD delivery receipt (deliver_sm) for every accepted submit that long after it.

import { once } from "node:events";
import type { AddressInfo } from "node:net";
import smpp, { type PDU, type Session } from "smpp";

const { errors } = smpp;

const BIND_COMMANDS = ["bind_transceiver", "bind_transmitter", "bind_receiver"] as const;

export interface BenchSmsc {
  readonly port: number;
  /** `smpp://<system_id>:<password>@127.0.0.1:<port>` */
  readonly url: string;
  /** submit_sm answered with ESME_ROK since start. */
  readonly submits: number;
  /** Date.now() of the first and the last submit_sm (undefined before the first). */
  readonly firstSubmitAt: number | undefined;
  readonly lastSubmitAt: number | undefined;
  readonly boundSessions: number;
  /** Binds refused for wrong credentials. */
  readonly refusedBinds: number;
  /** Delivery receipts sent, and acknowledged with deliver_sm_resp. */
  readonly receiptsSent: number;
  readonly receiptsAcked: number;
  /** Receipts scheduled but not sent yet. */
  readonly receiptsPending: number;
  /** Closes every session and the listening socket. Idempotent. */
  stop(): Promise<void>;
}

export interface BenchSmscOptions {
  systemId: string;
  password: string;
  /** Send a DELIVRD receipt this many ms after each accepted submit; no receipts when unset. */
  receiptDelayMs?: number;
  /** Leave Nagle's algorithm on (the default for a Node socket); off (TCP_NODELAY) otherwise. */
  nagle?: boolean;
  /** Told of every accepted submit_sm: its destination_addr and when it arrived (Date.now()). */
  onSubmit?: (destination: string, receivedAt: number) => void;
}

export async function startBenchSmsc(options: BenchSmscOptions): Promise<BenchSmsc> {
  const credentials = { systemId: options.systemId, password: options.password };
  let submits = 0;
  let receiptsSent = 0;
  let receiptsAcked = 0;
  const timers = new Set<NodeJS.Timeout>();
  let firstSubmitAt: number | undefined;
  let lastSubmitAt: number | undefined;
  let refusedBinds = 0;
  let nextMessageId = 1;
  const bound = new Set<Session>();
  const open = new Set<Session>();
  let stopping: Promise<void> | undefined;

  const server = smpp.createServer((session) => {
    open.add(session);
    // Responses go out at once. With Nagle's algorithm left on, a submit_sm_resp can wait for the
    // client's delayed ACK (up to 40 ms on Linux) whenever the client has nothing else to send.
    if (options.nagle !== true) session.socket.setNoDelay(true);
    // ECONNRESET and the like when the client goes away abruptly: the session just closes.
    session.on("error", () => {});
    session.on("close", () => {
      open.delete(session);
      bound.delete(session);
    });
    for (const command of BIND_COMMANDS) {
      session.on(command, (pdu: PDU) => {
        if (pdu.system_id !== credentials.systemId || pdu.password !== credentials.password) {
          refusedBinds += 1;
          session.send(pdu.response({ command_status: errors.ESME_RBINDFAIL }));
          session.close();
          return;
        }
        bound.add(session);
        session.send(pdu.response({ system_id: "BENCHSMSC" }));
      });
    }
    session.on("submit_sm", (pdu: PDU) => {
      if (!bound.has(session)) {
        session.send(pdu.response({ command_status: errors.ESME_RINVBNDSTS }));
        return;
      }
      const now = Date.now();
      submits += 1;
      firstSubmitAt ??= now;
      lastSubmitAt = now;
      options.onSubmit?.(String(pdu.destination_addr), now);
      const messageId = (nextMessageId++).toString(16);
      session.send(pdu.response({ message_id: messageId }));
      if (options.receiptDelayMs !== undefined) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          sendReceipt(session, pdu, messageId);
        }, options.receiptDelayMs);
        timers.add(timer);
      }
    });
    session.on("enquire_link", (pdu: PDU) => session.send(pdu.response()));
    session.on("unbind", (pdu: PDU) => {
      bound.delete(session);
      session.send(pdu.response());
      session.close();
    });
  });

  const sendReceipt = (session: Session, submit: PDU, messageId: string) => {
    if (!bound.has(session)) return;
    const text = `id:${messageId} sub:001 dlvrd:001 submit date:2611221200 done date:2611221200 stat:DELIVRD err:000 text:`;
    const sent = session.deliver_sm(
      {
        source_addr_ton: submit.dest_addr_ton,
        source_addr_npi: submit.dest_addr_npi,
        source_addr: submit.destination_addr,
        dest_addr_ton: submit.source_addr_ton,
        dest_addr_npi: submit.source_addr_npi,
        destination_addr: submit.source_addr,
        esm_class: 0x04,
        data_coding: 0,
        // A Buffer goes out as it is; a string would be re-encoded.
        short_message: Buffer.from(text, "latin1"),
        receipted_message_id: messageId,
        message_state: 2,
      },
      () => {
        receiptsAcked += 1;
      },
    );
    if (sent) receiptsSent += 1;
  };

  server.listen(0, "127.0.0.1");
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]) => Promise.reject(error)),
  ]);
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: `smpp://${encodeURIComponent(credentials.systemId)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`,
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
      return bound.size;
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
      return timers.size;
    },
    stop() {
      stopping ??= (async () => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all(
          [...open].map((session) => new Promise<void>((resolve) => session.destroy(() => resolve()))),
        );
        await closed;
      })();
      return stopping;
    },
  };
}
