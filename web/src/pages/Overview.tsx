import { lazy, type ReactNode, Suspense, useCallback, useState } from "react";
import { Link } from "react-router";
import { api, type Environment } from "../api";
import { Allowed } from "../components/Allowed";
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { CheckIcon } from "../components/icons";
import { MessagesTable } from "../components/MessagesTable";
import { PageHeader } from "../components/PageHeader";
import { useEnvironment } from "../environment";
import { formatInr } from "../format";
import { useLowBalance } from "../low-balance";
import { useResource } from "../use-resource";

const TEST_CREDITS = "100.00";

// The charts and their library load with the Overview's activity section, not with the console.
const ReportCharts = lazy(() => import("../reports/ReportCharts"));

export function OverviewPage() {
  const { environment } = useEnvironment();
  const load = useCallback((signal: AbortSignal) => api.overview(environment, signal), [environment]);
  const overview = useResource(load);
  const lowBalance = useLowBalance();

  return (
    <>
      <PageHeader
        title="Overview"
        description={`Balances, activity and the latest ${environment} messages.`}
      />
      <ErrorNotice error={overview.error} />
      <div className="balances">
        <BalanceCard
          environment="live"
          balance={overview.data?.balances.live}
          current={environment === "live"}
          footer={<p className="muted small">Live credits are added by the operator of this installation.</p>}
        />
        <BalanceCard
          environment="sandbox"
          balance={overview.data?.balances.sandbox}
          current={environment === "sandbox"}
          footer={
            environment === "sandbox" ? (
              <AddTestCredits
                onAdded={(balance) => {
                  overview.setData(
                    (data) => data && { ...data, balances: { ...data.balances, sandbox: balance } },
                  );
                  // Credits may lift the balance back over its alert threshold.
                  lowBalance.reload();
                }}
              />
            ) : (
              <p className="muted small">Test money for sandbox keys. Switch to sandbox mode to add some.</p>
            )
          }
        />
      </div>

      <GettingStarted sandboxBalance={overview.data?.balances.sandbox} />

      <Allowed route="GET /dashboard/api/reports/messages">
        <Suspense fallback={<Loading />}>
          <ReportCharts />
        </Suspense>
      </Allowed>

      <section className="card" aria-labelledby="latest-messages">
        <div className="card-header">
          <h2 id="latest-messages">Latest {environment} messages</h2>
          <Link to="/messages" className="card-link">
            View all messages
          </Link>
        </div>
        {overview.loading && !overview.data ? <Loading /> : null}
        {overview.data && overview.data.messages.length === 0 ? (
          <EmptyState title={`No ${environment} messages yet`}>
            <p>
              {environment === "sandbox"
                ? "Send an SMS or OTP with a sandbox key and it shows up here, delivered by the sandbox carrier."
                : "Messages sent with a live key show up here with their delivery status."}
            </p>
          </EmptyState>
        ) : null}
        {overview.data && overview.data.messages.length > 0 ? (
          <MessagesTable messages={overview.data.messages} caption={`Latest ${environment} messages`} />
        ) : null}
      </section>
    </>
  );
}

function BalanceCard({
  environment,
  balance,
  current,
  footer,
}: {
  environment: Environment;
  balance: string | undefined;
  current: boolean;
  footer: ReactNode;
}) {
  const title = environment === "live" ? "Live balance" : "Sandbox balance";
  const titleId = `balance-${environment}-title`;
  return (
    <section
      className={`card balance-card balance-${environment}${current ? " balance-current" : ""}`}
      aria-labelledby={titleId}
    >
      <div className="balance-title">
        <h2 id={titleId}>{title}</h2>
        {current ? <span className="badge badge-outline">Current</span> : null}
      </div>
      <p className="balance-amount mono">{balance === undefined ? "…" : formatInr(balance)}</p>
      {footer}
    </section>
  );
}

