import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, isIPv4 } from "node:net";
import type { Environment } from "../db/schema.js";
import { ApiError } from "../errors.js";

/**
 * The SSRF guard: a webhook URL must not reach the server's own network. Checked when an endpoint
 * is saved and again on every delivery, after resolution, and the delivery connects to the very
 * address that was checked, so a name that changes its answer in between (DNS rebinding) cannot
 * slip through.
 */

export const MAX_URL_LENGTH = 2048;
const LOOKUP_TIMEOUT_MS = 5_000;

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses; tests inject their own. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A URL or address that the guard refuses; its message names the address class, never a secret. */
export class RefusedAddress extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RefusedAddress";
  }
}

type Family = "ipv4" | "ipv6";

/** Address classes in the order they are named: the first that matches labels the refusal. */
const CLASSES: Array<{ label: string; subnets: Array<[string, number, Family]> }> = [
  {
    label: "a cloud metadata address",
    subnets: [
      ["169.254.169.254", 32, "ipv4"],
      ["fd00:ec2::254", 128, "ipv6"],
    ],
  },
  {
    label: "a loopback address",
    subnets: [
      ["127.0.0.0", 8, "ipv4"],
      ["::1", 128, "ipv6"],
    ],
  },
  {
    label: "the unspecified address",
    subnets: [
      ["0.0.0.0", 8, "ipv4"],
      ["::", 128, "ipv6"],
    ],
  },
  { label: "the broadcast address", subnets: [["255.255.255.255", 32, "ipv4"]] },
  {
    label: "a private address",
    subnets: [
      ["10.0.0.0", 8, "ipv4"],
      ["172.16.0.0", 12, "ipv4"],
      ["192.168.0.0", 16, "ipv4"],
      ["fc00::", 7, "ipv6"],
      ["fec0::", 10, "ipv6"],
      ["64:ff9b:1::", 48, "ipv6"],
    ],
  },
  {
    label: "a link-local address",
    subnets: [
      ["169.254.0.0", 16, "ipv4"],
      ["fe80::", 10, "ipv6"],
    ],
  },
  { label: "a carrier-grade NAT address", subnets: [["100.64.0.0", 10, "ipv4"]] },
  {
    label: "a multicast address",
    subnets: [
      ["224.0.0.0", 4, "ipv4"],
      ["ff00::", 8, "ipv6"],
    ],
  },
  {
    label: "a reserved address",
    subnets: [
      ["192.0.0.0", 24, "ipv4"],
      ["192.0.2.0", 24, "ipv4"],
      ["198.18.0.0", 15, "ipv4"],
      ["198.51.100.0", 24, "ipv4"],
      ["203.0.113.0", 24, "ipv4"],
      ["240.0.0.0", 4, "ipv4"],
      ["100::", 64, "ipv6"],
      ["2001::", 32, "ipv6"],
      ["2001:db8::", 32, "ipv6"],
    ],
  },
];

const BLOCK_LISTS = CLASSES.map(({ label, subnets }) => {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return { label, list };
});

/**
 * Why `address` (an IP literal) must not be connected to, or `undefined` when it is a public
 * address. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged
 * by the IPv4 address they lead to.
 */
export function refusedAddressClass(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return "not an IP address";
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded !== undefined) {
      const inner = refusedAddressClass(embedded);
      if (inner !== undefined) return `${inner} (IPv4 ${embedded} inside IPv6)`;
    }
  }
  const type: Family = family === 4 ? "ipv4" : "ipv6";
  return BLOCK_LISTS.find(({ list }) => list.check(address, type))?.label;
}

