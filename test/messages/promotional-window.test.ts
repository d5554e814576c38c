import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  DEFAULT_PROMOTIONAL_WINDOW,
  isInsideWindow,
  nextOpening,
  type PromotionalWindow,
  parsePromotionalWindow,
} from "../../src/messages/promotional-window.js";

const execFileAsync = promisify(execFile);

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** India's wall clock read by the platform's time-zone database: an oracle independent of the module's arithmetic. */
const INDIA_CLOCK = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Kolkata",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

function indiaMinuteOfDay(at: Date): number {
  const parts = INDIA_CLOCK.formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return part("hour") * 60 + part("minute");
}

const minuteOfDay = fc.integer({ min: 0, max: 24 * 60 - 1 });
const anyWindow: fc.Arbitrary<PromotionalWindow> = fc
  .tuple(minuteOfDay, minuteOfDay)
  .filter(([opens, closes]) => opens !== closes)
  .map(([opensAtMinute, closesAtMinute]) => ({ opensAtMinute, closesAtMinute }));
const anyInstant = fc.oneof(
  fc.date({
    min: new Date("1971-01-01T00:00:00Z"),
    max: new Date("2200-01-01T00:00:00Z"),
    noInvalidDate: true,
  }),
  // Instants on and next to whole minutes, where windows open and close.
  fc
    .tuple(fc.integer({ min: 0, max: 3 * 24 * 60 }), fc.constantFrom(-1, 0, 1))
    .map(([minute, ms]) => new Date(Date.UTC(2026, 2, 7) + minute * MINUTE_MS + ms)),
);

const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

describe("parsePromotionalWindow", () => {
  it("reads HH:MM-HH:MM, India time, and the default is 09:00-21:00", () => {
    expect(parsePromotionalWindow("09:00-21:00")).toEqual(DEFAULT_PROMOTIONAL_WINDOW);
    expect(DEFAULT_PROMOTIONAL_WINDOW).toEqual({ opensAtMinute: 540, closesAtMinute: 1260 });
    expect(parsePromotionalWindow(" 9:30 - 20:45 ")).toEqual({ opensAtMinute: 570, closesAtMinute: 1245 });
    expect(parsePromotionalWindow("00:00-23:59")).toEqual({ opensAtMinute: 0, closesAtMinute: 1439 });
  });

  it("takes a window across midnight", () => {
    expect(parsePromotionalWindow("22:00-06:00")).toEqual({ opensAtMinute: 1320, closesAtMinute: 360 });
    expect(parsePromotionalWindow("21:00-00:00")).toEqual({ opensAtMinute: 1260, closesAtMinute: 0 });
  });

  it.each([
    ["", /HH:MM-HH:MM/],
    ["09:00", /HH:MM-HH:MM/],
    ["9-21", /HH:MM-HH:MM/],
    ["09:00-21:00 IST", /HH:MM-HH:MM/],
    ["9am-9pm", /HH:MM-HH:MM/],
    ["09:0-21:00", /HH:MM-HH:MM/],
    ["24:00-06:00", /24-hour clock/],
    ["09:00-21:60", /24-hour clock/],
    ["09:00-09:00", /same time/],
    ["00:00-00:00", /same time/],
  ])("refuses %j with a one-line message naming PROMOTIONAL_WINDOW", (text, message) => {
    expect(() => parsePromotionalWindow(text)).toThrow(ConfigError);
    expect(() => parsePromotionalWindow(text)).toThrow(message);
    expect(() => parsePromotionalWindow(text)).toThrow(/PROMOTIONAL_WINDOW/);
  });

  it("reads back any window it could be given, and answers anything else with a ConfigError", () => {
    fc.assert(
      fc.property(anyWindow, (window) => {
        expect(
          parsePromotionalWindow(`${hhmm(window.opensAtMinute)}-${hhmm(window.closesAtMinute)}`),
        ).toEqual(window);
      }),
    );
    const textLike = fc.oneof(
      fc.string(),
      fc.stringMatching(/^\d{1,3}:\d{1,3}-\d{1,3}:\d{1,3}$/),
      fc.tuple(minuteOfDay, minuteOfDay).map(([a, b]) => `${hhmm(a)}-${hhmm(b)}`),
    );
    fc.assert(
      fc.property(textLike, (text) => {
        try {
          const window = parsePromotionalWindow(text);
          for (const minute of [window.opensAtMinute, window.closesAtMinute]) {
            expect(Number.isInteger(minute) && minute >= 0 && minute < 24 * 60).toBe(true);
          }
          expect(window.opensAtMinute).not.toBe(window.closesAtMinute);
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          expect((error as Error).message).not.toContain("\n");
        }
      }),
    );
  });
});

