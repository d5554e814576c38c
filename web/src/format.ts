/** Display helpers: money, times, durations. */

/** The API's money strings have exactly this many decimals (1/10,000 INR). */
const MONEY_DECIMALS = 4;

/**
 * Money in one style everywhere: `"100000.5"` → `"₹1,00,000.5000"`. Amounts are INR strings as
 * the server sends them (or as typed, like `"100.00"`), shown with 4 decimals as the API writes
 * them and grouped the Indian way.
 */
export function formatInr(amount: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return `₹${amount}`;
  const [, sign = "", rupees = "0", fraction = ""] = match;
  return `${sign}₹${groupIndian(rupees)}.${fraction.padEnd(MONEY_DECIMALS, "0")}`;
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
