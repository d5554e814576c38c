import { useCallback, useEffect, useState } from "react";
import { Link, useLocation, useParams } from "react-router";
import { ApiError, api, type Campaign, isCampaignRunning } from "../api";
import { CampaignProgressBar, DeliveryBreakdown } from "../components/CampaignProgress";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Fact } from "../components/Fact";
import { EmptyState, ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { IndiaTime } from "../components/IndiaTime";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { useEnvironment } from "../environment";
import { formatInr } from "../format";
import { useSignedIn } from "../session";
import { useResource } from "../use-resource";
import { CAMPAIGN_REFRESH_MS } from "./Campaigns";

/** What the new-campaign page passes on: rows refused at creation that the preview had let through. */
export interface CampaignNavigationState {
  refusedSincePreview: number;
}

export function CampaignDetailPage() {
  const { id = "" } = useParams();
  const { environment } = useEnvironment();
  const { can } = useSignedIn();
  const created = (useLocation().state as CampaignNavigationState | null) ?? undefined;
  const load = useCallback(
    (signal: AbortSignal) => api.getCampaign(environment, id, signal),
    [environment, id],
  );
  const campaign = useResource(load);
  const { data, loading, reload, setData } = campaign;
  const notFound = campaign.error instanceof ApiError && campaign.error.status === 404;
  const running = data !== undefined && isCampaignRunning(data);
  const [cancelling, setCancelling] = useState(false);
  const [outcome, setOutcome] = useState<{ done: string } | { refused: Error } | undefined>();

  // The next refresh is scheduled once the previous answer is in, so slow answers never pile up.
  useEffect(() => {
    if (loading || !running) return;
    const timer = window.setTimeout(reload, CAMPAIGN_REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [loading, running, reload]);

  return (
    <>
      <p className="breadcrumb">
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <PageHeader
        title={data?.name ?? "Campaign"}
        description={<span className="mono">{id}</span>}
        actions={
          data ? (
            <div className="message-actions">
              <StatusBadge status={data.status} />
              {running && can("POST /dashboard/api/campaigns/:id/cancel") ? (
                <button
                  type="button"
                  className="button button-small button-ghost-danger"
                  onClick={() => {
                    setOutcome(undefined);
                    setCancelling(true);
                  }}
                >
                  Cancel campaign
                </button>
              ) : null}
            </div>
          ) : null
        }
      />
      {created && created.refusedSincePreview > 0 ? (
        <div className="notice notice-warning" role="status">
          {created.refusedSincePreview.toLocaleString("en-IN")} more row
          {created.refusedSincePreview === 1 ? " was" : "s were"} refused than the preview said (the balance
          ran out, or a template or sender changed meanwhile); the rest are sent.
        </div>
      ) : null}
      {outcome && "done" in outcome ? <SuccessNotice>{outcome.done}</SuccessNotice> : null}
      <ErrorNotice error={outcome && "refused" in outcome ? outcome.refused : undefined} />
      {loading && !data ? <Loading /> : null}
      {notFound ? (
        <EmptyState title={`No ${environment} campaign with this id`}>
          <p>
            Campaigns belong to one environment: switch environments at the top of the page if it was sent in
            the {environment === "live" ? "sandbox" : "live"} one.
          </p>
        </EmptyState>
      ) : (
        <ErrorNotice error={data ? undefined : campaign.error} />
      )}
      {data ? <CampaignDetails campaign={data} /> : null}
      {cancelling && data ? (
        <ConfirmDialog
          title="Cancel this campaign?"
          confirmLabel="Cancel campaign"
          busyLabel="Cancelling…"
          dismissLabel="Keep sending"
          onConfirm={async () => {
            try {
              const cancelled = await api.cancelCampaign(environment, data.id);
              setData(() => cancelled);
              setOutcome({
                done: `Campaign cancelled; ${formatInr(cancelled.refunded)} refunded to the ${environment} balance.`,
              });
            } catch (error) {
              if (!(error instanceof ApiError && error.code === "not_cancellable")) throw error;
              setOutcome({ refused: error });
              reload();
            }
            setCancelling(false);
          }}
          onClose={() => setCancelling(false)}
        >
          <p>
            Messages not yet handed to a carrier will not be sent, and their cost is refunded to the{" "}
            {environment} balance. Messages already with a carrier cannot be called back.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function CampaignDetails({ campaign }: { campaign: Campaign }) {
  return (
    <div className="detail-grid">
      <div className="detail-side">
        <section className="card" aria-labelledby="campaign-progress">
          <div className="card-header">
            <h2 id="campaign-progress">Progress</h2>
            {isCampaignRunning(campaign) ? (
              <span className="muted small">Updates every 2 seconds</span>
            ) : null}
          </div>
          <CampaignProgressBar campaign={campaign} label="Campaign progress" />
          <p className="muted small campaign-progress-note">
            Handed to a carrier or ended: {campaign.accepted.toLocaleString("en-IN")} accepted recipient
            {campaign.accepted === 1 ? "" : "s"}
            {campaign.rejected > 0 ? `, ${campaign.rejected.toLocaleString("en-IN")} rows refused` : ""}.
          </p>
        </section>
        <section className="card" aria-labelledby="campaign-breakdown">
          <h2 id="campaign-breakdown">Delivery breakdown</h2>
          <DeliveryBreakdown counts={campaign.counts} />
        </section>
      </div>

      <section className="card" aria-labelledby="campaign-facts">
        <h2 id="campaign-facts">Details</h2>
        <dl className="facts">
          <Fact term="Cost" mono>
            {formatInr(campaign.cost)}
          </Fact>
          <Fact term="Refunded" mono>
            {formatInr(campaign.refunded)}
          </Fact>
          <Fact term="Rows">{campaign.recipients.toLocaleString("en-IN")}</Fact>
          <Fact term="Accepted">{campaign.accepted.toLocaleString("en-IN")}</Fact>
          <Fact term="Refused">{campaign.rejected.toLocaleString("en-IN")}</Fact>
          <Fact term="Sender" mono>
            {campaign.sender}
          </Fact>
          <Fact term="Template" mono>
            {campaign.template_id}
          </Fact>
          <Fact term="Pace">
            {campaign.messages_per_minute === null
              ? "As fast as the routes allow"
              : `${campaign.messages_per_minute.toLocaleString("en-IN")} a minute`}
          </Fact>
          <Fact term="Created">
            <IndiaTime iso={campaign.created_at} />
          </Fact>
          {campaign.send_at ? (
            <Fact term={campaign.status === "scheduled" ? "Starts at" : "Scheduled for"}>
              <IndiaTime iso={campaign.send_at} />
            </Fact>
          ) : null}
          {campaign.started_at ? (
            <Fact term="Started">
              <IndiaTime iso={campaign.started_at} />
            </Fact>
          ) : null}
          {campaign.completed_at ? (
            <Fact term="Completed">
              <IndiaTime iso={campaign.completed_at} />
            </Fact>
          ) : null}
          {campaign.cancelled_at ? (
            <Fact term="Cancelled">
              <IndiaTime iso={campaign.cancelled_at} />
            </Fact>
          ) : null}
        </dl>
      </section>
    </div>
  );
}
