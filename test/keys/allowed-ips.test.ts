import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import {
  AllowedIps,
  canonicalCidr,
  compiledAllowedIps,
  parseAllowedIps,
} from "../../src/keys/allowed-ips.js";
import { nastyString } from "../helpers/fuzz.js";

/*
 * A key's allowlist (src/keys/allowed-ips.ts), fuzzed: the parser never fails but with the
 * contract's 400, its canonical forms are fixed points, and the matcher agrees with a
 * bit-by-bit reference written here over random ranges and addresses.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = number[];

const ipv4Bytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 });
const ipv6Bytes = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 });

function toBigInt(bytes: Bytes): bigint {
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

/** The reference: whether the first `prefix` bits of two addresses of one family are equal. */
function inRange(address: Bytes, network: Bytes, prefix: number): boolean {
  if (address.length !== network.length) return false;
  const bits = BigInt(address.length * 8);
  const shift = bits - BigInt(prefix);
  return toBigInt(address) >> shift === toBigInt(network) >> shift;
}

function masked(bytes: Bytes, prefix: number): Bytes {
  return bytes.map((byte, index) => {
    const keep = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
}

const formatIpv4 = (bytes: Bytes) => bytes.join(".");

/** IPv6 in its full, uncompressed form, upper or lower case: a spelling the parser must bring to canonical form. */
function formatIpv6(bytes: Bytes, upper = false): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  const text = groups.join(":");
  return upper ? text.toUpperCase() : text;
}

const isMappedIpv6 = (bytes: Bytes) =>
  bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;

/** A range: a family's bytes with a prefix length, its host bits cleared. */
const range = fc
  .oneof(
    fc.tuple(ipv4Bytes, fc.integer({ min: 0, max: 32 })),
    fc.tuple(ipv6Bytes, fc.integer({ min: 0, max: 128 })).filter(([bytes]) => !isMappedIpv6(bytes)),
  )
  .map(([bytes, prefix]) => ({ network: masked(bytes, prefix), prefix }));

/** The bits of byte `index` below the range's prefix: those an address inside it may set. */
function hostMask({ prefix }: { prefix: number }, index: number): number {
  const keep = Math.min(8, Math.max(0, prefix - index * 8));
  return ~((0xff << (8 - keep)) & 0xff) & 0xff;
}

/** The ways a client address arrives: IPv4 also as IPv4-mapped IPv6. */
function spellings(bytes: Bytes): Array<{ text: string; bytes: Bytes }> {
  if (bytes.length === 4) {
    return [
      { text: formatIpv4(bytes), bytes },
      { text: `::ffff:${formatIpv4(bytes)}`, bytes },
    ];
  }
  return isMappedIpv6(bytes) ? [] : [{ text: formatIpv6(bytes), bytes }];
}

function rangeText({ network, prefix }: { network: Bytes; prefix: number }, upper = false): string {
  return `${network.length === 4 ? formatIpv4(network) : formatIpv6(network, upper)}/${prefix}`;
}

/** A client address as a socket or a proxy gives it, with the bytes it stands for. */
const clientAddress = fc.oneof(
  ipv4Bytes.map((bytes) => ({ text: formatIpv4(bytes), bytes })),
  ipv4Bytes.map((bytes) => ({ text: `::ffff:${formatIpv4(bytes)}`, bytes })),
  ipv6Bytes.filter((bytes) => !isMappedIpv6(bytes)).map((bytes) => ({ text: formatIpv6(bytes), bytes })),
);

function expectContract400(error: unknown): void {
  expect(error).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.status).toBe(400);
  expect(apiError.code).toBe("invalid_request");
  expect(apiError.param).toMatch(/^allowed_ips(\.\d+)?$/);
  expect(apiError.message).not.toMatch(/ipaddr|undefined|NaN|\[object/);
}

describe("a key's allowed IPs", () => {
  it("never fails on any input but with a 400 invalid_request", () => {
    const entry = fc.oneof(
      nastyString,
      fc.string(),
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4Extended(),
      fc
        .tuple(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), fc.oneof(fc.nat(200).map(String), fc.string()))
        .map(([address, prefix]) => `${address}/${prefix}`),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 25 }), (entries) => {
        try {
          const parsed = parseAllowedIps(entries);
          expect(parsed).not.toBeNull();
          expect((parsed ?? []).length).toBeLessThanOrEqual(20);
          for (const cidr of parsed ?? []) expect(canonicalCidr(cidr)).toBe(cidr);
        } catch (error) {
          expectContract400(error);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("brings any spelling of a range to one canonical form, which stays as it is", () => {
    fc.assert(
      fc.property(range, fc.boolean(), (cidr, upper) => {
        const canonical = canonicalCidr(rangeText(cidr, upper));
        expect(canonicalCidr(canonical)).toBe(canonical);
        expect(canonical).toBe(canonicalCidr(rangeText(cidr)));
        if (cidr.network.length === 4) expect(canonical).toBe(rangeText(cidr));
        expect(canonical).toBe(canonical.toLowerCase());
      }),
      { numRuns: 2_000 },
    );
  });

  it("refuses a range with host bits set and names the network to write instead", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(ipv4Bytes, fc.integer({ min: 0, max: 31 })),
          fc.tuple(ipv6Bytes, fc.integer({ min: 0, max: 127 })).filter(([bytes]) => !isMappedIpv6(bytes)),
        ),
        ([bytes, prefix]) => {
          const network = masked(bytes, prefix);
          fc.pre(toBigInt(network) !== toBigInt(bytes));
          const write = canonicalCidr(rangeText({ network, prefix }));
          try {
            canonicalCidr(rangeText({ network: bytes, prefix }));
            expect.unreachable("host bits were accepted");
          } catch (error) {
            expectContract400(error);
            expect((error as ApiError).message).toContain(`is ${write};`);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("admits exactly the addresses a bit-by-bit reference puts in its ranges", () => {
    fc.assert(
      fc.property(
        fc.array(range, { minLength: 1, maxLength: 20 }),
        fc.array(clientAddress, { maxLength: 10 }),
        fc.array(fc.tuple(ipv6Bytes, fc.nat(127)), { minLength: 1, maxLength: 10 }),
        (ranges, randomClients, seeds) => {
          const stored = JSON.stringify(parseAllowedIps(ranges.map((r) => rangeText(r))));
          const allowed = compiledAllowedIps(stored);
          // Besides random addresses, addresses near each range: its network with random host
          // bits (inside), and the same with one bit of the network flipped (likely outside).
          const near = seeds.flatMap(([seed, pick]) => {
            const r = ranges[pick % ranges.length];
            if (!r) return [];
            const bytes = r.network.map((byte, i) => byte | ((seed[i] ?? 0) & hostMask(r, i)));
            const flipped = [...bytes];
            if (r.prefix > 0) {
              const bit = (seed[15] ?? 0) % r.prefix;
              flipped[bit >> 3] = (flipped[bit >> 3] ?? 0) ^ (0x80 >> (bit & 7));
            }
            return [bytes, flipped].flatMap((b) => spellings(b));
          });
          for (const client of [...randomClients, ...near]) {
            const expected = ranges.some((r) => inRange(client.bytes, r.network, r.prefix));
            expect(allowed.admits(client.text), `${client.text} in ${stored}`).toBe(expected);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("matches IPv4-mapped client addresses against IPv4 ranges, and never admits an unreadable address", () => {
    const allowed = AllowedIps.fromStored(
      JSON.stringify(parseAllowedIps(["203.0.113.0/24", "2001:db8::/32"])),
    );
    expect(allowed.admits("::ffff:203.0.113.5")).toBe(true);
    expect(allowed.admits("::FFFF:203.0.113.5")).toBe(true);
    expect(allowed.admits("203.0.113.255")).toBe(true);
    expect(allowed.admits("203.0.114.1")).toBe(false);
    expect(allowed.admits("2001:db8:ffff::1")).toBe(true);
    expect(allowed.admits("2001:db9::1")).toBe(false);
    for (const unreadable of ["", "unknown", "203.0.113", "::ffff:203.0.113.5.1", "203.0.113.5/24"]) {
      expect(allowed.admits(unreadable), unreadable).toBe(false);
    }
  });

  it("takes only plain spellings: no octal, hexadecimal or short IPv4, no zones, no mapped ranges", () => {
    for (const entry of [
      "010.0.0.1",
      "0x7f.0.0.1",
      "127.1",
      "2130706433",
      "fe80::1%eth0",
      "::ffff:10.0.0.0/104",
      "1.2.3.4/08",
      "1.2.3.4/",
      "/8",
    ]) {
      expect(() => canonicalCidr(entry), entry).toThrow(ApiError);
    }
    expect(() => canonicalCidr("::ffff:10.0.0.1")).toThrow("write it as IPv4 (10.0.0.1)");
    expect(canonicalCidr(" 198.51.100.7 ")).toBe("198.51.100.7/32");
    expect(canonicalCidr("::1")).toBe("::1/128");
    expect(canonicalCidr("2001:DB8:0:0:0:0:0:0/32")).toBe("2001:db8::/32");
    expect(() => canonicalCidr("203.0.113.7/24")).toThrow(
      '"203.0.113.7/24" has host bits set: the network of 203.0.113.7/24 is 203.0.113.0/24; write that, or 203.0.113.7 alone for the one address.',
    );
  });

  it("compiles one stored list once, however many requests read it", () => {
    const stored = JSON.stringify(["192.0.2.0/24"]);
    expect(compiledAllowedIps(stored)).toBe(compiledAllowedIps(stored));
  });
});
