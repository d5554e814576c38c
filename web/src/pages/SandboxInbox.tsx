import { Fragment, useCallback, useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { api, type SandboxDelivery } from "../api";
import { CopyButton } from "../components/CopyButton";
import { EmptyState, ErrorNotice, Loading } from "../components/Feedback";
import { PageHeader } from "../components/PageHeader";
import { useEnvironment } from "../environment";
import { channelLabel, formatShortDateTime } from "../format";
import { useResource } from "../use-resource";

const INBOX_LIMIT = 50;
const REFRESH_MS = 2_000;

export function SandboxInboxPage() {
  const { environment, setEnvironment } = useEnvironment();

  return (
    <>
      <PageHeader
        title="Sandbox inbox"
        description="What sandbox keys sent, as the phone would have received it. Passcodes show their code here, and only here."
      />
      {environment === "sandbox" ? (
        <LiveInbox />
      ) : (
        <div className="card callout">
          <h2>You are in live mode</h2>
          <p>
            The sandbox inbox shows sandbox deliveries; switch to sandbox to see them. Live messages go to
            real phones and are listed under Messages.
          </p>
          <button type="button" className="button button-sandbox" onClick={() => setEnvironment("sandbox")}>
            Switch to sandbox
          </button>
        </div>
      )}
    </>
  );
}

function LiveInbox() {
  const load = useCallback((signal: AbortSignal) => api.sandboxInbox(INBOX_LIMIT, signal), []);
  const inbox = useResource(load);
  const [updatedAt, setUpdatedAt] = useState<Date | undefined>();
  const { loading, reload, data, error } = inbox;

  // The next refresh is scheduled once the previous answer is in, so slow answers never pile up.
  useEffect(() => {
    if (loading) return;
    const timer = window.setTimeout(reload, REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [loading, reload]);

  useEffect(() => {
    if (data) setUpdatedAt(new Date());
  }, [data]);

  return (
    <>
      <div className="live-indicator">
        <span className={`live-dot${error ? " live-dot-error" : ""}`} aria-hidden="true" />
        {error ? "Reconnecting…" : "Live: refreshes every 2 seconds"}
        {updatedAt ? <span className="muted"> · updated {updatedAt.toLocaleTimeString("en-IN")}</span> : null}
      </div>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {data && data.data.length === 0 ? <EmptyInbox /> : null}
      {data && data.data.length > 0 ? <InboxTable deliveries={data.data} /> : null}
    </>
  );
}

function InboxTable({ deliveries }: { deliveries: SandboxDelivery[] }) {
  return (
    <section className="card card-flush" aria-label="Sandbox deliveries">
      <div className="table-wrap">
        <table className="table table-stack">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Channel</th>
              <th scope="col">To</th>
              <th scope="col">Text</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id} className="row-enter">
                <td data-label="Time" className="nowrap">
                  {formatShortDateTime(delivery.created_at)}
                </td>
                <td data-label="Channel">{channelLabel(delivery.channel)}</td>
                <td data-label="To" className="mono nowrap">
                  {delivery.to}
                </td>
                <td data-label="Text" className="inbox-text">
                  <InboxText delivery={delivery} />
                </td>
                <td data-label="Message">
                  <Link to={`/messages/${delivery.message_id}`} className="mono">
                    {delivery.message_id}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * A delivered text, its passcode (if it is an OTP's) standing out. A voice call spells the digits
 * out ("4, 8, 2, …"), so its code is shown beside the words as well.
 */
function InboxText({ delivery }: { delivery: SandboxDelivery }) {
  const code = delivery.otp_code;
  const pieces = code === null ? [delivery.text] : delivery.text.split(code);
  const inText = pieces.length > 1;
  let start = 0;
  return (
    <>
      {code !== null && !inText ? (
        <span className="inbox-code">
          Code <mark className="code-highlight">{code}</mark>
        </span>
      ) : null}
      {pieces.map((piece, index) => {
        const at = start;
        start += piece.length + (code?.length ?? 0);
        return (
          <Fragment key={at}>
            {index > 0 && code !== null ? <mark className="code-highlight">{code}</mark> : null}
            {piece}
          </Fragment>
        );
      })}
    </>
  );
}

/**
 * A first send that works on a fresh install: a WhatsApp passcode needs no template or sender in
 * the sandbox (an SMS one needs both, chosen in the OTP settings), only a key and test credits.
 */
function EmptyInbox() {
  const curlRef = useRef<HTMLPreElement>(null);
  const curl = [
    `curl ${window.location.origin}/v2/otp/send \\`,
    `  -H "Authorization: Bearer dk_sandbox_…" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"to":"+919876543210","channel":"whatsapp"}'`,
  ].join("\n");
  return (
    <EmptyState title="Nothing delivered yet">
      <p>Send a test passcode and it appears here within a second or two, no reload needed:</p>
      <ol className="steps">
        <li>
          Create a sandbox key under <Link to="/developers/keys">API keys</Link>.
        </li>
        <li>
          Add test credits on the <Link to="/">Overview</Link>: sandbox messages are charged like live ones,
          in test money.
        </li>
        <li>Run this with your key in place of dk_sandbox_…:</li>
      </ol>
      <div className="code-block">
        <div className="code-block-bar">
          <span>Shell</span>
          <CopyButton text={curl} label="Copy command" fallbackTarget={() => curlRef.current} />
        </div>
        <pre ref={curlRef} className="mono">
          {curl}
        </pre>
      </div>
      <p className="muted small">
        WhatsApp and voice passcodes need no set-up in the sandbox. For SMS, add a sender and a template with{" "}
        <span className="mono">{"{#otp#}"}</span> under <Link to="/templates">Templates &amp; senders</Link>,
        choose them in the <Link to="/otp">OTP settings</Link>, then send without{" "}
        <span className="mono">"channel"</span>.
      </p>
    </EmptyState>
  );
}
