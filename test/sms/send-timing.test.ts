import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AppContext } from "../../src/context.js";
import type { TemplateCategory } from "../../src/db/schema.js";
import { ApiError } from "../../src/errors.js";
import { DEFAULT_PROMOTIONAL_WINDOW, isInsideWindow } from "../../src/messages/promotional-window.js";
import { PRIORITY_LANE, WINDOWED_LANE } from "../../src/messages/traffic.js";
import { MAX_SCHEDULE_SECONDS, type SendTimingRequest, timingOf } from "../../src/sms/timing.js";

/* A send's lane, expiry and time to go out (docs/sms.md#mixed-traffic), over any time of day and request. */

const CATEGORIES: TemplateCategory[] = [
  "transactional",
  "service_implicit",
  "service_explicit",
  "promotional",
];
const WINDOWED = new Set<TemplateCategory>(["promotional", "service_explicit"]);

function contextAt(ms: number): AppContext {
  return { clock: { now: () => new Date(ms) }, promotionalWindow: DEFAULT_PROMOTIONAL_WINDOW } as AppContext;
}

const request = fc.record(
  {
    priority: fc.constantFrom("otp", "transactional", "bulk") as fc.Arbitrary<SendTimingRequest["priority"]>,
    validity_seconds: fc.integer({ min: 60, max: 259_200 }),
    sendAfterSeconds: fc.integer({ min: -3_600, max: MAX_SCHEDULE_SECONDS + 3_600 }),
  },
  { requiredKeys: [] },
);

describe("a send's timing", () => {
  it("is refused with invalid_request, or keeps every rule of the lanes, the window and the expiry", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
        fc.constantFrom(...CATEGORIES),
        fc.boolean(),
        request,
        (now, category, inBatch, { sendAfterSeconds, ...asked }) => {
          const sendAt =
            sendAfterSeconds === undefined
              ? undefined
              : new Date(now + sendAfterSeconds * 1000).toISOString();
          const body: SendTimingRequest = { ...asked, ...(sendAt === undefined ? {} : { send_at: sendAt }) };
          let timing: ReturnType<typeof timingOf>;
          try {
            timing = timingOf(contextAt(now), body, category, inBatch);
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError);
            expect((error as ApiError).code).toBe("invalid_request");
            return;
          }
          const windowed = WINDOWED.has(category);
          const usual = inBatch || windowed ? PRIORITY_LANE.bulk : PRIORITY_LANE.transactional;
          if (windowed) expect(timing.priority).toBe(WINDOWED_LANE);
          else
            expect(timing.priority).toBe(
              PRIORITY_LANE[body.priority ?? (inBatch ? "bulk" : "transactional")],
            );
          expect(timing.priority).toBeGreaterThanOrEqual(usual);

          const goesAt = timing.send_at === null ? now : Date.parse(timing.send_at);
          expect(goesAt).toBeGreaterThanOrEqual(now);
          expect(goesAt).toBeLessThanOrEqual(now + (MAX_SCHEDULE_SECONDS + 86_400) * 1000);
          if (sendAt !== undefined && !windowed) expect(timing.send_at).toBe(sendAt);
          if (windowed) expect(isInsideWindow(DEFAULT_PROMOTIONAL_WINDOW, new Date(goesAt))).toBe(true);
          const start = sendAt === undefined ? now : Date.parse(sendAt);
          expect(Date.parse(timing.expires_at ?? "")).toBe(start + (body.validity_seconds ?? 86_400) * 1000);
          expect(Date.parse(timing.expires_at ?? "")).toBeGreaterThan(goesAt);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
