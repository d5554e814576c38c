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

/** Seconds whose text is kept, in slots by their last bits: a power of two. */
const KEPT_SECONDS = 8;
const keptSeconds = new Float64Array(KEPT_SECONDS).fill(Number.NaN);
const keptPrefixes: string[] = new Array(KEPT_SECONDS).fill("");
/** "000Z" to "999Z": the end of an instant's text, by its milliseconds. */
const MILLISECOND_ENDINGS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);
/** 9999-12-31T23:59:59.999Z: later years, and years before 1970 here, take another shape or path. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

/**
 * `ms` (since the epoch) as `Date.prototype.toISOString` writes it. V8 formats that through
 * snprintf, a few per cent of the server's CPU when a request writes a dozen timestamps; nearly
 * all fall in a few seconds (now, the current hour, an OTP's expiry), so the text up to the
 * second is kept for recent seconds and the milliseconds are appended.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const milliseconds = ms % 1000;
  const second = ms - milliseconds;
  const slot = (second / 1000) & (KEPT_SECONDS - 1);
  if (keptSeconds[slot] !== second) {
    keptSeconds[slot] = second;
    keptPrefixes[slot] = new Date(second).toISOString().slice(0, 20);
  }
  return (keptPrefixes[slot] as string) + MILLISECOND_ENDINGS[milliseconds];
}
