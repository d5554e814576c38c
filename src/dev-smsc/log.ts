/** The development SMSC's log: one line per event, for a person or (with --json) one JSON object. */
import { statusName } from "../delivery/carriers/smpp-route.js";
import type { DevSmscEvent } from "./server.js";
import { type DltTags, type SubmitView, viewSubmit } from "./submit-view.js";

export interface LogFormat {
  json: boolean;
  tags: DltTags;
  /** Check each submit's TM TLV against the PE–TM chain hash of its entity and these ids. */
  tmChain?: readonly string[];
}

/** The event as one line (no newline), stamped with `now`. */
export function formatEvent(event: DevSmscEvent, format: LogFormat, now = new Date()): string {
  const record = recordOf(event, format);
  if (format.json) return JSON.stringify({ at: now.toISOString(), ...record });
  return `${localTime(now)} ${humanLine(event, record, format)}`;
}

type Fields = Record<string, unknown> & { event: string };

function recordOf(event: DevSmscEvent, format: LogFormat): Fields {
  switch (event.type) {
    case "submit_sm": {
      const view = viewSubmit(event.submit, format.tags, format.tmChain);
      return {
        event: "submit_sm",
        number: event.number,
        session: event.session,
        sequence_number: event.submit.sequence,
        ...view,
        status: statusName(event.status),
        message_id: event.messageId ?? null,
      };
    }
    case "bind":
      return {
        event: "bind",
        session: event.session,
        command: event.command,
        system_id: event.systemId,
        status: statusName(event.status),
      };
    case "refused":
      return {
        event: "refused",
        session: event.session,
        command: event.command,
        status: statusName(event.status),
        reason: event.reason,
      };
    case "receipt":
      return {
        event: "receipt",
        session: event.session,
        message_id: event.messageId,
        stat: event.stat,
        err: event.err,
      };
    case "receipt_held":
      return { event: "receipt_held", message_id: event.messageId };
    case "dropped":
      return { event: "dropped", session: event.session, after_seconds: event.afterMs / 1000 };
    case "unbind":
    case "closed":
      return { event: event.type, session: event.session };
  }
}

function humanLine(event: DevSmscEvent, record: Fields, format: LogFormat): string {
  switch (event.type) {
    case "submit_sm":
      return submitLine(event.number, event.session, record as unknown as SubmitView & Fields, format);
    case "bind":
      return event.status === 0
        ? `session ${event.session}: ${event.command} as ${JSON.stringify(event.systemId)}: bound`
        : `session ${event.session}: ${event.command} as ${JSON.stringify(event.systemId)}: refused ${record.status}`;
    case "refused":
      return `session ${event.session}: ${event.command} answered ${record.status} (${event.reason})`;
    case "receipt":
      return `receipt for ${event.messageId} on session ${event.session}: stat:${event.stat} err:${event.err}`;
    case "receipt_held":
      return `receipt for ${event.messageId} held: no session is bound to receive it; it goes out on the next bind`;
    case "dropped":
      return `session ${event.session}: dropped ${event.afterMs / 1000} s after its bind (--drop-after-seconds)`;
    case "unbind":
      return `session ${event.session}: unbind`;
    case "closed":
      return `session ${event.session}: closed`;
  }
}

function submitLine(number: number, session: number, view: SubmitView & Fields, format: LogFormat): string {
  const part = view.udh ? ` part ${view.udh.part}/${view.udh.parts} (ref ${view.udh.reference})` : "";
  let tm = view.tm ?? "(none)";
  if (view.tm_matches_chain === true) tm += " (the PE–TM chain hash)";
  if (view.tm_matches_chain === false) {
    tm += ` (NOT the PE–TM chain hash of entity ${view.entity_id ?? "(none)"} and ${format.tmChain?.join(",")})`;
  }
  const answer = view.message_id === null ? String(view.status) : `${view.status} id ${view.message_id}`;
  return (
    `submit_sm #${number} session ${session}: to ${view.destination} from ${view.source}` +
    ` data_coding ${view.data_coding} (${view.encoding})${part}` +
    ` entity ${view.entity_id ?? "(none)"} template ${view.template_id ?? "(none)"} tm ${tm}` +
    ` validity ${view.validity_period || "(default)"} priority ${view.priority_flag}` +
    ` → ${answer}: ${JSON.stringify(view.text)}`
  );
}

function localTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}
