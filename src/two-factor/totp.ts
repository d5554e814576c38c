/**
 * Time-based one-time passwords (RFC 6238) through otplib, in the shape every authenticator app
 * reads: SHA-1, 6 digits, 30-second steps, a Base32 secret of 20 random bytes. The time is the
 * server clock's (`ctx.clock`), never the library's own, so tests can stand it still.
 */
import { generateSecret, generateURI, verify } from "otplib";
import type { Clock } from "../lib/clock.js";

const PERIOD_SECONDS = 30;
const DIGITS = 6;
const ALGORITHM = "sha1";
/** One step either side: a phone's clock a little off, or a code typed as it turned over. */
const TOLERANCE_SECONDS = PERIOD_SECONDS;
const ISSUER = "Dakiya";
const CODE_PATTERN = /^\d{6}$/;

export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://totp/…` address an authenticator app scans (or is given by hand). */
export function otpauthUrl(secret: string, email: string): string {
  return generateURI({
    issuer: ISSUER,
    label: email,
    secret,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SECONDS,
  });
}

/** A code typed by a person, without the spaces apps show in the middle; `undefined` if not 6 digits. */
export function normaliseTotpCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, "");
  return CODE_PATTERN.test(code) ? code : undefined;
}

/**
 * The time step a code matched at the clock's time (±1 step), if it matched one after
 * `afterTimeStep`: the caller stores it, so the same code is refused the next time.
 */
export async function matchTotp(
  clock: Clock,
  secret: string,
  code: string,
  afterTimeStep: number | null,
): Promise<number | undefined> {
  const token = normaliseTotpCode(code);
  if (token === undefined) return undefined;
  const epoch = Math.floor(clock.now().getTime() / 1000);
  const latestStep = Math.floor((epoch + TOLERANCE_SECONDS) / PERIOD_SECONDS);
  // otplib refuses a bound past the window (a clock set back); every step in it is then spent anyway.
  const after = afterTimeStep === null ? undefined : Math.min(afterTimeStep, latestStep);
  const result = await verify({
    secret,
    token,
    epoch,
    epochTolerance: TOLERANCE_SECONDS,
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SECONDS,
    ...(after === undefined ? {} : { afterTimeStep: after }),
  });
  // The functional API answers the HOTP or the TOTP result; a TOTP match carries its time step.
  return result.valid && "timeStep" in result ? result.timeStep : undefined;
}
