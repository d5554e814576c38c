import { type FormEvent, useCallback, useEffect, useState } from "react";
import { Link, useLocation, useNavigate, useParams } from "react-router";
import {
  ApiError,
  api,
  type Environment,
  type WebhookAttempt,
  type WebhookDisabledReason,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Dialog } from "../components/Dialog";
import { Fact } from "../components/Fact";
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { Field } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { WebhookEndpointForm } from "../components/WebhookEndpointForm";
import { useEnvironment } from "../environment";
import {
  formatDateTime,
  formatIndiaTime,
  formatShortDateTime,
  formatUtc,
  parseIndiaInput,
  toIndiaInput,
} from "../format";
import { useCopySecret } from "../use-copy-secret";
import { useResource } from "../use-resource";
import { EndpointStatus, EventList, type WebhookNavigationState } from "./Webhooks";

const ATTEMPTS_SHOWN = 50;
const ATTEMPTS_REFRESH_MS = 3_000;
const ROTATION_GRACE_MS = 24 * 3_600 * 1_000;

const DISABLED_REASONS: Record<WebhookDisabledReason, string> = {
  manual: "Disabled from the dashboard, the CLI or the API.",
  gone: "Disabled: the endpoint answered 410 Gone.",
  failing: "Disabled after 5 days of failed attempts.",
};

type Dialogs = "edit" | "rotate" | "delete";

export function WebhookDetailPage() {
  const { id = "" } = useParams();
  const { environment } = useEnvironment();
  const location = useLocation();
  const created = (location.state as WebhookNavigationState | null)?.created === true;
  const endpoint = useResource(
    useCallback((signal: AbortSignal) => api.getWebhook(environment, id, signal), [environment, id]),
  );
  const notFound = endpoint.error instanceof ApiError && endpoint.error.status === 404;
  const [notice, setNotice] = useState<string | undefined>(
    created
      ? "Endpoint added. Its signing secret is below: your receiver needs it to verify deliveries."
      : undefined,
  );
  const [revealed, setRevealed] = useState(created);
  const navigate = useNavigate();

  // "Just created" is for this visit only: a reload shows the secret hidden, like any other time.
  useEffect(() => {
    if (created) navigate(location.pathname, { replace: true, state: null });
  }, [created, navigate, location.pathname]);

  return (
    <>
      <p className="breadcrumb">
        <Link to="/developers/webhooks">← Webhooks</Link>
      </p>
      <PageHeader
        title="Webhook endpoint"
        description={<span className="mono endpoint-url">{endpoint.data?.url ?? id}</span>}
        actions={endpoint.data ? <EndpointStatus endpoint={endpoint.data} /> : null}
      />
      {endpoint.loading && !endpoint.data ? <Loading /> : null}
      {notFound ? (
        <EmptyState title={`No ${environment} endpoint with this id`}>
          <p>
            Endpoints belong to one environment. If it was added in{" "}
            {environment === "live" ? "sandbox" : "live"}, switch environments at the top of the page, or go
            back to <Link to="/developers/webhooks">Webhooks</Link>.
          </p>
        </EmptyState>
      ) : (
        <ErrorNotice error={endpoint.error} />
      )}
      {notice ? <SuccessNotice>{notice}</SuccessNotice> : null}
      {endpoint.data ? (
        <EndpointDetails
          environment={environment}
          endpoint={endpoint.data}
          revealed={revealed}
          setRevealed={setRevealed}
          onNotice={setNotice}
          onChanged={(changed) => endpoint.setData((current) => current && { ...current, ...changed })}
        />
      ) : null}
    </>
  );
}

