import { ConfigError } from "./errors.js";

/** An integer setting (decimal, or hex with 0x) within bounds; the fallback when unset or empty. */
export function integerFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const n = /^0x[0-9a-f]+$/i.test(value) ? Number.parseInt(value, 16) : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}
