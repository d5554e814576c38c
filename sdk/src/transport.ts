import { DakiyaConnectionError, DakiyaError, errorFromResponse } from "./errors.js";
import { retryDelayMs, sleep } from "./retry.js";

/** Options every method takes, last. */
export interface RequestOptions {
  /** The POST's Idempotency-Key; a random UUID when left out. The same key goes with every retry. */
  idempotencyKey?: string;
  /** Aborts the call, retries included. */
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
}

/** What one attempt sends besides its path and body. */
export interface AttemptInit {
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** One attempt through openapi-fetch: its parsed answer or error body, and the response. */
export type Attempt<T> = (init: AttemptInit) => Promise<{ data?: T; error?: unknown; response: Response }>;

export interface TransportSettings {
  baseUrl: string;
  maxRetries: number;
  timeoutMs: number;
}

/** Runs a call's attempts: the Idempotency-Key, the time limit of each, typed errors and retries. */
export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  /** A POST: it carries an Idempotency-Key, so that a retry can never act twice. */
  post<T>(attempt: Attempt<T>, options: RequestOptions = {}): Promise<T> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    return this.run(attempt, { "Idempotency-Key": key }, options);
  }

  /** A GET, PATCH or DELETE: repeating it changes nothing more than doing it once. */
  call<T>(attempt: Attempt<T>, options: RequestOptions = {}): Promise<T> {
    return this.run(attempt, {}, options);
  }

  private async run<T>(
    attempt: Attempt<T>,
    headers: Record<string, string>,
    options: RequestOptions,
  ): Promise<T> {
    const maxRetries = options.maxRetries ?? this.settings.maxRetries;
    for (let retry = 0; ; retry++) {
      const error = await this.once(attempt, headers, options.signal);
      if (!(error instanceof DakiyaError)) return error.data;
      const delay = retry < maxRetries ? retryDelayMs(error, retry) : undefined;
      if (delay === undefined) throw error;
      await sleep(delay, options.signal);
    }
  }

  /** One attempt: its data, or the error it ended in (thrown only when the caller aborted). */
  private async once<T>(
    attempt: Attempt<T>,
    headers: Record<string, string>,
    callerSignal: AbortSignal | undefined,
  ): Promise<{ data: T } | DakiyaError> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let outcome: Awaited<ReturnType<Attempt<T>>>;
    try {
      outcome = await attempt({ headers, signal });
    } catch (cause) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      return this.failure(cause, timeout.aborted);
    }
    if (outcome.response.ok) return { data: outcome.data as T };
    return errorFromResponse(outcome.response, outcome.error);
  }

  private failure(cause: unknown, timedOut: boolean): DakiyaError {
    if (cause instanceof SyntaxError) {
      return new DakiyaError({
        status: 0,
        code: "unexpected_response",
        message: `The answer was not JSON: ${cause.message}`,
        cause,
      });
    }
    const reason = cause instanceof Error ? (cause.cause instanceof Error ? cause.cause : cause).message : "";
    return new DakiyaConnectionError({
      status: 0,
      code: timedOut ? "timeout" : "connection_error",
      message: timedOut
        ? `No answer from ${this.settings.baseUrl} within ${this.settings.timeoutMs} ms.`
        : `Could not reach ${this.settings.baseUrl}${reason ? `: ${reason}` : ""}.`,
      cause,
    });
  }
}