function EndpointDetails({
  environment,
  endpoint,
  revealed,
  setRevealed,
  onNotice,
  onChanged,
}: {
  environment: Environment;
  endpoint: WebhookEndpointWithSecret;
  revealed: boolean;
  setRevealed(revealed: boolean): void;
  onNotice(notice: string | undefined): void;
  /** The endpoint as a change returned it (with the secret, when the change made a new one). */
  onChanged(endpoint: WebhookEndpoint | WebhookEndpointWithSecret): void;
}) {
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<Dialogs | undefined>();
  const [busy, setBusy] = useState<"status" | "test" | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [attemptsVersion, setAttemptsVersion] = useState(0);
  const enabled = endpoint.status === "enabled";

  const run = async (kind: "status" | "test", action: () => Promise<void>) => {
    setBusy(kind);
    setError(undefined);
    onNotice(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(undefined);
    }
  };

  const toggleStatus = () =>
    run("status", async () => {
      const status = enabled ? "disabled" : "enabled";
      onChanged(await api.updateWebhook(environment, endpoint.id, { status }));
      onNotice(
        status === "disabled"
          ? "Endpoint disabled: no events are delivered to it until you enable it again."
          : "Endpoint enabled: new events are delivered to it again.",
      );
    });

  const sendTest = () =>
    run("test", async () => {
      await api.testWebhook(environment, endpoint.id);
      onNotice("Test event sent: a webhook.test event is on its way and shows under Recent attempts.");
      setAttemptsVersion((n) => n + 1);
    });

  return (
    <>
      <ErrorNotice error={error} />
      {enabled && endpoint.failing_since ? (
        <p className="notice notice-warning" role="status">
          Every attempt since {formatDateTime(endpoint.failing_since)} has failed. Failed deliveries are
          retried; after 5 days of failures the endpoint is disabled.
        </p>
      ) : null}
      <div className="detail-grid">
        <section className="card" aria-labelledby="endpoint-settings">
          <div className="card-header">
            <h2 id="endpoint-settings">Endpoint</h2>
            <button type="button" className="button button-small" onClick={() => setDialog("edit")}>
              Edit
            </button>
          </div>
          <dl className="facts">
            <Fact term="URL" mono wide>
              {endpoint.url}
            </Fact>
            <Fact term="Description">{endpoint.description || <span className="muted">—</span>}</Fact>
            <Fact term="Status">
              <EndpointStatus endpoint={endpoint} />
              {endpoint.disabled_reason ? (
                <span className="muted small status-reason">
                  {DISABLED_REASONS[endpoint.disabled_reason]}
                </span>
              ) : null}
            </Fact>
            <Fact term="Created">{formatDateTime(endpoint.created_at)}</Fact>
            <Fact term="Events" wide>
              <EventList events={endpoint.events} />
            </Fact>
            <Fact term="Id" mono wide>
              {endpoint.id}
            </Fact>
          </dl>
          <div className="card-actions">
            <button
              type="button"
              className="button button-primary"
              onClick={sendTest}
              disabled={busy !== undefined || !enabled}
              title={enabled ? undefined : "Enable the endpoint to send it events."}
            >
              {busy === "test" ? "Sending…" : "Send test event"}
            </button>
            <button type="button" className="button" onClick={toggleStatus} disabled={busy !== undefined}>
              {busy === "status" ? "Saving…" : enabled ? "Disable" : "Enable"}
            </button>
            <button
              type="button"
              className="button button-ghost-danger card-actions-end"
              onClick={() => setDialog("delete")}
            >
              Delete endpoint
            </button>
          </div>
        </section>

        <div className="detail-side">
          <SigningSecret
            secret={endpoint.secret}
            revealed={revealed}
            setRevealed={setRevealed}
            onRotate={() => setDialog("rotate")}
          />
          <ReplayCard
            environment={environment}
            endpointId={endpoint.id}
            enabled={enabled}
            onReplayed={onNotice}
          />
        </div>
      </div>

      <AttemptsCard environment={environment} endpointId={endpoint.id} version={attemptsVersion} />

      {dialog === "edit" ? (
        <Dialog title="Edit endpoint" onClose={() => setDialog(undefined)} size="wide">
          <WebhookEndpointForm
            environment={environment}
            initial={{ url: endpoint.url, description: endpoint.description ?? "", events: endpoint.events }}
            submitLabel="Save changes"
            busyLabel="Saving…"
            onCancel={() => setDialog(undefined)}
            onSubmit={async (values) => {
              onChanged(
                await api.updateWebhook(environment, endpoint.id, {
                  url: values.url,
                  events: values.events,
                  description: values.description ?? "",
                }),
              );
              onNotice("Endpoint saved.");
              setDialog(undefined);
            }}
          />
        </Dialog>
      ) : null}
      {dialog === "rotate" ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          busyLabel="Rotating…"
          onClose={() => setDialog(undefined)}
          onConfirm={async () => {
            const rotated = await api.rotateWebhookSecret(environment, endpoint.id);
            const until = formatDateTime(new Date(Date.now() + ROTATION_GRACE_MS).toISOString());
            onChanged(rotated);
            setRevealed(true);
            onNotice(`Secret rotated. The old secret stays valid for 24 hours, until about ${until}.`);
            setDialog(undefined);
          }}
        >
          <p>
            A new secret is made now. The old one stays valid for 24 hours: until then every delivery carries
            two signatures, one under each secret, so your receiver keeps working while you switch it to the
            new one.
          </p>
        </ConfirmDialog>
      ) : null}
      {dialog === "delete" ? (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete endpoint"
          busyLabel="Deleting…"
          onClose={() => setDialog(undefined)}
          onConfirm={async () => {
            await api.deleteWebhook(environment, endpoint.id);
            const state: WebhookNavigationState = { deleted: endpoint.url };
            navigate("/developers/webhooks", { replace: true, state });
          }}
        >
          <p>
            Events stop going to <span className="mono endpoint-url">{endpoint.url}</span> at once, retries
            included. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function SigningSecret({
  secret,
  revealed,
  setRevealed,
  onRotate,
}: {
  secret: string;
  revealed: boolean;
  setRevealed(revealed: boolean): void;
  onRotate(): void;
}) {
  const { boxRef, outcome: copied, setOutcome: setCopied, copy } = useCopySecret(secret);

  return (
    <section className="card" aria-labelledby="signing-secret-title">
      <div className="card-header">
        <h2 id="signing-secret-title">Signing secret</h2>
        <button type="button" className="button button-small" onClick={onRotate}>
          Rotate secret
        </button>
      </div>
      <p className="muted small">
        Verify each delivery's <span className="mono">webhook-signature</span> with this secret, e.g. with the{" "}
        <span className="mono">standardwebhooks</span> library.
      </p>
      {revealed ? (
        <>
          <label className="visually-hidden" htmlFor="webhook-secret">
            Signing secret
          </label>
          <div className="secret-row">
            <textarea
              ref={boxRef}
              id="webhook-secret"
              className="secret-box mono"
              readOnly
              rows={2}
              value={secret}
              spellCheck={false}
              onFocus={(event) => event.currentTarget.select()}
            />
            <div className="secret-buttons">
              <button type="button" className="button button-small" onClick={copy}>
                {copied === "copied" ? "Copied" : "Copy"}
              </button>
              <button
                type="button"
                className="button button-small button-ghost"
                onClick={() => {
                  setRevealed(false);
                  setCopied(undefined);
                }}
              >
                Hide
              </button>
            </div>
          </div>
          <p className="field-hint" aria-live="polite">
            {copied === "copied" ? "The secret is on your clipboard." : null}
            {copied === "selected"
              ? "Your browser blocked copying: the secret is selected, press Ctrl+C or ⌘C."
              : null}
          </p>
        </>
      ) : (
        <div className="secret-row">
          <span className="secret-box secret-hidden mono">
            <span className="visually-hidden">Signing secret, hidden</span>
            <span aria-hidden="true">whsec_••••••••••••••••••••</span>
          </span>
          <button type="button" className="button button-small" onClick={() => setRevealed(true)}>
            Reveal secret
          </button>
        </div>
      )}
    </section>
  );
}

function ReplayCard({
  environment,
  endpointId,
  enabled,
  onReplayed,
}: {
  environment: Environment;
  endpointId: string;
  enabled: boolean;
  onReplayed(notice: string): void;
}) {
  const [since, setSince] = useState(() => toIndiaInput(new Date(Date.now() - 3_600_000).toISOString()));
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const start = parseIndiaInput(since);
    if (start === undefined) {
      setError("Type the India time to replay from as year-month-day hour:minute, e.g. 2026-11-29 14:30.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const { queued } = await api.replayWebhook(environment, endpointId, start);
      const from = formatIndiaTime(start);
      onReplayed(
        queued === 0
          ? `No events since ${from} to replay: only the events this endpoint subscribes to are sent again, test events excepted.`
          : `Replaying ${queued} event${queued === 1 ? "" : "s"} since ${from}: each is delivered again with its original webhook-id.`,
      );
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay events</h2>
      <p className="muted small">
        Missed deliveries while your receiver was down? Send the events this endpoint subscribes to again,
        from a time on. Events are kept 30 days.
      </p>
      <form className="replay-form" onSubmit={submit} noValidate>
        <Field label="Since (India time, IST)" error={error} hint={<ReplayStart text={since} />}>
          {(control) => (
            <input
              {...control}
              type="text"
              inputMode="numeric"
              autoComplete="off"
              spellCheck={false}
              className="mono"
              placeholder="2026-11-29 14:30"
              value={since}
              onChange={(event) => {
                setSince(event.target.value);
                setError(undefined);
              }}
            />
          )}
        </Field>
        <button
          type="submit"
          className="button"
          disabled={busy || !enabled}
          title={enabled ? undefined : "Enable the endpoint to replay events to it."}
        >
          {busy ? "Replaying…" : "Replay events"}
        </button>
      </form>
    </section>
  );
}

/** The typed start, read back in words, so a misread day shows before anything is sent. */
function ReplayStart({ text }: { text: string }) {
  const start = parseIndiaInput(text);
  if (start === undefined) return <>Year-month-day and 24-hour time, e.g. 2026-11-29 14:30.</>;
  return (
    <>
      From <span title={formatUtc(start)}>{formatIndiaTime(start)}</span>.
    </>
  );
}

function AttemptsCard({
  environment,
  endpointId,
  version,
}: {
  environment: Environment;
  endpointId: string;
  /** Changes when the page knows a new attempt is coming (a test was sent), to load at once. */
  version: number;
}) {
  /** The cursors of the pages shown before this one: empty on the first (newest) page. */
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const firstPage = before === undefined;
  const attempts = useResource(
    useCallback(
      (signal: AbortSignal) =>
        api.listWebhookAttempts(environment, endpointId, { limit: ATTEMPTS_SHOWN, before }, signal),
      [environment, endpointId, before],
    ),
  );
  const { loading, reload, data, error } = attempts;

  // A test just sent shows on the first page: go back there.
  useEffect(() => {
    if (version > 0) {
      setCursors([]);
      reload();
    }
  }, [version, reload]);

  // The first page refreshes; an older one stays as it is while it is read. The next refresh is
  // scheduled once the previous answer is in, so slow answers never pile up.
  useEffect(() => {
    if (loading || !firstPage) return;
    const timer = window.setTimeout(reload, ATTEMPTS_REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [loading, reload, firstPage]);

  const last = data?.data.at(-1);
  return (
    <section className="card card-flush" aria-labelledby="attempts-title">
      <div className="card-header card-header-padded">
        <h2 id="attempts-title">{firstPage ? "Recent attempts" : "Older attempts"}</h2>
        <span className="muted small">
          {firstPage
            ? "Newest first · refreshes every 3 seconds"
            : `Newest first · page ${cursors.length + 1}`}
        </span>
      </div>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {data && data.data.length === 0 ? (
        <EmptyState title="No attempts yet">
          <p>
            Each delivery attempt shows here with the answer of your endpoint. Send a test event to try it.
          </p>
        </EmptyState>
      ) : null}
      {data && data.data.length > 0 ? <AttemptsTable attempts={data.data} /> : null}
      {data && (!firstPage || data.has_more) ? (
        <nav className="pager" aria-label="Attempt pages">
          <button
            type="button"
            className="button button-small"
            disabled={firstPage || loading}
            onClick={() => setCursors((current) => current.slice(0, -1))}
          >
            ← Newer
          </button>
          <button
            type="button"
            className="button button-small"
            disabled={!data.has_more || !last || loading}
            onClick={() => last && setCursors((current) => [...current, last.id])}
          >
            Older →
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function AttemptsTable({ attempts }: { attempts: WebhookAttempt[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack" aria-label="Delivery attempts">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Answer</th>
            <th scope="col" className="numeric">
              Duration
            </th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.id}>
              <td data-label="Time" className="nowrap">
                <time dateTime={attempt.created_at} title={formatDateTime(attempt.created_at)}>
                  {formatShortDateTime(attempt.created_at)}
                </time>
              </td>
              <td data-label="Event">
                <span className="mono">{attempt.event_type}</span>
                <span className="mono muted small attempt-event-id">{attempt.event_id}</span>
              </td>
              <td data-label="Attempt" className="mono">
                #{attempt.attempt}
              </td>
              <td data-label="Answer">
                <AnswerBadge statusCode={attempt.status_code} />
              </td>
              <td data-label="Duration" className="numeric mono nowrap">
                {attempt.duration_ms === null ? "—" : `${attempt.duration_ms} ms`}
              </td>
              <td data-label="Error" className="attempt-error">
                {attempt.error ?? <span className="muted">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AnswerBadge({ statusCode }: { statusCode: number | null }) {
  if (statusCode === null) return <span className="badge badge-red">No answer</span>;
  const ok = statusCode >= 200 && statusCode < 300;
  return <span className={`badge badge-${ok ? "green" : "red"} mono`}>{statusCode}</span>;
}
