import { Link } from "react-router";
import type { Message } from "../api";
import { channelLabel, formatInr, formatShortDateTime } from "../format";
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
                {formatInr(message.cost)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
