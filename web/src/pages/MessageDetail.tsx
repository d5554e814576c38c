import { useCallback, useState } from "react";
import { Link, useParams } from "react-router";
import { ApiError, api, isCancellable, type MessageDetail } from "../api";
import { CancelMessageDialog, cancelledNotice } from "../components/CancelMessageDialog";
import { Fact } from "../components/Fact";
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { IndiaTime } from "../components/IndiaTime";
import { Cost } from "../components/MessagesTable";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { useEnvironment } from "../environment";
import { channelLabel, formatDateTime, formatInr, priorityLabel } from "../format";
import { useSignedIn } from "../session";
import { useResource } from "../use-resource";

export function MessageDetailPage() {
  const { id = "" } = useParams();
  const { environment } = useEnvironment();
  const { can } = useSignedIn();
  const load = useCallback(
    (signal: AbortSignal) => api.getMessage(environment, id, signal),
    [environment, id],
  );
  const message = useResource(load);
  const notFound = message.error instanceof ApiError && message.error.status === 404;
  const [cancelling, setCancelling] = useState(false);
  const [outcome, setOutcome] = useState<{ done: string } | { refused: Error } | undefined>();

  return (
    <>
      <p className="breadcrumb">
        <Link to="/messages">← Messages</Link>
      </p>
      <PageHeader
        title="Message"
        description={<span className="mono">{id}</span>}
        actions={
          message.data ? (
            <div className="message-actions">
              <StatusBadge status={message.data.status} />
              {isCancellable(message.data) && can("POST /dashboard/api/messages/:id/cancel") ? (
                <button
                  type="button"
                  className="button button-small button-ghost-danger"
                  onClick={() => {
                    setOutcome(undefined);
                    setCancelling(true);
                  }}
                >
                  Cancel message
                </button>
              ) : null}
            </div>
          ) : null
        }
      />
      {outcome && "done" in outcome ? <SuccessNotice>{outcome.done}</SuccessNotice> : null}
      <ErrorNotice error={outcome && "refused" in outcome ? outcome.refused : undefined} />
      {message.loading && !message.data ? <Loading /> : null}
      {notFound ? (
        <EmptyState title={`No ${environment} message with this id`}>
          <p>
            Messages belong to one environment. If it was sent with a{" "}
            {environment === "live" ? "sandbox" : "live"} key, switch environments at the top of the page.
          </p>
        </EmptyState>
      ) : (
        <ErrorNotice error={message.error} />
      )}
      {message.data ? <MessageDetails message={message.data} /> : null}
      {cancelling && message.data ? (
        <CancelMessageDialog
          message={message.data}
          environment={environment}
          onCancelled={(cancelled) => {
            setCancelling(false);
            setOutcome({ done: cancelledNotice(cancelled) });
            message.reload();
          }}
          onRefused={(error) => {
            setCancelling(false);
            setOutcome({ refused: error });
            message.reload();
          }}
          onClose={() => setCancelling(false)}
        />
      ) : null}
    </>
  );
}

function MessageDetails({ message }: { message: MessageDetail }) {
  const failed = message.error_code !== null || message.error_message !== null;
  return (
    <div className="detail-grid">
      <section className="card" aria-labelledby="message-content">
        <h2 id="message-content">Content</h2>
        <p className="message-text">{message.text}</p>
        <dl className="facts">
          <Fact term="To" mono>
            {message.to}
          </Fact>
          <Fact term="Channel">{channelLabel(message.channel)}</Fact>
          <Fact term="Priority">{priorityLabel(message.priority)}</Fact>
          <Fact term="Encoding" mono>
            {message.encoding}
          </Fact>
          <Fact term="Segments" mono>
            {message.segments}
          </Fact>
          <Fact term="Cost" mono>
            <Cost message={message} />
          </Fact>
          {message.refund ? (
            <Fact term="Refund">
              {formatInr(message.refund.amount)} back to the {message.environment} balance
            </Fact>
          ) : null}
          <Fact term="Sender" mono>
            {message.sender ?? "—"}
          </Fact>
          <Fact term="Template" mono>
            {message.template_id ?? "—"}
          </Fact>
          <Fact term="Reference" mono>
            {message.reference ?? "—"}
          </Fact>
          <Fact term="Environment">{message.environment}</Fact>
          <Fact term="Created">{formatDateTime(message.created_at)}</Fact>
          {message.send_at ? (
            <Fact term={message.status === "scheduled" ? "Sends at" : "Scheduled for"}>
              <IndiaTime iso={message.send_at} />
            </Fact>
          ) : null}
          <Fact term="Expires">{message.expires_at ? <IndiaTime iso={message.expires_at} /> : "—"}</Fact>
        </dl>
      </section>

      <div className="detail-side">
        {failed ? (
          <section className="card card-danger" aria-labelledby="message-error">
            <h2 id="message-error">Error</h2>
            <dl className="facts">
              <Fact term="Code" mono>
                {message.error_code ?? "—"}
              </Fact>
              <Fact term="Message">{message.error_message ?? "—"}</Fact>
            </dl>
            {message.carrier_error ? (
              <p className="small muted carrier-code">
                Carrier code <span className="mono">{message.carrier_error}</span>
              </p>
            ) : null}
          </section>
        ) : null}

        <section className="card" aria-labelledby="message-history">
          <h2 id="message-history">Status history</h2>
          <ol className="timeline">
            {message.history.map((step) => (
              <li key={`${step.status}-${step.at}`}>
                <StatusBadge status={step.status} />
                <time dateTime={step.at}>{formatDateTime(step.at)}</time>
              </li>
            ))}
            {message.refund ? (
              <li>
                <span className="badge badge-green">Refunded {formatInr(message.refund.amount)}</span>
                <time dateTime={message.refund.refunded_at}>
                  {formatDateTime(message.refund.refunded_at)}
                </time>
              </li>
            ) : null}
          </ol>
        </section>

        <section className="card" aria-labelledby="message-delivery">
          <h2 id="message-delivery">Delivery</h2>
          <dl className="facts">
            <Fact term="Attempts" mono>
              {message.attempts}
            </Fact>
            <Fact term="Carrier message ids" mono>
              {message.carrier_message_ids.length === 0 ? (
                "—"
              ) : (
                <ul className="plain-list">
                  {message.carrier_message_ids.map((carrierId) => (
                    <li key={carrierId}>{carrierId}</li>
                  ))}
                </ul>
              )}
            </Fact>
          </dl>
        </section>
      </div>
    </div>
  );
}
