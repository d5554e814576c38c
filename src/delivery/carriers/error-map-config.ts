import { ConfigError } from "../../errors.js";
import { kindOf, shown } from "./config-values.js";
import {
  isRejectionCode,
  parseErrorMapKey,
  REJECTION_CODES,
  type RejectionCode,
  statusHex,
} from "./dlt-rejections.js";

/**
 * A route's `error_map`: an object from `submit_sm_resp` statuses (`0x` and 8 hex digits) or
 * receipt `err:` codes (1 to 6 digits) to the names of operator rejections. Keys come back in
 * one spelling (upper-case hex, no leading zeros), so two spellings of one code are refused.
 */
export function errorMapOf(value: unknown, where: string): ReadonlyMap<string, RejectionCode> {
  const map = new Map<string, RejectionCode>();
  if (value === undefined) return map;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`${where}: error_map must be an object of codes to names, got ${kindOf(value)}`);
  }
  const spelled = new Map<string, string>();
  for (const [key, name] of Object.entries(value)) {
    const parsed = parseErrorMapKey(key);
    if (!parsed) {
      throw new ConfigError(
        `${where}: error_map key ${shown(key)} must be a submit_sm_resp status written 0x and 8 hex digits (0x0000045A) or a receipt err: code of 1 to 6 digits (623)`,
      );
    }
    if (parsed.kind === "receipt" && parsed.err === "0") {
      throw new ConfigError(
        `${where}: error_map key ${shown(key)} is err:000, which receipts send when there is no error`,
      );
    }
    if (parsed.kind === "status" && parsed.status === 0) {
      throw new ConfigError(`${where}: error_map key ${shown(key)} is ESME_ROK, an accepted submit`);
    }
    if (!isRejectionCode(name)) {
      throw new ConfigError(
        `${where}: error_map ${shown(key)} must name one of ${REJECTION_CODES.join(", ")}, got ${shown(name)}`,
      );
    }
    const canonical = parsed.kind === "status" ? statusHex(parsed.status) : parsed.err;
    const before = spelled.get(canonical);
    if (before !== undefined) {
      throw new ConfigError(
        `${where}: error_map has ${shown(before)} and ${shown(key)}, the same code twice`,
      );
    }
    spelled.set(canonical, key);
    map.set(canonical, name);
  }
  return map;
}

/** Whether two routes name the same rejections for the same codes. */
export function sameErrorMap(
  a: ReadonlyMap<string, RejectionCode>,
  b: ReadonlyMap<string, RejectionCode>,
): boolean {
  return a.size === b.size && [...a].every(([key, name]) => b.get(key) === name);
}
