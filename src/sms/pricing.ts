import type { Channel } from "../db/schema.js";

/** What one unit of each channel costs, in 1/10,000 INR: an SMS segment, a WhatsApp message, a call. */
export type PriceList = Record<Channel, number>;

export const DEFAULT_PRICES: PriceList = { sms: 2_500, whatsapp: 3_500, voice: 5_000 };

export function priceOf(prices: PriceList, channel: Channel, units: number): number {
  return prices[channel] * units;
}
