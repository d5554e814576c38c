import { sql } from "kysely";
import type { Channel, DbOrTrx, Environment } from "../db/schema.js";
import type { ReportPeriod } from "./period.js";

/** Every channel an OTP may first go out on, each in every report. */
const OTP_CHANNELS: readonly Channel[] = ["sms", "whatsapp", "voice"];
/** The seconds of an OTP not (yet) verified. */
const NOT_VERIFIED = -1;

export interface OtpReportRow {
  channel: Channel;
  sent: number;
  verified: number;
  /** verified / sent, 0 to 1; null when none was sent. */
  conversion_rate: number | null;
  /** The median of the whole seconds from send to verify; null when none was verified. */
  median_seconds_to_verify: number | null;
}

/**
 * The OTPs of an environment created on the period's days (India time), by the channel each was
 * first sent on: daily totals plus unfolded deltas in one statement, as for messages. Counts are
 * kept per whole second to verify, so the median is exact to the second.
 */
export async function otpReport(
  db: DbOrTrx,
  scope: { accountId: string; environment: Environment },
  period: ReportPeriod,
): Promise<OtpReportRow[]> {
  const counted = (table: "otp_report_days" | "otp_report_deltas") => sql`
    select channel, seconds_to_verify, otps from ${sql.table(table)}
    where account_id = ${scope.accountId} and environment = ${scope.environment}
      and day >= ${period.from} and day <= ${period.to}`;
  const { rows } = await sql<{ channel: Channel; seconds_to_verify: number; otps: number | string }>`
    select channel, seconds_to_verify, sum(otps) as otps
    from (${counted("otp_report_days")} union all ${counted("otp_report_deltas")}) as counted
    group by channel, seconds_to_verify
    order by channel, seconds_to_verify`.execute(db);
  return OTP_CHANNELS.map((channel) => {
    const histogram = rows
      .filter((row) => row.channel === channel)
      .map((row) => ({ seconds: Number(row.seconds_to_verify), otps: Number(row.otps) }));
    const sent = histogram.reduce((sum, bucket) => sum + bucket.otps, 0);
    const verifiedBuckets = histogram.filter((bucket) => bucket.seconds !== NOT_VERIFIED);
    const verified = verifiedBuckets.reduce((sum, bucket) => sum + bucket.otps, 0);
    return {
      channel,
      sent,
      verified,
      conversion_rate: sent === 0 ? null : verified / sent,
      median_seconds_to_verify: median(verifiedBuckets, verified),
    };
  });
}

/**
 * The median of `total` values given as counts per value, ascending: the middle one, or the mean
 * of the two middle ones when `total` is even; null for none.
 */
export function median(buckets: readonly { seconds: number; otps: number }[], total: number): number | null {
  if (total === 0) return null;
  const valueAt = (rank: number): number => {
    let seen = 0;
    for (const bucket of buckets) {
      seen += bucket.otps;
      if (rank < seen) return bucket.seconds;
    }
    throw new RangeError(`rank ${rank} is beyond ${total} values`);
  };
  const middle = Math.floor(total / 2);
  return total % 2 === 1 ? valueAt(middle) : (valueAt(middle - 1) + valueAt(middle)) / 2;
}
