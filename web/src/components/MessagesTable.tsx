import { Link } from "react-router";
import type { Message } from "../api";
import { addInr, channelLabel, formatDateTime, formatInr, formatShortDateTime } from "../format";
import { StatusBadge } from "./StatusBadge";

export function MessagesTable({ messages, caption }: { messages: Message[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">To</th>
            <th scope="col">Channel</th>
            <th scope="col">Status</th>
            <th scope="col" className="numeric">
              Segments
            </th>
            <th scope="col" className="numeric">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => (
            <tr key={message.id}>
              <td data-label="Time">
                <Link to={`/messages/${message.id}`} title={`Open ${message.id}`}>
                  {formatShortDateTime(message.created_at)}
                </Link>
              </td>
              <td data-label="To" className="mono">
                {message.to}
              </td>
              <td data-label="Channel">{channelLabel(message.channel)}</td>
              <td data-label="Status">
                <StatusBadge status={message.status} />
              </td>
              <td data-label="Segments" className="numeric mono">
                {message.segments}
              </td>
              <td data-label="Cost" className="numeric mono">
                <Cost message={message} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The charge; one refunded whole (a failed message) struck through, with the refund beside it,
 * and one refunded in part (a long message only partly sent) with what went back of what was charged.
 */
export function Cost({ message }: { message: Message }) {
  if (!message.refund) return <>{formatInr(message.cost)}</>;
  if (message.status !== "failed") {
    return (
      <span
        title={`${formatInr(message.refund.amount)} refunded ${formatDateTime(message.refund.refunded_at)}`}
      >
        {formatInr(message.cost)}{" "}
        <span className="refund-tag">
          {formatInr(message.refund.amount)} of {formatInr(addInr(message.cost, message.refund.amount))}{" "}
          refunded
        </span>
      </span>
    );
  }
  return (
    <span
      className="cost-refunded"
      title={`${formatInr(message.refund.amount)} refunded ${formatDateTime(message.refund.refunded_at)}`}
    >
      <s>{formatInr(message.cost)}</s> <span className="refund-tag">refunded</span>
    </span>
  );
}
