import type { Channel } from "../db/schema.js";
import { UNITS_PER_RUPEE } from "../lib/money.js";

/** What one unit of each channel costs, in 1/10,000 INR: an SMS segment, a WhatsApp message, a call. */
export type PriceList = Record<Channel, number>;

/** The highest price the operator may set per unit: ₹10,000, so a message's cost stays far from overflowing. */
export const MAX_UNIT_PRICE = 10_000 * UNITS_PER_RUPEE;

export const DEFAULT_PRICES: PriceList = { sms: 2_500, whatsapp: 3_500, voice: 5_000 };

export function priceOf(prices: PriceList, channel: Channel, units: number): number {
  return prices[channel] * units;
}
