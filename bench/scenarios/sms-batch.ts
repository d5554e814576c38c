// sms-batch: POST /v2/sms/batch with the live key, BENCH_BATCH_SIZE messages a request (100 by
// default), each to a distinct destination, through the worker to the bench SMSC: the load of
// sms-live-smpp (scenarios/live-smpp.ts runs it), sent in batches. With --peer kannel it is
// compared with Kannel's sendsms taking the same number of recipients a request (kannel.ts).

import { BATCH_SIZE } from "../options.js";
import { type LiveLoad, liveSend } from "./live-smpp.js";

const ACCEPTED = /"accepted":(\d+)/;

export const BATCH_SEND: LiveLoad = {
  scenario: "sms-batch",
  description:
    `POST /v2/sms/batch with a live key, ${BATCH_SIZE} messages a request (one-variable ` +
    "transactional template, a distinct destination each)",
  path: "/v2/sms/batch",
  messagesPerRequest: BATCH_SIZE,
  body: (first) =>
    JSON.stringify({ messages: Array.from({ length: BATCH_SIZE }, (_, i) => liveSend(first + i)) }),
  // The counts close the answer: look there rather than parse 100 messages.
  accepted: (body) => Number(ACCEPTED.exec(body.slice(-64))?.[1] ?? 0),
};