/** The IPv4 address an IPv6 address stands for, if it is one of the forms that embed one. */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const ipv4At = (offset: number) => Array.from(bytes.subarray(offset, offset + 4)).join(".");
  const word = (i: number) => ((bytes[i] as number) << 8) | (bytes[i + 1] as number);
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (compatible, deprecated)
  if (zeros(0, 10) && word(10) === 0xffff) return ipv4At(12);
  if (zeros(0, 8) && word(8) === 0xffff && zeros(10, 12)) return ipv4At(12);
  if (zeros(0, 12) && !zeros(12, 14)) return ipv4At(12);
  // 64:ff9b::a.b.c.d (NAT64 well-known prefix)
  if (word(0) === 0x64 && word(2) === 0xff9b && zeros(4, 12)) return ipv4At(12);
  // 2002:AABB:CCDD::/48 (6to4)
  if (word(0) === 0x2002) return ipv4At(2);
  return undefined;
}

/** The 16 bytes of an IPv6 literal (already validated by `isIP`). */
function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.split("%")[0] ?? "";
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => Number.parseInt(h, 16)));
  const headWords = parse(head);
  const restWords = rest === undefined ? [] : parse(rest);
  const missing = 8 - headWords.length - restWords.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  const bytes = new Uint8Array(16);
  [...headWords, ...new Array<number>(missing).fill(0), ...restWords].forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

/** Host names that always mean this machine (RFC 6761), whatever DNS says. */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** The host of a URL as `net` wants it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves `hostname` and checks every address it has; returns the address to connect to. With
 * `allowPrivate`, nothing is refused. Throws `RefusedAddress`, or the resolver's own error.
 */
export async function resolveCheckedAddress(
  hostname: string,
  options: { allowPrivate: boolean; lookup: HostLookup },
): Promise<ResolvedAddress> {
  if (!options.allowPrivate && isLocalName(hostname)) {
    throw new RefusedAddress(`${hostname} is a name for this machine`);
  }
  const literal = isIP(hostname);
  const addresses =
    literal === 0 ? await withTimeout(options.lookup(hostname)) : [{ address: hostname, family: literal }];
  const first = addresses[0];
  if (!first) throw new RefusedAddress(`${hostname} has no address`);
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const refused = refusedAddressClass(address);
      if (refused !== undefined) {
        const resolved = literal === 0 ? `${hostname} resolves to ${address}, ` : `${address} is `;
        throw new RefusedAddress(`${resolved}${refused}`);
      }
    }
  }
  return first;
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("DNS lookup timed out")), LOOKUP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Checks a webhook URL as the API takes it: `http(s)://`, at most 2,048 characters, no
 * credentials, `https://` in live, and (unless private addresses are allowed) a host that
 * resolves only to public addresses. Throws `invalid_request` with `param` `url`.
 */
export async function checkWebhookUrl(
  raw: string,
  environment: Environment,
  options: { allowPrivate: boolean; lookup: HostLookup },
): Promise<string> {
  const refuse = (message: string) => new ApiError("invalid_request", message, "url");
  if (raw.length > MAX_URL_LENGTH) throw refuse(`url must be at most ${MAX_URL_LENGTH} characters.`);
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    throw refuse("url must be an absolute http:// or https:// address.");
  }
  if (url.username !== "" || url.password !== "") {
    throw refuse("url must not carry a user name or password; authenticate with the signature instead.");
  }
  if (environment === "live" && url.protocol !== "https:") {
    throw refuse("A live webhook endpoint must use https://.");
  }
  // With private addresses allowed there is nothing to check: the host may resolve only where the workers run.
  if (options.allowPrivate) return raw;
  try {
    await resolveCheckedAddress(hostOf(url), options);
  } catch (error) {
    if (error instanceof RefusedAddress) {
      throw refuse(
        `url is not allowed: ${error.message}; webhooks go to public addresses only, unless the operator ` +
          "sets WEBHOOK_ALLOW_PRIVATE=true (on the server and for the CLI) for receivers on this machine or a private network.",
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA")
      throw refuse(`url's host ${url.hostname} does not resolve.`);
    // A resolver that is merely slow or failing now: the address is checked again at delivery.
  }
  return raw;
}
