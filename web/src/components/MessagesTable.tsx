import { Link } from "react-router";
import { isCancellable, type ListedMessage, type Message } from "../api";
import { addInr, channelLabel, formatDateTime, formatInr, formatShortDateTime } from "../format";
import { useSignedIn } from "../session";
import { IndiaTime } from "./IndiaTime";
import { StatusBadge } from "./StatusBadge";

/**
 * Messages, newest first; with `onCancel`, each waiting message has a Cancel button. `detailed`
 * adds the sender, template and reference columns and the error code under the status, with the
 * segments under the cost to leave them room (the Messages page; the overview keeps its short list).
 */
export function MessagesTable({
  messages,
  caption,
  detailed = false,
  onCancel,
}: {
  messages: Array<Message & Partial<Pick<ListedMessage, "template_name">>>;
  caption: string;
  detailed?: boolean;
  onCancel?: (message: Message) => void;
}) {
  const { can } = useSignedIn();
  return (
    <div className="table-wrap">
      <table className={`table table-stack${detailed ? " table-compact" : ""}`}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">To</th>
            {detailed ? (
              <>
                <th scope="col">Sender</th>
                <th scope="col">Template</th>
                <th scope="col">Reference</th>
              </>
            ) : null}
            <th scope="col">Channel</th>
            <th scope="col">Status</th>
            {detailed ? null : (
              <th scope="col" className="numeric">
                Segments
              </th>
            )}
            <th scope="col" className="numeric">
              Cost
            </th>
            {onCancel ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
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
              {detailed ? (
                <>
                  <td data-label="Sender" className="mono">
                    {message.sender ?? <span className="muted">—</span>}
                  </td>
                  <td data-label="Template" className="cell-clip" title={message.template_id ?? undefined}>
                    {message.template_name ??
                      (message.template_id ? (
                        <span className="mono">{message.template_id}</span>
                      ) : (
                        <span className="muted">—</span>
                      ))}
                  </td>
                  <td
                    data-label="Reference"
                    className="mono cell-clip"
                    title={message.reference ?? undefined}
                  >
                    {message.reference ?? <span className="muted">—</span>}
                  </td>
                </>
              ) : null}
              <td data-label="Channel">{channelLabel(message.channel)}</td>
              <td data-label="Status">
                <StatusBadge status={message.status} />
                {message.status === "scheduled" && message.send_at ? (
                  <span className="status-note">
                    Sends at <IndiaTime iso={message.send_at} />
                  </span>
                ) : null}
                {detailed && message.error_code ? (
                  <span className="status-note mono error-code" title={message.error_message ?? undefined}>
                    {message.error_code}
                  </span>
                ) : null}
              </td>
              {detailed ? null : (
                <td data-label="Segments" className="numeric mono">
                  {message.segments}
                </td>
              )}
              <td data-label="Cost" className="numeric mono">
                <Cost message={message} />
                {detailed ? (
                  <span className="status-note">
                    {message.segments} {message.segments === 1 ? "segment" : "segments"}
                  </span>
                ) : null}
              </td>
              {onCancel ? (
                <td data-label="Actions" className="actions-cell">
                  {isCancellable(message) && can("POST /dashboard/api/messages/:id/cancel") ? (
                    <button
                      type="button"
                      className="button button-small button-ghost-danger"
                      onClick={() => onCancel(message)}
                      aria-label={`Cancel the message to ${message.to}`}
                    >
                      Cancel
                    </button>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The charge; one refunded whole (a failed or cancelled message) struck through, with the refund beside it,
 * and one refunded in part (a long message only partly sent) with what went back of what was charged.
 */
export function Cost({ message }: { message: Message }) {
  if (!message.refund) return <>{formatInr(message.cost)}</>;
  if (message.status !== "failed" && message.status !== "cancelled") {
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
