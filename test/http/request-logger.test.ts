import { describe, expect, it } from "vitest";
import { lazyRequestLogger } from "../../src/http/request-logger.js";
import { createLogger } from "../../src/lib/logger.js";

const isLevelEnabled = (log: unknown, level: string) =>
  (log as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level);

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const parent = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { parent, lines };
}

describe("a request's logger", () => {
  it("writes nothing below the server's level, and lines at it with the request id", () => {
    const { parent, lines } = capture("warn");
    const log = lazyRequestLogger(parent, { reqId: "req_a" }, {});
    log.info({ route: "/v2/balance" }, "request completed");
    log.debug("detail");
    expect(lines).toEqual([]);
    expect(isLevelEnabled(log, "info")).toBe(false);
    log.warn({ status: 500 }, "request failed");
    log.error(new Error("boom"));
    expect(lines).toEqual([
      expect.objectContaining({ reqId: "req_a", status: 500, msg: "request failed", level: 40 }),
      expect.objectContaining({
        reqId: "req_a",
        level: 50,
        err: expect.objectContaining({ message: "boom" }),
      }),
    ]);
  });

  it("keeps a route's own level and redacts as the server's logger does", () => {
    const { parent, lines } = capture("warn");
    const log = lazyRequestLogger(parent, { reqId: "req_b" }, { level: "debug" });
    expect(log.level).toBe("debug");
    expect(isLevelEnabled(log, "debug")).toBe(true);
    expect(isLevelEnabled(log, "trace")).toBe(false);
    log.debug({ authorization: "Bearer dk_live_secret" }, "with a header");
    log.child({ part: 2 }).info("from a child");
    expect(lines).toEqual([
      expect.objectContaining({ reqId: "req_b", authorization: "[redacted]", msg: "with a header" }),
      expect.objectContaining({ reqId: "req_b", part: 2, msg: "from a child" }),
    ]);
  });
});
