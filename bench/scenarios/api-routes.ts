// The API scenarios (otp-send, otp-verify, sms-send-sandbox, balance) and the bare route: which
// request each sends, and the result record each one gets (bench/api.ts runs the load).

import { type ApiLoadResult, type ApiScenario, runApiLoad } from "../api.js";
import { fail } from "../lifecycle.js";
import { CONNECTIONS, DIALECT, LOAD_SECONDS, WARMUP_SECONDS } from "../options.js";
import type { ChildHandle, Machine } from "../processes.js";
import { SERVER_ENV } from "../server.js";
import { type BenchKeys, SENDER, TEMPLATE_ID } from "../setup.js";
import type { WebhookFigures } from "../webhooks.js";
import { otpVerifyScenario } from "./otp-verify.js";

export interface ApiScenarioResult extends ApiLoadResult {
  scenario: string;
  description: string;
  run_at: string;
  machine: Machine;
  settings: Record<string, string | number>;
  /** 2xx answers per second ÷ the bare route's. */
  ratio_to_bare: number | null;
  /** Unless --no-webhooks: the sandbox endpoint's events after this scenario (bench/webhooks.ts). */
  webhooks: WebhookFigures | null;
}

export function sandboxHeaders(keys: BenchKeys): Record<string, string> {
  return { authorization: `Bearer ${keys.sandbox}`, "content-type": "application/json" };
}

/** The request of an API scenario; `verifyNumbers` is how many OTPs otp-verify works on. */
export function apiScenario(
  name: "otp-send" | "otp-verify" | "sms-send-sandbox" | "balance",
  keys: BenchKeys,
  verifyNumbers: number,
): ApiScenario {
  const headers = sandboxHeaders(keys);
  switch (name) {
    case "otp-send":
      return {
        name,
        description:
          "POST /v2/otp/send with a sandbox key, SMS, a distinct number each (a new OTP, a code generated)",
        method: "POST",
        path: "/v2/otp/send",
        headers,
        body: (n) => JSON.stringify({ to: `+9197${String(n % 100_000_000).padStart(8, "0")}` }),
        outcome: (status) => String(status),
      };
    case "otp-verify":
      return otpVerifyScenario(verifyNumbers, headers);
    case "sms-send-sandbox":
      return {
        name,
        description:
          "POST /v2/sms/send with a sandbox key (one-variable transactional template, a distinct destination each)",
        method: "POST",
        path: "/v2/sms/send",
        headers,
        body: (n) =>
          JSON.stringify({
            to: `+9195${String(n % 100_000_000).padStart(8, "0")}`,
            sender: SENDER,
            template_id: TEMPLATE_ID,
            variables: { var1: String(100_000 + (n % 900_000)) },
            reference: `bench-sandbox-${n}`,
          }),
        outcome: (status) => String(status),
      };
    case "balance":
      return {
        name,
        description: "GET /v2/balance with a sandbox key",
        method: "GET",
        path: "/v2/balance",
        headers: { authorization: `Bearer ${keys.sandbox}` },
      };
  }
}

export function bareScenario(keys: BenchKeys): ApiScenario {
  return {
    name: "bare",
    description:
      "GET /v2/balance on a bare Fastify route (bench/bare.ts) answering the same JSON, nothing behind it",
    method: "GET",
    path: "/v2/balance",
    headers: { authorization: `Bearer ${keys.sandbox}` },
  };
}

/**
 * Loads one route: the warm-up, then the measured load; fails the run if the server exits.
 * `settle` and `tail` wait for the work of the warm-up and of the load (bench/api.ts).
 */
export async function runApi(
  baseUrl: string,
  server: ChildHandle,
  machine: Machine,
  scenario: ApiScenario,
  extraSettings: Record<string, string | number> = {},
  waits: Pick<Parameters<typeof runApiLoad>[3], "settle" | "tail"> = {},
): Promise<ApiScenarioResult> {
  const runAt = new Date().toISOString();
  const { cpu, ...result } = await runApiLoad(baseUrl, scenario, server, {
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    loadSeconds: LOAD_SECONDS,
    ...waits,
  });
  if (server.exited)
    fail(`${scenario.name}: the server exited with ${server.exitCode ?? server.signal} during the load`);
  return {
    scenario: scenario.name,
    // First among the figures: what a request cost.
    cpu,
    description: scenario.description,
    run_at: runAt,
    machine,
    settings:
      scenario.name === "bare"
        ? { NODE_ENV: "production", database: "none" }
        : { ...SERVER_ENV, database: DIALECT, ...extraSettings },
    ratio_to_bare: null,
    ...result,
    webhooks: null,
  };
}
