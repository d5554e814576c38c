/** Display helpers: money, times, durations. */

/** The API's money strings have exactly this many decimals (1/10,000 INR). */
const MONEY_DECIMALS = 4;

/** Paise: what money is shown to, unless an amount has a fraction of a paisa. */
const SHOWN_DECIMALS = 2;

/**
 * Money in one style everywhere: `"99.7500"` → `"₹99.75"`, `"100000.5"` → `"₹1,00,000.50"`,
 * grouped the Indian way. Amounts are INR strings as the server sends them (4 decimals) or as
 * typed. Shown to the paisa; never rounded: an amount with a fraction of a paisa, which only a
 * per-segment price with one makes (e.g. `PRICE_SMS_SEGMENT=0.1275`, so a message's cost and
 * refund), keeps all 4 decimals, `"₹0.1275"`, so what is shown always adds up to the balance.
 */
export function formatInr(amount: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return `₹${amount}`;
  const [, sign = "", rupees = "0", fraction = ""] = match;
  const exact = fraction.padEnd(MONEY_DECIMALS, "0");
  const shown = /^0*$/.test(exact.slice(SHOWN_DECIMALS)) ? exact.slice(0, SHOWN_DECIMALS) : exact;
  return `${sign}₹${groupIndian(rupees)}.${shown}`;
}

/** The sum of two of the API's money strings, exactly (in 1/10,000 INR), as a money string. */
export function addInr(a: string, b: string): string {
  const units = toUnits(a) + toUnits(b);
  const sign = units < 0n ? "-" : "";
  const digits = (units < 0n ? -units : units).toString().padStart(MONEY_DECIMALS + 1, "0");
  return `${sign}${digits.slice(0, -MONEY_DECIMALS)}.${digits.slice(-MONEY_DECIMALS)}`;
}

function toUnits(amount: string): bigint {
  const [rupees = "0", fraction = ""] = amount.trim().replace(/^-/, "").split(".");
  const units = BigInt(rupees) * 10n ** BigInt(MONEY_DECIMALS) + BigInt(fraction.padEnd(MONEY_DECIMALS, "0"));
  return amount.trim().startsWith("-") ? -units : units;
}

function groupIndian(digits: string): string {
  if (digits.length <= 3) return digits;
  const lastThree = digits.slice(-3);
  const rest = digits.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ",");
  return `${rest},${lastThree}`;
}

const dateTime = new Intl.DateTimeFormat("en-IN", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

const shortDateTime = new Intl.DateTimeFormat("en-IN", {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

const dateOnly = new Intl.DateTimeFormat("en-IN", { day: "numeric", month: "short", year: "numeric" });

/** The product's customers are in India: times that decide when a message may go out are shown there. */
const INDIA_TIME_ZONE = "Asia/Kolkata";
const indiaParts = { timeZone: INDIA_TIME_ZONE, day: "numeric", month: "short", hourCycle: "h23" } as const;
const indiaDateTime = new Intl.DateTimeFormat("en-IN", { ...indiaParts, hour: "2-digit", minute: "2-digit" });
const indiaDateTimeWithYear = new Intl.DateTimeFormat("en-IN", {
  ...indiaParts,
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});
const indiaYear = new Intl.DateTimeFormat("en-IN", { timeZone: INDIA_TIME_ZONE, year: "numeric" });
const utcDateTime = new Intl.DateTimeFormat("en-IN", {
  timeZone: "UTC",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/**
 * India time, to the minute, whatever the browser's zone: "1 Dec, 09:00 IST" (the year only when
 * it is not this year's). Pair it with formatUtc in a tooltip.
 */
export function formatIndiaTime(iso: string, now = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const thisYear = indiaYear.format(date) === indiaYear.format(now);
  return `${(thisYear ? indiaDateTime : indiaDateTimeWithYear).format(date)} IST`;
}

const IST_OFFSET_MS = 5.5 * 3_600_000;

/** India's wall clock as a form types it, unambiguous in every locale: "2026-11-29 14:30". */
export function toIndiaInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Date(date.getTime() + IST_OFFSET_MS).toISOString().slice(0, 16).replace("T", " ");
}

/**
 * The instant (ISO, UTC) of India's wall-clock time typed as "2026-11-29 14:30" (or with a "T",
 * as a `datetime-local` value writes it); undefined for anything else or a day that does not exist.
 */
export function parseIndiaInput(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59) return undefined;
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return new Date(wall - IST_OFFSET_MS).toISOString();
}

/** The exact instant in UTC, "1 Dec 2026, 03:30:00 UTC", for tooltips. */
export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${utcDateTime.format(date)} UTC`;
}

/** The day alone, for narrow columns; the full time goes in a tooltip. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateOnly.format(date);
}

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** Without the year, for tables where every row is recent. */
export function formatShortDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : shortDateTime.format(date);
}

export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ];
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [unit, size] of units) {
    // Rounded, not cut: a key rotated with 24 hours of grace expires "in 24 hours", not "in 23 hours".
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return Math.abs(seconds) < 10 ? "just now" : format.format(seconds, "second");
}

/** 86400 → "24 hours", 90 → "1 min 30 s". */
export function formatSeconds(total: number): string {
  if (total % 3_600 === 0 && total >= 3_600) {
    const hours = total / 3_600;
    return `${hours} hour${hours === 1 ? "" : "s"}`;
  }
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (minutes === 0) return `${seconds} s`;
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

export function channelLabel(channel: string): string {
  switch (channel) {
    case "sms":
      return "SMS";
    case "whatsapp":
      return "WhatsApp";
    case "voice":
      return "Voice";
    default:
      return channel;
  }
}

/** A message's priority lane: "otp" → "OTP". */
export function priorityLabel(priority: string): string {
  return priority === "otp" ? "OTP" : categoryLabel(priority);
}

export function categoryLabel(category: string): string {
  const label = category.replace(/_/g, " ");
  return label.charAt(0).toUpperCase() + label.slice(1);
}
