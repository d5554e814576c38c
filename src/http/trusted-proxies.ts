import { isIP } from "node:net";
import { ConfigError } from "../errors.js";

/** Names for address ranges that the `TRUST_PROXY` list takes besides addresses and CIDRs. */
const RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/**
 * `TRUST_PROXY`: the reverse proxies whose `X-Forwarded-For`, `X-Forwarded-Proto` and
 * `X-Forwarded-Host` are believed, as a comma-separated list of addresses, CIDRs
 * (`10.0.0.0/8`) or `loopback`, `linklocal`, `uniquelocal`. Empty: none is, and the client
 * address is the connection's.
 */
export function parseTrustedProxies(env: NodeJS.ProcessEnv): string[] {
  const value = env.TRUST_PROXY ?? "";
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of entries) {
    if (!isRange(entry)) {
      throw new ConfigError(
        `TRUST_PROXY must list addresses, CIDRs (10.0.0.0/8) or loopback, linklocal, uniquelocal; got "${entry}"`,
      );
    }
  }
  return entries;
}

function isRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}
