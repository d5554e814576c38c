import { integerFromEnv } from "../env.js";
import { ConfigError } from "../errors.js";
import type { MetricsListenerConfig } from "./metrics.js";

/**
 * `METRICS_PORT` gives `/metrics` a listener of its own, on `METRICS_HOST` (else the server's
 * `HOST`); unset, `/metrics` is served on the main port.
 */
export function parseMetricsListener(
  env: NodeJS.ProcessEnv,
  host: string,
): MetricsListenerConfig | undefined {
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === "") {
    if (env.METRICS_HOST)
      throw new ConfigError("METRICS_HOST needs METRICS_PORT (the port /metrics listens on)");
    return undefined;
  }
  return { host: env.METRICS_HOST || host, port: integerFromEnv(env, "METRICS_PORT", 0, 0, 65535) };
}