function AddTestCredits({ onAdded }: { onAdded(balance: string): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [added, setAdded] = useState(false);

  const add = async () => {
    setBusy(true);
    setError(undefined);
    setAdded(false);
    try {
      const result = await api.addSandboxCredits(TEST_CREDITS);
      onAdded(result.balance);
      setAdded(true);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Allowed route="POST /dashboard/api/sandbox/credits">
      <div className="balance-action">
        <button type="button" className="button button-sandbox" onClick={add} disabled={busy}>
          {busy ? "Adding…" : `Add ${formatInr(TEST_CREDITS)} test credits`}
        </button>
        <ErrorNotice error={error} />
        {added ? <SuccessNotice>Added {formatInr(TEST_CREDITS)} of test credits.</SuccessNotice> : null}
      </div>
    </Allowed>
  );
}

interface Progress {
  senderAndTemplate: boolean;
  otpTemplate: boolean;
  sandboxKey: boolean;
  otpSent: boolean;
}

async function loadProgress(signal: AbortSignal): Promise<Progress> {
  const [senders, templates, otp, keys, inbox] = await Promise.all([
    api.listSenders(signal),
    api.listTemplates(signal),
    api.getOtpSettings("sandbox", signal),
    api.listKeys("sandbox", signal),
    api.sandboxInbox(1, signal),
  ]);
  return {
    senderAndTemplate: senders.data.length > 0 && templates.data.length > 0,
    otpTemplate: otp.sms_template_id !== null,
    sandboxKey: keys.data.length > 0,
    otpSent: inbox.data.length > 0,
  };
}

function GettingStarted({ sandboxBalance }: { sandboxBalance: string | undefined }) {
  const progress = useResource(loadProgress);
  if (!progress.data || sandboxBalance === undefined) return null;
  const funded = /[1-9]/.test(sandboxBalance);
  const steps: Array<{ done: boolean; title: string; detail: string; to?: string; action?: string }> = [
    {
      done: progress.data.senderAndTemplate,
      title: "Register a sender and a template",
      detail: "Enter your DLT header and content templates exactly as approved on the DLT portal.",
      to: "/templates",
      action: "Templates & senders",
    },
    {
      done: progress.data.otpTemplate,
      title: "Set the OTP template",
      detail: "Pick the template whose one placeholder carries the passcode.",
      to: "/otp",
      action: "OTP settings",
    },
    {
      done: progress.data.sandboxKey,
      title: "Create a sandbox key",
      detail: "Sandbox keys spend test credits and deliver to the sandbox inbox only.",
      to: "/developers/keys",
      action: "API keys",
    },
    {
      done: funded || progress.data.otpSent,
      title: "Add test credits",
      detail:
        "Sandbox messages are charged like live ones, in test money: add some to the sandbox balance above.",
    },
    {
      done: progress.data.otpSent,
      title: "Send an OTP",
      detail: "Call POST /v2/otp/send with your sandbox key.",
      to: "/sandbox",
      action: "See how",
    },
    {
      done: progress.data.otpSent,
      title: "See it in the sandbox inbox",
      detail: "Every sandbox delivery lands there, code included.",
      to: "/sandbox",
      action: "Sandbox inbox",
    },
  ];
  const doneCount = steps.filter((step) => step.done).length;
  if (doneCount === steps.length) return null;

  return (
    <section className="card" aria-labelledby="getting-started">
      <div className="card-header">
        <h2 id="getting-started">Getting started</h2>
        <span className="muted small">
          {doneCount} of {steps.length} done
        </span>
      </div>
      <ol className="checklist">
        {steps.map((step) => (
          <li key={step.title} className={step.done ? "checklist-done" : undefined}>
            <span className="checklist-mark" aria-hidden="true">
              {step.done ? <CheckIcon /> : null}
            </span>
            <div className="checklist-text">
              <strong>
                {step.title}
                {step.done ? <span className="visually-hidden"> (done)</span> : null}
              </strong>
              <span className="muted">{step.detail}</span>
            </div>
            {step.done || !step.to ? null : (
              <Link to={step.to} className="button button-small">
                {step.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
