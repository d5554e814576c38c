import { formatIndiaTime, formatUtc } from "../format";

/** A time in India ("1 Dec, 09:00 IST"), its UTC in the tooltip. */
export function IndiaTime({ iso, className }: { iso: string; className?: string }) {
  return (
    <time dateTime={iso} title={formatUtc(iso)} className={className}>
      {formatIndiaTime(iso)}
    </time>
  );
}
