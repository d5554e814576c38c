export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function isoNow(clock: Clock): string {
  return isoTime(clock.now().getTime());
}

export function isoAfter(clock: Clock, seconds: number): string {
  return isoTime(clock.now().getTime() + seconds * 1000);
}

/** An RFC 3339 time `seconds` after another. */
export function addSeconds(iso: string, seconds: number): string {
  return isoTime(Date.parse(iso) + seconds * 1000);
}

/** Instants whose text is kept, in slots by their last bits: a power of two. */
const KEPT_INSTANTS = 16;
const keptTimes = new Float64Array(KEPT_INSTANTS).fill(Number.NaN);
const keptTexts: string[] = new Array(KEPT_INSTANTS).fill("");

/**
 * `ms` (since the epoch) as `Date.prototype.toISOString` writes it. V8 formats that through
 * snprintf, a few per cent of the server's CPU when a request writes a dozen timestamps; most are
 * the same few instants (now, the current hour, a limit's buckets), so the text of recent ones is
 * kept.
 */
export function isoTime(ms: number): string {
  const slot = ms & (KEPT_INSTANTS - 1);
  if (keptTimes[slot] === ms) return keptTexts[slot] as string;
  const text = new Date(ms).toISOString();
  keptTimes[slot] = ms;
  keptTexts[slot] = text;
  return text;
}
