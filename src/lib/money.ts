/** Money inside Dakiya is an integer of 1/10,000 INR; these convert at the edge only. */
export const UNITS_PER_RUPEE = 10_000;

/** Up to 11 digits of rupees without leading zeros (at most ₹99,999,999,999.9999), ≤ 4 decimals. */
const AMOUNT_PATTERN = /^(0|[1-9]\d{0,10})(?:\.(\d{1,4}))?$/;

/**
 * `12.5` → 125000. Returns undefined for anything but a plain non-negative decimal with ≤ 4
 * places: no sign, exponent, leading zero (`00.1`) or more than 11 digits of rupees, so every
 * result is a safe integer.
 */
export function parseInr(text: string): number | undefined {
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) return undefined;
  const [, rupees = "0", fraction = ""] = match;
  return Number(rupees) * UNITS_PER_RUPEE + Number(fraction.padEnd(4, "0"));
}

/** 125000 → `"12.5000"`. */
export function formatInr(units: number): string {
  const sign = units < 0 ? "-" : "";
  const abs = Math.abs(units);
  const rupees = Math.floor(abs / UNITS_PER_RUPEE);
  const fraction = String(abs % UNITS_PER_RUPEE).padStart(4, "0");
  return `${sign}${rupees}.${fraction}`;
}
