import ipaddr from "ipaddr.js";
import { ApiError } from "../errors.js";

/** At most this many addresses or ranges on one key (API.md §8d). */
export const MAX_ALLOWED_IPS = 20;

const PARAM = "allowed_ips";
const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * A key's `allowed_ips` as the API and the CLI take it: IPv4 and IPv6 addresses and CIDRs, a bare
 * address meaning that one address (/32, /128). Returns them canonical (`203.0.113.0/24`,
 * `2001:db8::/32`), without repeats; `null` (or nothing) means any address. Anything else is a
 * 400 `invalid_request` that says what to write instead.
 */
export function parseAllowedIps(entries: readonly string[] | null | undefined): string[] | null {
  if (entries === null || entries === undefined) return null;
  if (entries.length === 0) {
    throw new ApiError(
      "invalid_request",
      "allowed_ips must list at least one address or CIDR; leave it out to allow any address.",
      PARAM,
    );
  }
  if (entries.length > MAX_ALLOWED_IPS) {
    throw new ApiError(
      "invalid_request",
      `allowed_ips takes at most ${MAX_ALLOWED_IPS} addresses or CIDRs; got ${entries.length}.`,
      PARAM,
    );
  }
  const canonical = entries.map((entry, index) => canonicalCidr(entry, `${PARAM}.${index}`));
  return [...new Set(canonical)];
}

/** One address or CIDR in its canonical form: the network address and its prefix length. */
export function canonicalCidr(entry: string, param = PARAM): string {
  const text = entry.trim();
  const slash = text.indexOf("/");
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const address = parseAddress(addressText);
  if (!address) {
    throw new ApiError(
      "invalid_request",
      `${quote(entry)} is not an IPv4 or IPv6 address or CIDR, such as 203.0.113.0/24 or 2001:db8::/32.`,
      param,
    );
  }
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) {
    throw new ApiError(
      "invalid_request",
      `${quote(entry)} is an IPv4-mapped IPv6 address: write it as IPv4 (${address.toIPv4Address().toString()}); IPv4 ranges also match clients that connect over IPv6 as ::ffff:….`,
      param,
    );
  }
  const maxPrefix = address.kind() === "ipv4" ? 32 : 128;
  if (prefixText !== undefined && (!PREFIX.test(prefixText) || Number(prefixText) > maxPrefix)) {
    throw new ApiError(
      "invalid_request",
      `${quote(entry)} has a prefix length that is not a whole number from 0 to ${maxPrefix}.`,
      param,
    );
  }
  const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
  const network = networkOf(address, prefix);
  if (network.toString() !== address.toString()) {
    throw new ApiError(
      "invalid_request",
      `${quote(entry)} has host bits set: the network of ${address.toString()}/${prefix} is ${network.toString()}/${prefix}; write that, or ${address.toString()} alone for the one address.`,
      param,
    );
  }
  return `${network.toString()}/${prefix}`;
}

/**
 * The addresses one key's allowlist admits, compiled from its stored JSON text. A client address
 * arriving as IPv4-mapped IPv6 (`::ffff:203.0.113.5`, from a dual-stack listener) is matched as
 * the IPv4 address it is; an address that cannot be read is never admitted.
 */
export class AllowedIps {
  private readonly ranges: ReadonlyArray<[Address, number]>;

  private constructor(readonly cidrs: readonly string[]) {
    this.ranges = cidrs.map((cidr) => ipaddr.parseCIDR(cidr));
  }

  /** From the column's JSON text, as written by `parseAllowedIps`. */
  static fromStored(json: string): AllowedIps {
    const parsed: unknown = JSON.parse(json);
    if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === "string")) {
      throw new Error("api_keys.allowed_ips is not a JSON array of strings");
    }
    return new AllowedIps(parsed.map((entry) => canonicalCidr(entry)));
  }

  admits(clientAddress: string): boolean {
    const address = clientAddressOf(clientAddress);
    if (!address) return false;
    return this.ranges.some(
      ([network, prefix]) => network.kind() === address.kind() && address.match(network, prefix),
    );
  }
}

/**
 * Allowlists compiled once per distinct stored text, not per request. Keys share few distinct
 * lists; the bound only keeps a flood of distinct ones from growing memory without end.
 */
const COMPILED_LIMIT = 1_000;
const compiled = new Map<string, AllowedIps>();

export function compiledAllowedIps(json: string): AllowedIps {
  const cached = compiled.get(json);
  if (cached) return cached;
  const allowed = AllowedIps.fromStored(json);
  if (compiled.size >= COMPILED_LIMIT) {
    const oldest = compiled.keys().next().value;
    if (oldest !== undefined) compiled.delete(oldest);
  }
  compiled.set(json, allowed);
  return allowed;
}

/** The column's text for a parsed allowlist (null: any address). */
export function storedAllowedIps(cidrs: readonly string[] | null): string | null {
  return cidrs === null ? null : JSON.stringify(cidrs);
}

/** The column's text back as the list of CIDRs the key record shows. */
export function allowedIpsOf(stored: string | null): string[] | null {
  return stored === null ? null : [...compiledAllowedIps(stored).cidrs];
}

/**
 * A client address as the socket or a trusted proxy gives it, IPv4-mapped IPv6 read as IPv4. A
 * link-local address's zone (`fe80::1%eth0`) names the interface, not the client, and is left out.
 */
function clientAddressOf(text: string): Address | undefined {
  return ipaddr.isValid(text) ? ipaddr.process(text) : undefined;
}

/**
 * An address written the one plain way: IPv4 as four decimal parts without leading zeros (never
 * the octal, hexadecimal or shortened forms some parsers take), IPv6 without a zone.
 */
function parseAddress(text: string): Address | undefined {
  if (text.includes(":")) {
    if (text.includes("%") || !ipaddr.IPv6.isValid(text)) return undefined;
    return ipaddr.IPv6.parse(text);
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : undefined;
}

function networkOf(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  const masked = bytes.map((byte, index) => {
    const bitsHere = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & ((0xff << (8 - bitsHere)) & 0xff);
  });
  return ipaddr.fromByteArray(masked);
}

function quote(entry: string): string {
  return JSON.stringify(entry.length > 60 ? `${entry.slice(0, 60)}…` : entry);
}
