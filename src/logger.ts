import pino, { type DestinationStream, type Logger } from "pino";

/**
 * Paths that may carry a secret. Request logs never include bodies or headers to begin with;
 * this is the second line of defence for anything logged by hand.
 */
const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "authorization",
  "password",
  "secret",
  "otp",
  "*.password",
  "*.secret",
  "*.otp",
  "*.authorization",
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, destination);
}

export type { Logger };