describe("isInsideWindow and nextOpening", () => {
  it("opens at 09:00 and closes at 21:00 India time (03:30 and 15:30 UTC)", () => {
    const at = (iso: string) => new Date(iso);
    const window = DEFAULT_PROMOTIONAL_WINDOW;
    expect(isInsideWindow(window, at("2026-03-10T03:29:59.999Z"))).toBe(false);
    expect(isInsideWindow(window, at("2026-03-10T03:30:00.000Z"))).toBe(true);
    expect(isInsideWindow(window, at("2026-03-10T15:29:59.999Z"))).toBe(true);
    expect(isInsideWindow(window, at("2026-03-10T15:30:00.000Z"))).toBe(false);

    expect(nextOpening(window, at("2026-03-10T03:29:59.999Z"))).toEqual(at("2026-03-10T03:30:00.000Z"));
    expect(nextOpening(window, at("2026-03-10T15:30:00.000Z"))).toEqual(at("2026-03-11T03:30:00.000Z"));
    // 23:59 India time on the 10th is 18:29 UTC; 00:10 India time on the 11th is 18:40 UTC on the 10th.
    expect(nextOpening(window, at("2026-03-10T18:29:00.000Z"))).toEqual(at("2026-03-11T03:30:00.000Z"));
    expect(nextOpening(window, at("2026-03-10T18:40:00.000Z"))).toEqual(at("2026-03-11T03:30:00.000Z"));
    const inside = at("2026-03-10T10:00:00.123Z");
    expect(nextOpening(window, inside).getTime()).toBe(inside.getTime());
  });

  it("holds a window across midnight open from its opening to its close the next morning", () => {
    const window = parsePromotionalWindow("22:00-06:00");
    // 05:30 India time, 06:00 India time, 22:00 India time (16:30 UTC).
    expect(isInsideWindow(window, new Date("2026-03-10T00:00:00Z"))).toBe(true);
    expect(isInsideWindow(window, new Date("2026-03-10T00:30:00Z"))).toBe(false);
    expect(nextOpening(window, new Date("2026-03-10T00:30:00Z"))).toEqual(new Date("2026-03-10T16:30:00Z"));
    expect(isInsideWindow(window, new Date("2026-03-10T16:30:00Z"))).toBe(true);
  });

  it("agrees with India's wall clock from the time-zone database", () => {
    fc.assert(
      fc.property(anyWindow, anyInstant, (window, at) => {
        const minute = indiaMinuteOfDay(at);
        const { opensAtMinute: opens, closesAtMinute: closes } = window;
        const expected =
          opens < closes ? minute >= opens && minute < closes : minute >= opens || minute < closes;
        expect(isInsideWindow(window, at)).toBe(expected);
      }),
    );
  });

  it("finds the next opening: inside the window, not before `at`, within a day, with nothing open in between", () => {
    fc.assert(
      fc.property(anyWindow, anyInstant, (window, at) => {
        const next = nextOpening(window, at);
        expect(isInsideWindow(window, next)).toBe(true);
        if (isInsideWindow(window, at)) {
          expect(next.getTime()).toBe(at.getTime());
          return;
        }
        expect(next.getTime()).toBeGreaterThan(at.getTime());
        expect(next.getTime() - at.getTime()).toBeLessThanOrEqual(DAY_MS);
        expect(indiaMinuteOfDay(next)).toBe(window.opensAtMinute);
        expect(next.getTime() % MINUTE_MS).toBe(0);
        // The window changes only on whole minutes: every one between `at` and the opening is shut.
        expect(isInsideWindow(window, new Date(at.getTime() + 1))).toBe(next.getTime() === at.getTime() + 1);
        for (
          let t = Math.floor(at.getTime() / MINUTE_MS + 1) * MINUTE_MS;
          t < next.getTime();
          t += MINUTE_MS
        ) {
          expect(isInsideWindow(window, new Date(t))).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("refuses an invalid date rather than answering for it", () => {
    expect(() => isInsideWindow(DEFAULT_PROMOTIONAL_WINDOW, new Date(Number.NaN))).toThrow(RangeError);
    expect(() => nextOpening(DEFAULT_PROMOTIONAL_WINDOW, new Date(Number.NaN))).toThrow(RangeError);
  });

  it("gives the same answers whatever time zone the server runs in", async () => {
    // Around New York's and Chatham's daylight-saving changes of 2026, and a day in India.
    const instants = [
      "2026-03-08T06:59:00Z",
      "2026-03-08T07:00:00Z",
      "2026-04-04T13:44:00Z",
      "2026-04-04T14:45:00Z",
      "2026-11-01T05:30:00Z",
      "2026-11-01T06:00:00Z",
      "2026-09-26T13:45:00Z",
      "2026-03-10T03:29:59.999Z",
      "2026-03-10T15:30:00Z",
      "2026-03-10T20:00:00Z",
    ];
    const windows = ["09:00-21:00", "22:00-06:00", "00:30-01:00"];
    const module = fileURLToPath(new URL("../../src/messages/promotional-window.ts", import.meta.url));
    const script = `
      const w = await import(${JSON.stringify(module)});
      const answers = [];
      for (const text of ${JSON.stringify(windows)}) {
        const window = w.parsePromotionalWindow(text);
        for (const iso of ${JSON.stringify(instants)}) {
          const at = new Date(iso);
          answers.push([w.isInsideWindow(window, at), w.nextOpening(window, at).toISOString()]);
        }
      }
      console.log(JSON.stringify({ zone: new Date(0).getTimezoneOffset(), answers }));
    `;
    const expected = windows.flatMap((text) =>
      instants.map((iso) => {
        const window = parsePromotionalWindow(text);
        return [isInsideWindow(window, new Date(iso)), nextOpening(window, new Date(iso)).toISOString()];
      }),
    );
    for (const [zone, offset] of [
      ["America/New_York", 300],
      ["Pacific/Chatham", -765],
    ] as const) {
      const { stdout } = await execFileAsync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        { env: { ...process.env, TZ: zone } },
      );
      const answer = JSON.parse(stdout) as { zone: number; answers: unknown };
      expect(answer.zone, `the child runs in ${zone}`).toBe(offset);
      expect(answer.answers, zone).toEqual(expected);
    }
  });
});
