import { useCallback, useEffect } from "react";
import { Link } from "react-router";
import { api, type Campaign, isCampaignRunning } from "../api";
import { Allowed } from "../components/Allowed";
import { CampaignProgressBar } from "../components/CampaignProgress";
import { EmptyState, ErrorNotice, Loading } from "../components/Feedback";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { useEnvironment } from "../environment";
import { formatIndiaTime, formatInr, formatUtc } from "../format";
import { usePagedList } from "../use-paged-list";

const PAGE_SIZE = 20;
/** How often the list is read again while a campaign on it is still going. */
export const CAMPAIGN_REFRESH_MS = 2_000;
const CREATE_ROUTE = "POST /dashboard/api/campaigns";

export function CampaignsPage() {
  const { environment } = useEnvironment();
  const loadPage = useCallback(
    (after: Campaign | undefined, signal?: AbortSignal) =>
      api.listCampaigns(environment, { limit: PAGE_SIZE, starting_after: after?.id }, signal),
    [environment],
  );
  const { firstPage, items: campaigns, hasMore, loadMore, loadingMore, moreError } = usePagedList(loadPage);
  const { loading, reload } = firstPage;
  const running = firstPage.data?.data.some(isCampaignRunning) ?? false;

  // The next refresh is scheduled once the previous answer is in, so slow answers never pile up.
  useEffect(() => {
    if (loading || !running) return;
    const timer = window.setTimeout(reload, CAMPAIGN_REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [loading, running, reload]);

  return (
    <>
      <PageHeader
        title="Campaigns"
        description={`One DLT template sent to a list of numbers from a CSV file, paced and tracked. These are the ${environment} campaigns, newest first; dates are India time.`}
        actions={
          <Allowed route={CREATE_ROUTE}>
            <Link to="/campaigns/new" className="button button-primary">
              New campaign
            </Link>
          </Allowed>
        }
      />
      <ErrorNotice error={firstPage.error} />
      <section className="card card-flush" aria-label={`${environment} campaigns`}>
        {loading && !firstPage.data ? <Loading /> : null}
        {firstPage.data && campaigns.length === 0 ? (
          <EmptyState title={`No ${environment} campaigns yet`}>
            <p>
              Upload a CSV of numbers and the values of your template's variables: the console checks every
              row and shows the cost before anything is sent.
            </p>
            <Allowed route={CREATE_ROUTE}>
              <Link to="/campaigns/new" className="button button-primary">
                New {environment} campaign
              </Link>
            </Allowed>
          </EmptyState>
        ) : null}
        {campaigns.length > 0 ? <CampaignsTable campaigns={campaigns} /> : null}
      </section>
      <ErrorNotice error={moreError} />
      {hasMore ? (
        <div className="load-more">
          <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? "Loading…" : "Load more"}
          </button>
        </div>
      ) : null}
    </>
  );
}

function CampaignsTable({ campaigns }: { campaigns: Campaign[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack campaigns-table">
        <caption className="visually-hidden">Campaigns</caption>
        <thead>
          <tr>
            <th scope="col">Campaign</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col" className="numeric">
              Accepted
            </th>
            <th scope="col" className="numeric">
              Delivered
            </th>
            <th scope="col" className="numeric" title="Undelivered or failed">
              Failed
            </th>
            <th scope="col" className="numeric">
              Cost
            </th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {campaigns.map((campaign) => (
            <tr key={campaign.id}>
              <td data-label="Campaign">
                <Link to={`/campaigns/${encodeURIComponent(campaign.id)}`} className="campaign-name">
                  {campaign.name}
                </Link>
                <div className="mono muted small">{campaign.sender}</div>
              </td>
              <td data-label="Status">
                <StatusBadge status={campaign.status} />
              </td>
              <td data-label="Progress">
                <CampaignProgressBar campaign={campaign} label={`Progress of ${campaign.name}`} />
              </td>
              <td data-label="Accepted" className="numeric mono">
                {campaign.accepted.toLocaleString("en-IN")}
                {campaign.rejected > 0 ? (
                  <div className="muted small">{campaign.rejected.toLocaleString("en-IN")} refused</div>
                ) : null}
              </td>
              <td data-label="Delivered" className="numeric mono">
                {campaign.counts.delivered.toLocaleString("en-IN")}
              </td>
              <td data-label="Failed" className="numeric mono">
                {(campaign.counts.undelivered + campaign.counts.failed).toLocaleString("en-IN")}
              </td>
              <td data-label="Cost" className="numeric mono">
                {formatInr(campaign.cost)}
              </td>
              <td data-label="Created" className="nowrap" title={formatUtc(campaign.created_at)}>
                {formatIndiaTime(campaign.created_at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
