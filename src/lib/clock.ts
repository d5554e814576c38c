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

/** The text up to the second of the seconds written lately, by the second's instant. */
const keptPrefixes = new Map<number, string>();
/** Seconds kept at most; past it, the map starts again (it holds a few dozen seconds' worth). */
const KEPT_SECONDS = 64;
/** "000Z" to "999Z": the end of an instant's text, by its milliseconds. */
const MILLISECOND_ENDINGS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);
/** 9999-12-31T23:59:59.999Z: later years, and years before 1970 here, take another shape or path. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

/**
 * `ms` (since the epoch) as `Date.prototype.toISOString` writes it. V8 formats that through
 * snprintf, a few per cent of the server's CPU when a request writes a dozen timestamps; nearly
 * all fall in a few seconds (now, the current hour and the next, a minute's bucket, an OTP's
 * expiry), so the text up to the second is kept for the seconds written lately and the
 * milliseconds are appended. They are kept by the second itself, not in slots by its last bits:
 * an hour, a minute and ten minutes are all multiples of eight seconds, so such slots put the
 * current hour, its end and a bucket's start in one slot, and nearly every call missed.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const milliseconds = ms % 1000;
  const second = ms - milliseconds;
  let prefix = keptPrefixes.get(second);
  if (prefix === undefined) {
    if (keptPrefixes.size >= KEPT_SECONDS) keptPrefixes.clear();
    prefix = new Date(second).toISOString().slice(0, 20);
    keptPrefixes.set(second, prefix);
  }
  return prefix + MILLISECOND_ENDINGS[milliseconds];
}
