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

/** How deep a chain of `cause`s is followed. */
const MAX_CAUSES = 5;

/**
 * What a log line may say about a request, a reply and an error. Fastify's own serializers log
 * the full URL (phone numbers, `?api_key=`), and pino's error serializer copies every property
 * of an error: a parser error's `rawPacket` is the raw request with its keys, cookies and
 * passwords, a PostgreSQL error's `detail` quotes the row's values.
 */
const serializers = {
  req: (request: { method?: string; routeOptions?: { url?: string } }) => ({
    method: request.method,
    route: request.routeOptions?.url ?? null,
  }),
  res: (reply: { statusCode?: number }) => ({ status: reply.statusCode }),
  err: (error: unknown) => serializeError(error, 0),
};

function serializeError(error: unknown, depth: number): unknown {
  if (error === null || typeof error !== "object") return error;
  const { name, message, code, stack, cause } = error as Record<string, unknown>;
  return {
    type: typeof name === "string" ? name : "object",
    ...(typeof message === "string" ? { message } : {}),
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    ...(typeof stack === "string" ? { stack } : {}),
    ...(cause === undefined || depth >= MAX_CAUSES ? {} : { cause: serializeError(cause, depth + 1) }),
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, serializers, redact: { paths: REDACT_PATHS, censor: "[redacted]" } }, destination);
}

export type { Logger };
