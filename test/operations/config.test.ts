import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { RejectionTable } from "../../src/delivery/carriers/dlt-rejections.js";
import { ConfigError } from "../../src/errors.js";

describe("configuration from the environment", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 3000,
      databaseUrl: "sqlite:./data/dakiya.db",
      secret: undefined,
      logLevel: "info",
      prices: { sms: 2_500 },
      maxVariableLength: 30,
      idempotencyLockSeconds: 60,
      requestTimeoutMs: 60_000,
      promotionalWindow: { opensAtMinute: 9 * 60, closesAtMinute: 21 * 60 },
      dltTemplateRules: "warn",
      worker: { batchSize: 50, leaseSeconds: 30, pollIntervalMs: 250, maxAttempts: 8 },
      smpp: undefined,
    });
  });

  it.each([
    [{ PORT: "70000" }, /PORT/],
    [{ PORT: "abc" }, /PORT/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [{ DLT_TEMPLATE_RULES: "loose" }, /DLT_TEMPLATE_RULES/],
    [{ DAKIYA_SECRET: "short" }, /DAKIYA_SECRET/],
    [{ PRICE_SMS_SEGMENT: "-1" }, /PRICE_SMS_SEGMENT/],
    [{ PRICE_SMS_SEGMENT: "0.12345" }, /PRICE_SMS_SEGMENT/],
    [{ WORKER_BATCH_SIZE: "0" }, /WORKER_BATCH_SIZE/],
    [{ IDEMPOTENCY_LOCK_SECONDS: "0" }, /IDEMPOTENCY_LOCK_SECONDS/],
    [{ REQUEST_TIMEOUT_MS: "0" }, /REQUEST_TIMEOUT_MS/],
    [{ REQUEST_TIMEOUT_MS: "30s" }, /REQUEST_TIMEOUT_MS/],
    [{ PROMOTIONAL_WINDOW: "9am-9pm" }, /PROMOTIONAL_WINDOW/],
    [{ PROMOTIONAL_WINDOW: "09:00-25:00" }, /PROMOTIONAL_WINDOW/],
    [{ PROMOTIONAL_WINDOW: "21:00-21:00" }, /PROMOTIONAL_WINDOW/],
    [{ SMPP_URL: "http://x:y@h:1" }, /SMPP_URL/],
    [{ SMPP_URL: "smpp://host:2775" }, /system_id/],
    [{ SMPP_URL: "not a url" }, /SMPP_URL/],
    [{ SMPP_URL: "smpp://a:b@h", SMPP_BIND: "receiver" }, /SMPP_BIND/],
    [{ SMPP_URL: "smpp://a:b@h", SMPP_TLV_TM: "0x0010" }, /SMPP_TLV_TM/],
    [{ SMPP_URL: "smpp://a:b@h", SMPP_TPS: "0" }, /SMPP_TPS/],
    [{ SMPP_URL: "smpp://a:b@h", SMPP_TPS: "100001" }, /SMPP_TPS/],
  ])("refuses %o with a one-line message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("reads PROMOTIONAL_WINDOW as India times, also across midnight", () => {
    expect(loadConfig({ PROMOTIONAL_WINDOW: "10:00-20:30" }).promotionalWindow).toEqual({
      opensAtMinute: 600,
      closesAtMinute: 1230,
    });
    expect(loadConfig({ PROMOTIONAL_WINDOW: "22:00-06:00" }).promotionalWindow).toEqual({
      opensAtMinute: 1320,
      closesAtMinute: 360,
    });
    expect(loadConfig({ PROMOTIONAL_WINDOW: "" }).promotionalWindow).toEqual({
      opensAtMinute: 540,
      closesAtMinute: 1260,
    });
  });

  it("takes SMPP_TPS up to 100000", () => {
    expect(loadConfig({ SMPP_URL: "smpp://a:b@h", SMPP_TPS: "100000" }).smpp?.[0]?.tps).toBe(100_000);
  });

  it("reads an SMPP connection, with TLS, an encoded password and hex TLV tags", () => {
    const { smpp } = loadConfig({
      SMPP_URL: "smpps://dakiya:p%40ss%3Aword@smsc.example.in",
      SMPP_BIND: "transmitter+receiver",
      SMPP_TLV_ENTITY_ID: "0x1401",
      SMPP_TLV_TEMPLATE_ID: "5120",
      SMPP_TM_ID: "1702000000000000001",
      SMPP_TPS: "200",
    });
    expect(smpp).toEqual([
      {
        name: "default",
        priority: 1,
        weight: 1,
        // No lists: the route carries every category, account and sender.
        traffic: {},
        smsc: "default",
        host: "smsc.example.in",
        port: 3550,
        tls: true,
        systemId: "dakiya",
        password: "p@ss:word",
        systemType: "",
        bindMode: "transmitter+receiver",
        tps: 200,
        window: 10,
        tlv: { entityId: 0x1401, templateId: 0x1400, tm: 0x1402 },
        tmId: "1702000000000000001",
        tmChain: undefined,
        source: { ton: 5, npi: 0 },
        destination: { ton: 1, npi: 1 },
        submitTimeoutMs: 10_000,
        windowWaitMs: 500,
        breaker: { failures: 5, cooldownMs: 30_000 },
        // The shorthand has no error_map: the default table of operator rejections alone.
        errorMap: new Map(),
        rejections: new RejectionTable(),
      },
    ]);
    expect(loadConfig({ SMPP_URL: "smpp://a:b@10.0.0.5" }).smpp?.[0]).toMatchObject({
      port: 2775,
      tls: false,
    });
  });
});
