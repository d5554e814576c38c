import type { AppContext } from "../context.js";
import type { MessagesTable, TemplateCategory } from "../db/schema.js";
import { ApiError } from "../errors.js";
import { isoTime } from "../lib/clock.js";
import { isInsideWindow, nextOpening } from "../messages/promotional-window.js";
import {
  DEFAULT_VALIDITY_SECONDS,
  isWindowed,
  type MessagePriority,
  PRIORITY_LANE,
  WINDOWED_LANE,
} from "../messages/traffic.js";

/** How far ahead `send_at` may be. */
export const MAX_SCHEDULE_SECONDS = 30 * 24 * 60 * 60;
export const MIN_VALIDITY_SECONDS = 60;
export const MAX_VALIDITY_SECONDS = 3 * 24 * 60 * 60;

/** What a send may say about when and how urgently it goes out (docs/sms.md#mixed-traffic). */
export interface SendTimingRequest {
  priority?: MessagePriority;
  validity_seconds?: number;
  send_at?: string;
}

export type SendTiming = Pick<MessagesTable, "priority" | "category" | "expires_at" | "send_at">;

/**
 * A send's lane, expiry and time to go out. Batch items and promotional or service-explicit
 * templates are `bulk`, other sends `transactional`; a send may step down to `bulk`, never up.
 * Promotional and service-explicit messages that would go out outside the promotional window
 * are held until it opens (their `send_at` says when). A message expires `validity_seconds`
 * after it may first go out: its own `send_at`, or its acceptance.
 */
export function timingOf(
  ctx: AppContext,
  request: SendTimingRequest,
  category: TemplateCategory,
  inBatch: boolean,
): SendTiming {
  const windowed = isWindowed(category);
  const usual: MessagePriority = inBatch || windowed ? "bulk" : "transactional";
  const priority = request.priority ?? usual;
  if (PRIORITY_LANE[priority] < PRIORITY_LANE[usual]) {
    throw new ApiError(
      "invalid_request",
      `This send goes out as ${usual}; priority may only step down (to bulk), never up.`,
      "priority",
    );
  }
  const now = ctx.clock.now().getTime();
  const asked = request.send_at === undefined ? undefined : scheduledTime(request.send_at, now);
  const start = asked ?? now;
  const expiresAt = start + (request.validity_seconds ?? DEFAULT_VALIDITY_SECONDS) * 1000;
  let sendAt = asked;
  if (windowed && !isInsideWindow(ctx.promotionalWindow, new Date(start))) {
    sendAt = nextOpening(ctx.promotionalWindow, new Date(start)).getTime();
    if (sendAt >= expiresAt) {
      throw new ApiError(
        "invalid_request",
        `A ${category} message may reach a carrier only inside the promotional window; this one would expire at ${isoTime(expiresAt)}, before the window opens at ${isoTime(sendAt)}. Give it a longer validity_seconds or a send_at inside the window.`,
        "validity_seconds",
      );
    }
  }
  return {
    priority: windowed ? WINDOWED_LANE : PRIORITY_LANE[priority],
    category,
    expires_at: isoTime(expiresAt),
    send_at: sendAt === undefined ? null : isoTime(sendAt),
  };
}

/** `send_at` as a time: RFC 3339, not past, at most 30 days ahead. */
export function scheduledTime(sendAt: string, now: number): number {
  const time = Date.parse(sendAt);
  if (Number.isNaN(time)) {
    throw new ApiError(
      "invalid_request",
      "send_at must be an RFC 3339 time, such as 2026-12-01T09:30:00+05:30.",
      "send_at",
    );
  }
  if (time < now) {
    throw new ApiError("invalid_request", `send_at ${sendAt} is in the past.`, "send_at");
  }
  if (time > now + MAX_SCHEDULE_SECONDS * 1000) {
    throw new ApiError("invalid_request", "send_at may be at most 30 days ahead.", "send_at");
  }
  return time;
}
