import { Agent, buildConnector } from "undici";
import { RecentMap } from "../lib/recent-map.js";
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
const TARGET_CACHE_SIZE = 1_000;
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

  // Endpoints are few and posted to again and again: parse each URL once.
  const targets = new RecentMap<string, { origin: string; path: string }>(TARGET_CACHE_SIZE);
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      targets.set(url, target);
    }
    return target;
  };

  return {
    post: (url, headers, body) => postOnce(agent, () => targetOf(url), headers, body, options.timeoutMs),
    close: () => agent.close(),
  };
}

/**
 * One POST through undici's dispatch API, rather than `request`: no response stream and no
 * AbortSignal, a third of the CPU per request. Redirects are never followed (no redirect handler).
 */
function postOnce(
  agent: Agent,
  target: () => { origin: string; path: string },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<PostResult>((resolve) => {
    let statusCode: number | null = null;
    let received = 0;
    let timedOut = false;
    let abort: ((reason?: Error) => void) | undefined;
    const finish = (result: PostResult) => {
      clearTimeout(deadline);
      resolve(result);
    };
    // One deadline for the whole attempt: waiting for a connection, connecting, sending, the
    // answer and its body. A request not yet on a connection is aborted once it gets one.
    const deadline = setTimeout(() => {
      timedOut = true;
      abort?.(new Error("timed out"));
      finish({ statusCode: null, error: describeError(null, true, timeoutMs), durationMs: elapsed() });
    }, timeoutMs);
    try {
      const { origin, path } = target();
      agent.dispatch(
        {
          origin,
          path,
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": USER_AGENT, ...headers },
          body,
        },
        {
          onConnect(abortRequest) {
            abort = abortRequest;
            if (timedOut) abortRequest(new Error("timed out"));
          },
          onHeaders(status) {
            statusCode = status;
            return true;
          },
          onData(chunk) {
            received += chunk.length;
            // The answer's status is all that counts: stop reading a large body.
            if (received > RESPONSE_BODY_LIMIT) abort?.(new Error("response body too large"));
            return true;
          },
          onComplete() {
            finish({ statusCode, error: describeStatus(statusCode ?? 0), durationMs: elapsed() });
          },
          onError(error) {
            if (statusCode !== null && !timedOut && received > RESPONSE_BODY_LIMIT) {
              finish({ statusCode, error: describeStatus(statusCode), durationMs: elapsed() });
              return;
            }
            finish({
              statusCode: null,
              error: describeError(error, timedOut, timeoutMs),
              durationMs: elapsed(),
            });
          },
        },
      );
    } catch (error) {
      // A URL or header undici refuses before sending anything.
      finish({
        statusCode: null,
        error: describeError(error, false, timeoutMs),
        durationMs: elapsed(),
      });
    }
  });
}

function describeStatus(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  if (status === 410) return "HTTP 410 Gone: the endpoint was disabled";
  return `HTTP ${status}`;
}

/** A reason short enough for a log line, without anything of the request (no headers, no secret). */
function describeError(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${timeoutMs} ms`;
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
