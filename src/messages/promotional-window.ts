import { ConfigError } from "../errors.js";

/**
 * The hours of the day, India time, in which promotional and service-explicit SMS may reach a
 * carrier (docs/configuration.md#promotional_window): from `opensAtMinute` (included) to
 * `closesAtMinute` (excluded), in minutes after midnight. A window whose close is earlier than
 * its opening runs across midnight (`22:00-06:00`).
 */
export interface PromotionalWindow {
  opensAtMinute: number;
  closesAtMinute: number;
}

/** TRAI's hours for promotional traffic: 09:00 to 21:00. */
export const DEFAULT_PROMOTIONAL_WINDOW: PromotionalWindow = {
  opensAtMinute: 9 * 60,
  closesAtMinute: 21 * 60,
};

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** India Standard Time is UTC+05:30 all year (no daylight saving), so plain UTC arithmetic gives it, whatever TZ the server runs in. */
const INDIA_OFFSET_MS = 330 * MINUTE_MS;

const WINDOW_TEXT = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;

/** Reads `HH:MM-HH:MM` (India time, 24-hour clock), as `PROMOTIONAL_WINDOW` gives it. */
export function parsePromotionalWindow(text: string): PromotionalWindow {
  const match = WINDOW_TEXT.exec(text.trim());
  if (!match) {
    throw new ConfigError(
      `PROMOTIONAL_WINDOW must be two India times as HH:MM-HH:MM, like 09:00-21:00; got "${text}"`,
    );
  }
  const [, openHour = "", openMinute = "", closeHour = "", closeMinute = ""] = match;
  const opensAtMinute = minuteOfDay(openHour, openMinute, text);
  const closesAtMinute = minuteOfDay(closeHour, closeMinute, text);
  if (opensAtMinute === closesAtMinute) {
    throw new ConfigError(
      `PROMOTIONAL_WINDOW opens and closes at the same time ("${text}"); give a window of at least one minute, like 09:00-21:00`,
    );
  }
  return { opensAtMinute, closesAtMinute };
}

function minuteOfDay(hour: string, minute: string, text: string): number {
  const hours = Number(hour);
  const minutes = Number(minute);
  if (hours > 23 || minutes > 59) {
    throw new ConfigError(
      `PROMOTIONAL_WINDOW has a time that is not on a 24-hour clock (00:00 to 23:59) in "${text}"`,
    );
  }
  return hours * 60 + minutes;
}

/** Whether `at` falls inside the window, India time. */
export function isInsideWindow(window: PromotionalWindow, at: Date): boolean {
  const minute = Math.floor(indiaMsOfDay(at) / MINUTE_MS);
  const { opensAtMinute: opens, closesAtMinute: closes } = window;
  return opens < closes ? minute >= opens && minute < closes : minute >= opens || minute < closes;
}

/** `at` itself when it is inside the window, else the next instant the window opens. */
export function nextOpening(window: PromotionalWindow, at: Date): Date {
  if (isInsideWindow(window, at)) return at;
  const indiaMidnight = at.getTime() - indiaMsOfDay(at);
  const openingToday = indiaMidnight + window.opensAtMinute * MINUTE_MS;
  return new Date(openingToday > at.getTime() ? openingToday : openingToday + DAY_MS);
}

/** Milliseconds since the last midnight in India. */
function indiaMsOfDay(at: Date): number {
  const ms = at.getTime();
  if (Number.isNaN(ms)) throw new RangeError("the promotional window needs a valid date");
  const local = ms + INDIA_OFFSET_MS;
  return local - Math.floor(local / DAY_MS) * DAY_MS;
}
