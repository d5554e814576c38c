import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 248;
/** CSPRNG bytes are drawn in blocks: one call per id cost ~5% of the server's CPU under load. */
const POOL_SIZE = 4096;

let pool = Buffer.alloc(0);
let offset = 0;

function randomByte(): number {
  if (offset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  return pool[offset++] as number;
}

/** `length` bytes from the CSPRNG, drawn from the same pool as ids (each byte is handed out once). */
export function pooledRandomBytes(length: number): Buffer {
  if (offset + length > pool.length) {
    pool = randomBytes(Math.max(POOL_SIZE, length));
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + length));
  offset += length;
  return bytes;
}

/** `length` base62 characters from the CSPRNG, uniformly distributed. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | "acct"
  | "cmp"
  | "key"
  | "led"
  | "msg"
  | "otp"
  | "tpl"
  | "whk"
  | "evt"
  | "sbx"
  | "ses"
  | "mbr"
  // an audit log row
  | "aud"
  // a two-factor recovery code
  | "rcv"
  // a webhook delivery attempt
  | "wat";

/** 62^8 ms reach the year 8888: eight characters hold any time the server will see. */
const TIME_LENGTH = 8;
/** 16 random characters: 95 bits, so ids made in the same millisecond never meet. */
const RANDOM_LENGTH = 16;

/**
 * `<prefix>_` and 24 base62 characters: the creation time in milliseconds, then randomness. Ids
 * made one after another sort one after another, so each insert appends to its table's and its
 * indexes' B-trees instead of landing on a random page (random keys made every insert dirty a
 * page of its own). The id stays opaque to clients: nothing documents or reads its parts. The
 * time is the machine's, not ctx.clock's: it only orders inserts and means nothing to the product.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${timeBase62(Date.now())}${randomBase62(RANDOM_LENGTH)}`;
}

/** `ms` as TIME_LENGTH base62 digits, most significant first, so the text sorts as the number does. */
function timeBase62(ms: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < TIME_LENGTH; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}
