import type { Campaign, CampaignCounts } from "../api";
import { StatusBadge } from "./StatusBadge";

/** Where a campaign's accepted recipients can be, in the order they move through. */
const STAGES: Array<{ status: keyof CampaignCounts; meaning: string }> = [
  { status: "pending", meaning: "Accepted, not yet in the queue" },
  { status: "scheduled", meaning: "Waiting for their send time" },
  { status: "queued", meaning: "In the queue for a carrier" },
  { status: "submitted", meaning: "With the carrier, no receipt yet" },
  { status: "delivered", meaning: "Reached the phone" },
  { status: "undelivered", meaning: "The carrier could not deliver" },
  { status: "failed", meaning: "Not sent; refunded" },
  { status: "cancelled", meaning: "Cancelled before going out; refunded" },
];

/** The share of a campaign handed to a carrier or ended, as a bar. */
export function CampaignProgressBar({ campaign, label }: { campaign: Campaign; label: string }) {
  const percent = Math.floor(campaign.progress * 100);
  return (
    <div className="campaign-progress">
      <div
        className={`progress progress-${campaign.status}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <span className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="progress-value mono">{percent}%</span>
    </div>
  );
}

/** How many of the accepted recipients are at each stage. */
export function DeliveryBreakdown({ counts }: { counts: CampaignCounts }) {
  return (
    <dl className="breakdown">
      {STAGES.map(({ status, meaning }) => (
        <div key={status} className={`breakdown-row${counts[status] === 0 ? " breakdown-none" : ""}`}>
          <dt title={meaning}>
            <StatusBadge status={status} />
            <span className="muted small">{meaning}</span>
          </dt>
          <dd className="mono">{counts[status].toLocaleString("en-IN")}</dd>
        </div>
      ))}
    </dl>
  );
}
