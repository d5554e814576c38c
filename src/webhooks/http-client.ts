import { Agent, buildConnector, request } from "undici";
import { type HostLookup, RefusedAddress, resolveCheckedAddress } from "./ssrf.js";

export interface PostResult {
  /** The HTTP status, or `null` when no answer came (refused, unreachable, timed out). */
  statusCode: number | null;
  /** A short reason for a failure, for the attempt log; `null` on success. */
  error: string | null;
  durationMs: number;
}

export interface WebhookHttpClient {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostResult>;
  close(): Promise<void>;
}

const RESPONSE_BODY_LIMIT = 64 * 1024;
const USER_AGENT = "Dakiya-Webhooks/1";

/**
 * Posts webhooks through an undici agent whose connector resolves the host itself, checks every
 * address (the SSRF guard) and connects to the checked one: there is no second lookup for a
 * rebinding DNS server to answer differently. TLS still verifies the certificate for, and sends
 * SNI of, the URL's host name. Redirects are never followed.
 */
export function createWebhookHttpClient(options: {
  timeoutMs: number;
  /** The address rules, read on every new connection (tests change them on a running client). */
  guard: () => { allowPrivate: boolean; lookup: HostLookup };
  connectionsPerOrigin: number;
  /** Certificate authorities to trust instead of Node's (tests with their own CA). */
  ca?: string;
}): WebhookHttpClient {
  const connectTimeout = Math.min(options.timeoutMs, 10_000);
  const connectToCheckedAddress = buildConnector({
    timeout: connectTimeout,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const agent = new Agent({
    connections: options.connectionsPerOrigin,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
    connect: (connectOptions, callback) => {
      resolveCheckedAddress(connectOptions.hostname, options.guard()).then(
        // `host` keeps the name, so the connector's SNI and certificate check use it.
        ({ address }) => connectToCheckedAddress({ ...connectOptions, hostname: address }, callback),
        (error: unknown) => callback(error as Error, null),
      );
    },
  });

  return {
    async post(url, headers, body) {
      const started = performance.now();
      const signal = AbortSignal.timeout(options.timeoutMs);
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const response = await request(url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers },
          body,
          dispatcher: agent,
          signal,
          maxRedirections: 0,
        });
        await response.body.dump({ limit: RESPONSE_BODY_LIMIT }).catch(() => {});
        const statusCode = response.statusCode;
        return { statusCode, error: describeStatus(statusCode), durationMs: elapsed() };
      } catch (error) {
        return {
          statusCode: null,
          error: describeError(error, signal, options.timeoutMs),
          durationMs: elapsed(),
        };
      }
    },
    close: () => agent.close(),
  };
}

function describeStatus(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return "HTTP 410 Gone: the endpoint was disabled";
  return `HTTP ${status}`;
}

/** A reason short enough for a log line, without anything of the request (no headers, no secret). */
function describeError(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `timed out after ${timeoutMs} ms`;
  if (error instanceof RefusedAddress) return `refused: ${error.message}`;
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return `timed out after ${timeoutMs} ms`;
    case "UND_ERR_CONNECT_TIMEOUT":
      return "connection timed out";
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "connection reset";
    case "ENOTFOUND":
    case "ENODATA":
      return "host name does not resolve";
    case "EAI_AGAIN":
      return "DNS lookup failed";
  }
  if (typeof code === "string" && code.startsWith("ERR_TLS")) return `TLS error: ${code}`;
  if (typeof code === "string" && /CERT|SSL/.test(code)) return `TLS error: ${code}`;
  return (message ?? String(error)).slice(0, 200);
}
