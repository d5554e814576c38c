import { ConfigError } from "../errors.js";

/** When promotional traffic may reach a carrier: minutes after midnight, India time. */
export interface PromotionalWindow {
  opensAtMinute: number;
  closesAtMinute: number;
}

export const DEFAULT_PROMOTIONAL_WINDOW: PromotionalWindow = {
  opensAtMinute: 9 * 60,
  closesAtMinute: 21 * 60,
};

const IST_OFFSET_MS = 330 * 60_000;
const DAY_MS = 86_400_000;

export function parsePromotionalWindow(text: string): PromotionalWindow {
  const match = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(text);
  if (!match) throw new ConfigError(`PROMOTIONAL_WINDOW must look like 09:00-21:00, got "${text}"`);
  const [opensAtMinute, closesAtMinute] = [
    Number(match[1]) * 60 + Number(match[2]),
    Number(match[3]) * 60 + Number(match[4]),
  ];
  if (opensAtMinute >= closesAtMinute || closesAtMinute > 24 * 60)
    throw new ConfigError(`PROMOTIONAL_WINDOW must open before it closes, got "${text}"`);
  return { opensAtMinute, closesAtMinute };
}

function minuteOfDayInIndia(at: Date): number {
  return ((((at.getTime() + IST_OFFSET_MS) % DAY_MS) + DAY_MS) % DAY_MS) / 60_000;
}

export function isInsideWindow(window: PromotionalWindow, at: Date): boolean {
  const minute = minuteOfDayInIndia(at);
  return minute >= window.opensAtMinute && minute < window.closesAtMinute;
}

export function nextOpening(window: PromotionalWindow, at: Date): Date {
  if (isInsideWindow(window, at)) return at;
  const localMs = at.getTime() + IST_OFFSET_MS;
  const midnight = localMs - (((localMs % DAY_MS) + DAY_MS) % DAY_MS);
  let opening = midnight + window.opensAtMinute * 60_000;
  if (opening <= localMs) opening += DAY_MS;
  return new Date(opening - IST_OFFSET_MS);
}
