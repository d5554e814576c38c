import type { TemplateCategory } from "../db/schema.js";

/**
 * A message's lane in the delivery queue (docs/sms.md#priority): `otp` goes first, then
 * `transactional`, then `bulk`, which still gets a share of every route's submits.
 */
export type MessagePriority = "otp" | "transactional" | "bulk";

const MESSAGE_PRIORITIES: readonly MessagePriority[] = ["otp", "transactional", "bulk"];

/** The number stored in `messages.priority`: lower goes first. */
export const PRIORITY_LANE: Readonly<Record<MessagePriority, number>> = { otp: 0, transactional: 1, bulk: 2 };

/** The lane of bulk messages that may reach a carrier only inside the promotional window. */
export const WINDOWED_LANE = 3;

/** The lanes from which bulk is owed its share of a route's submits. */
export const FIRST_BULK_LANE = PRIORITY_LANE.bulk;

export function priorityOfLane(lane: number): MessagePriority {
  return lane >= FIRST_BULK_LANE ? "bulk" : (MESSAGE_PRIORITIES[lane] ?? "bulk");
}

/** How long an SMS stays worth sending unless the send says otherwise (`validity_seconds`). */
export const DEFAULT_VALIDITY_SECONDS = 24 * 60 * 60;

/** What a message carries, for routes that take only some traffic: a template's category, or `otp`. */
export type TrafficCategory = "otp" | TemplateCategory;

export const TRAFFIC_CATEGORIES: readonly TrafficCategory[] = [
  "otp",
  "transactional",
  "service_implicit",
  "service_explicit",
  "promotional",
];

/** Traffic that reaches a carrier only inside the promotional window (TRAI: 09:00–21:00 IST). */
export function isWindowed(category: TrafficCategory | null): boolean {
  return category === "promotional" || category === "service_explicit";
}
