import { useCallback, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { ALL_WEBHOOK_EVENTS, api, type WebhookEndpoint } from "../api";
import { Allowed } from "../components/Allowed";
import { Dialog } from "../components/Dialog";
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { WebhookEndpointForm } from "../components/WebhookEndpointForm";
import { useEnvironment } from "../environment";
import { formatDateTime, formatIndiaTime, formatUtc } from "../format";
import { useSignedIn } from "../session";
import { useResource } from "../use-resource";

/** What the endpoint page shows once, after the endpoint was created or deleted. */
export interface WebhookNavigationState {
  created?: boolean;
  deleted?: string;
}

export function WebhooksPage() {
  const { environment } = useEnvironment();
  const endpoints = useResource(
    useCallback((signal: AbortSignal) => api.listWebhooks(environment, signal), [environment]),
  );
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const deleted = (useLocation().state as WebhookNavigationState | null)?.deleted;

  return (
    <>
      <PageHeader
        title="Webhooks"
        description={
          <>
            Dakiya POSTs an event to your endpoints whenever a message or OTP changes status, signed the{" "}
            <a href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">
              Standard Webhooks
            </a>{" "}
            way. Endpoints belong to one environment: these get {environment} events.
          </>
        }
        actions={
          <Allowed route="POST /dashboard/api/webhooks">
            <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
              Add endpoint
            </button>
          </Allowed>
        }
      />
      {deleted ? <SuccessNotice>Endpoint {deleted} deleted.</SuccessNotice> : null}
      <ErrorNotice error={endpoints.error} />
      <section className="card card-flush" aria-label={`${environment} webhook endpoints`}>
        {endpoints.loading && !endpoints.data ? <Loading /> : null}
        {endpoints.data && endpoints.data.data.length === 0 ? (
          <EmptyState title={`No ${environment} endpoints`}>
            <p>
              Add the URL of your backend to hear about deliveries, failures and verified passcodes as they
              happen, instead of polling <span className="mono">GET /v2/sms/&#123;id&#125;</span>.
            </p>
            <Allowed route="POST /dashboard/api/webhooks">
              <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
                Add a {environment} endpoint
              </button>
            </Allowed>
          </EmptyState>
        ) : null}
        {endpoints.data && endpoints.data.data.length > 0 ? (
          <EndpointsTable endpoints={endpoints.data.data} />
        ) : null}
      </section>

      {creating ? (
        <Dialog title={`Add a ${environment} endpoint`} onClose={() => setCreating(false)} size="wide">
          <WebhookEndpointForm
            environment={environment}
            initial={{ url: "", description: "", events: [ALL_WEBHOOK_EVENTS] }}
            submitLabel="Add endpoint"
            busyLabel="Adding…"
            onCancel={() => setCreating(false)}
            onSubmit={async (values) => {
              const endpoint = await api.createWebhook(environment, {
                ...values,
                description: values.description || undefined,
              });
              const state: WebhookNavigationState = { created: true };
              navigate(`/developers/webhooks/${encodeURIComponent(endpoint.id)}`, { state });
            }}
          />
        </Dialog>
      ) : null}
    </>
  );
}

function EndpointsTable({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  // An endpoint's page shows its signing secret: members who may not see it get the URL as text.
  const opensDetail = useSignedIn().can("GET /dashboard/api/webhooks/:id");
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id}>
              <td data-label="Endpoint" className="endpoint-cell">
                {opensDetail ? (
                  <Link
                    to={`/developers/webhooks/${encodeURIComponent(endpoint.id)}`}
                    className="endpoint-url mono"
                  >
                    {endpoint.url}
                  </Link>
                ) : (
                  <span className="endpoint-url mono">{endpoint.url}</span>
                )}
                {endpoint.description ? <span className="muted small">{endpoint.description}</span> : null}
              </td>
              <td data-label="Events">
                <EventList events={endpoint.events} />
              </td>
              <td data-label="Status">
                <EndpointStatus endpoint={endpoint} />
              </td>
              <td data-label="Created" className="nowrap">
                {formatDateTime(endpoint.created_at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An endpoint's subscriptions, as chips; `*` reads "All events". */
export function EventList({ events }: { events: string[] }) {
  if (events.includes(ALL_WEBHOOK_EVENTS))
    return <span className="event-chip event-chip-all">All events</span>;
  return (
    <span className="event-chips">
      {events.map((type) => (
        <span key={type} className="event-chip">
          {type}
        </span>
      ))}
    </span>
  );
}

/**
 * An endpoint's state in words: an enabled endpoint whose every attempt fails is "Failing", not a
 * green "Enabled", with the time it started failing.
 */
export function EndpointStatus({
  endpoint,
}: {
  endpoint: Pick<WebhookEndpoint, "status" | "failing_since">;
}) {
  if (endpoint.status !== "enabled" || endpoint.failing_since === null) {
    return <StatusBadge status={endpoint.status} />;
  }
  return (
    <span className="endpoint-status">
      <span className="badge badge-red">Failing</span>
      <span className="small muted nowrap" title={formatUtc(endpoint.failing_since)}>
        since {formatIndiaTime(endpoint.failing_since)}
      </span>
    </span>
  );
}
