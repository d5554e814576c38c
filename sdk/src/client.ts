import createClient, { type Client } from "openapi-fetch";
import { AutoPaginatedList, type Page } from "./pagination.js";
import type { paths } from "./schema.js";
import { type Attempt, type RequestOptions, Transport } from "./transport.js";
import type {
  Balance,
  Campaign,
  CampaignCreateParams,
  CampaignCreateResult,
  CampaignListParams,
  DakiyaEvent,
  DeletedWebhookEndpoint,
  EventListParams,
  Message,
  MessageReport,
  MessageReportParams,
  Otp,
  OtpDetails,
  OtpReport,
  OtpReportParams,
  OtpSendParams,
  OtpVerification,
  OtpVerifyParams,
  SandboxMessageList,
  SandboxMessagesParams,
  SmsBatchParams,
  SmsBatchResult,
  SmsListParams,
  SmsSendParams,
  WebhookAttemptList,
  WebhookAttemptsParams,
  WebhookCreateParams,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookReplay,
  WebhookReplayParams,
  WebhookUpdateParams,
} from "./types.js";

export const SDK_VERSION = "0.1.0";
export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";

export interface DakiyaOptions {
  /** An API key: `dk_live_…` or `dk_sandbox_…`. Its environment decides what every call touches. */
  apiKey: string;
  /** The Dakiya server's address; default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** A `fetch` to send requests with; default the global one. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * How many times a call is tried again after no answer, a 5xx, a 409 `idempotency_key_in_use`
   * or a 429 `rate_limited` (waiting out its Retry-After); default 2.
   */
  maxRetries?: number;
  /** The time limit of each attempt, in milliseconds; default 60,000. */
  timeoutMs?: number;
}

/** Page size of the lists the SDK walks for you: the largest the API allows, for the fewest requests. */
const AUTO_PAGE_SIZE = 100;

type Api = Client<paths>;

/**
 * A client for the Dakiya API.
 *
 * ```ts
 * const dakiya = new Dakiya({ apiKey: process.env.DAKIYA_API_KEY });
 * const message = await dakiya.sms.send({ to: "+919876543210", sender: "DAKIYA", template_id: "1107161234567890123", variables: { otp: "4821" } });
 * ```
 */
export class Dakiya {
  readonly sms: SmsApi;
  readonly otp: OtpApi;
  readonly events: EventsApi;
  readonly webhooks: WebhooksApi;
  readonly sandbox: SandboxApi;
  readonly reports: ReportsApi;
  readonly campaigns: CampaignsApi;
  readonly #api: Api;
  readonly #transport: Transport;

  constructor(options: DakiyaOptions) {
    if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new TypeError("new Dakiya({ apiKey }) needs an API key (dk_live_… or dk_sandbox_…).");
    }
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    const maxRetries = options.maxRetries ?? 2;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new TypeError("maxRetries must be a whole number, 0 or more.");
    }
    this.#api = createClient<paths>({
      baseUrl,
      headers: { Authorization: `Bearer ${options.apiKey}`, "User-Agent": `dakiya-sdk/${SDK_VERSION}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      redirect: "error",
    });
    this.#transport = new Transport({ baseUrl, maxRetries, timeoutMs: options.timeoutMs ?? 60_000 });
    this.sms = new SmsApi(this.#api, this.#transport);
    this.otp = new OtpApi(this.#api, this.#transport);
    this.events = new EventsApi(this.#api, this.#transport);
    this.webhooks = new WebhooksApi(this.#api, this.#transport);
    this.sandbox = new SandboxApi(this.#api, this.#transport);
    this.reports = new ReportsApi(this.#api, this.#transport);
    this.campaigns = new CampaignsApi(this.#api, this.#transport);
  }

  /** The balance of the key's environment (`GET /v2/balance`). */
  balance(options?: RequestOptions): Promise<Balance> {
    return this.#transport.call(
      ({ headers, signal }) => this.#api.GET("/v2/balance", { headers, signal }),
      options,
    );
  }
}

abstract class Resource {
  constructor(
    protected readonly api: Api,
    protected readonly transport: Transport,
  ) {}

  protected call<T>(attempt: Attempt<T>, options: RequestOptions | undefined): Promise<T> {
    return this.transport.call(attempt, options);
  }

  protected post<T>(attempt: Attempt<T>, options: RequestOptions | undefined): Promise<T> {
    return this.transport.post(attempt, options);
  }

  /**
   * A list walked page by page: `page(cursor)` is one request for a page, given the query
   * parameter that continues after an item (`{ [cursorParam]: id }`, none for the first page).
   */
  protected paged<Item extends { id: string }, Cursor extends string>(
    cursorParam: Cursor,
    start: string | undefined,
    options: RequestOptions | undefined,
    page: (cursor: Partial<Record<Cursor, string>>) => Attempt<Page<Item>>,
  ): AutoPaginatedList<Item> {
    return new AutoPaginatedList(
      (cursor) =>
        this.call(
          page(cursor === undefined ? {} : ({ [cursorParam]: cursor } as Record<Cursor, string>)),
          options,
        ),
      (item) => item.id,
      start,
    );
  }
}

export class SmsApi extends Resource {
  /** Sends a DLT-templated SMS (`POST /v2/sms/send`): checked, priced, charged and queued. */
  send(params: SmsSendParams, options?: RequestOptions): Promise<Message> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/sms/send", { body: params, headers, signal }),
      options,
    );
  }

  /** Sends up to 1,000 SMS in one request (`POST /v2/sms/batch`); each item succeeds or fails on its own. */
  batch(params: SmsBatchParams, options?: RequestOptions): Promise<SmsBatchResult> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/sms/batch", { body: params, headers, signal }),
      options,
    );
  }

  /** A message and its delivery status (`GET /v2/sms/{id}`). */
  get(id: string, options?: RequestOptions): Promise<Message> {
    return this.call(
      ({ headers, signal }) => this.api.GET("/v2/sms/{id}", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /**
   * Cancels a message that is `scheduled` or `queued` and not yet handed to a carrier
   * (`POST /v2/sms/{id}/cancel`): it ends `cancelled` and is refunded. Later, a ConflictError
   * with `code` `not_cancellable`.
   */
  cancel(id: string, options?: RequestOptions): Promise<Message> {
    return this.post(
      ({ headers, signal }) =>
        this.api.POST("/v2/sms/{id}/cancel", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /**
   * Every message that matches, newest first, fetched page by page as you iterate
   * (`GET /v2/sms`): `for await (const message of dakiya.sms.list({ status: "failed" }))`.
   * Awaited, it is the first page, `{ data, has_more }`, as the route answers.
   */
  list(params: SmsListParams = {}, options?: RequestOptions): AutoPaginatedList<Message> {
    const { starting_after: start, ...filter } = params;
    return this.paged(
      "starting_after",
      start,
      options,
      (cursor) =>
        ({ headers, signal }) =>
          this.api.GET("/v2/sms", {
            params: { query: { limit: AUTO_PAGE_SIZE, ...filter, ...cursor } },
            headers,
            signal,
          }),
    );
  }
}

export class CampaignsApi extends Resource {
  /**
   * Sends one template to up to 100,000 recipients (`POST /v2/campaigns`): each checked, priced
   * and charged now, refused ones listed in `errors`, the rest fed into the queue from `send_at`.
   */
  create(params: CampaignCreateParams, options?: RequestOptions): Promise<CampaignCreateResult> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/campaigns", { body: params, headers, signal }),
      options,
    );
  }

  /** A campaign with its counts by status, cost, refunds and progress (`GET /v2/campaigns/{id}`). */
  get(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/campaigns/{id}", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /**
   * Cancels a scheduled or sending campaign (`POST /v2/campaigns/{id}/cancel`): what has not gone
   * out ends cancelled and is refunded. Once it has ended, a ConflictError `not_cancellable`.
   */
  cancel(id: string, options?: RequestOptions): Promise<Campaign> {
    return this.post(
      ({ headers, signal }) =>
        this.api.POST("/v2/campaigns/{id}/cancel", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /** Every campaign, newest first, page by page as you iterate (`GET /v2/campaigns`); awaited, the first page. */
  list(params: CampaignListParams = {}, options?: RequestOptions): AutoPaginatedList<Campaign> {
    const { starting_after: start, ...filter } = params;
    return this.paged(
      "starting_after",
      start,
      options,
      (cursor) =>
        ({ headers, signal }) =>
          this.api.GET("/v2/campaigns", {
            params: { query: { limit: AUTO_PAGE_SIZE, ...filter, ...cursor } },
            headers,
            signal,
          }),
    );
  }
}

export class OtpApi extends Resource {
  /** Sends a one-time passcode by SMS, WhatsApp or voice (`POST /v2/otp/send`). */
  send(params: OtpSendParams, options?: RequestOptions): Promise<Otp> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/otp/send", { body: params, headers, signal }),
      options,
    );
  }

  /**
   * Checks a code (`POST /v2/otp/verify`). A wrong code is an answer, not an error:
   * `{ verified: false, reason: "incorrect_code", attempts_remaining }`.
   */
  verify(params: OtpVerifyParams, options?: RequestOptions): Promise<OtpVerification> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/otp/verify", { body: params, headers, signal }),
      options,
    );
  }

  /** An OTP and its deliveries, never its code (`GET /v2/otp/{id}`). */
  get(id: string, options?: RequestOptions): Promise<OtpDetails> {
    return this.call(
      ({ headers, signal }) => this.api.GET("/v2/otp/{id}", { params: { path: { id } }, headers, signal }),
      options,
    );
  }
}

export class EventsApi extends Resource {
  /**
   * Events after a cursor, oldest first, fetched page by page as you iterate (`GET /v2/events`).
   * Keep the last id you handled and pass it as `after` next time to catch up from there.
   * Awaited, it is the first page, `{ data, has_more }`, as the route answers.
   */
  list(params: EventListParams = {}, options?: RequestOptions): AutoPaginatedList<DakiyaEvent> {
    const { after: start, ...filter } = params;
    return this.paged(
      "after",
      start,
      options,
      (cursor) =>
        ({ headers, signal }) =>
          this.api.GET("/v2/events", {
            params: { query: { limit: AUTO_PAGE_SIZE, ...filter, ...cursor } },
            headers,
            signal,
          }),
    );
  }
}

export class WebhooksApi extends Resource {
  /** Creates an endpoint (`POST /v2/webhooks`); the answer carries its signing `secret`. */
  create(params: WebhookCreateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.post(
      ({ headers, signal }) => this.api.POST("/v2/webhooks", { body: params, headers, signal }),
      options,
    );
  }

  /** The environment's endpoints, newest first, without their secrets (`GET /v2/webhooks`): `{ data }`. */
  list(options?: RequestOptions): Promise<WebhookEndpointList> {
    return this.call(({ headers, signal }) => this.api.GET("/v2/webhooks", { headers, signal }), options);
  }

  /** An endpoint, with its secret (`GET /v2/webhooks/{id}`). */
  get(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/webhooks/{id}", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /** Changes `url`, `events`, `description` or `status` (`PATCH /v2/webhooks/{id}`). */
  update(id: string, params: WebhookUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call(
      ({ headers, signal }) =>
        this.api.PATCH("/v2/webhooks/{id}", { params: { path: { id } }, body: params, headers, signal }),
      options,
    );
  }

  /** Deletes an endpoint, its waiting deliveries and its attempt log (`DELETE /v2/webhooks/{id}`). */
  remove(id: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return this.call(
      ({ headers, signal }) =>
        this.api.DELETE("/v2/webhooks/{id}", { params: { path: { id } }, headers, signal }),
      options,
    );
  }

  /** Replaces the signing secret; for 24 h deliveries are signed under both (`POST …/rotate-secret`). */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.post(
      ({ headers, signal }) =>
        this.api.POST("/v2/webhooks/{id}/rotate-secret", {
          params: { path: { id } },
          body: {},
          headers,
          signal,
        }),
      options,
    );
  }

  /** Delivers a `webhook.test` event to this endpoint only (`POST …/test`); answers the event. */
  test(id: string, options?: RequestOptions): Promise<DakiyaEvent> {
    return this.post(
      ({ headers, signal }) =>
        this.api.POST("/v2/webhooks/{id}/test", {
          params: { path: { id } },
          body: {},
          headers,
          signal,
        }),
      options,
    );
  }

  /** The latest delivery attempts, newest first (`GET …/attempts`; `limit` 1–100, default 20): `{ data }`. */
  attempts(
    id: string,
    params?: WebhookAttemptsParams,
    options?: RequestOptions,
  ): Promise<WebhookAttemptList> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/webhooks/{id}/attempts", {
          params: { path: { id }, query: params },
          headers,
          signal,
        }),
      options,
    );
  }

  /** Delivers again every subscribed event created at or after `since` (`POST …/replay`). */
  replay(id: string, params: WebhookReplayParams, options?: RequestOptions): Promise<WebhookReplay> {
    return this.post(
      ({ headers, signal }) =>
        this.api.POST("/v2/webhooks/{id}/replay", {
          params: { path: { id } },
          body: params,
          headers,
          signal,
        }),
      options,
    );
  }
}

export class SandboxApi extends Resource {
  /** What sandbox keys sent, newest first (`GET /v2/sandbox/messages`; sandbox keys only): `{ data }`. */
  messages(params?: SandboxMessagesParams, options?: RequestOptions): Promise<SandboxMessageList> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/sandbox/messages", { params: { query: params }, headers, signal }),
      options,
    );
  }
}

export class ReportsApi extends Resource {
  /** Messages counted by day, template, sender, status or channel (`GET /v2/reports/messages`). */
  messages(params?: MessageReportParams, options?: RequestOptions): Promise<MessageReport> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/reports/messages", { params: { query: params }, headers, signal }),
      options,
    );
  }

  /** OTPs sent and verified by channel, with the median seconds to verify (`GET /v2/reports/otp`). */
  otp(params?: OtpReportParams, options?: RequestOptions): Promise<OtpReport> {
    return this.call(
      ({ headers, signal }) =>
        this.api.GET("/v2/reports/otp", { params: { query: params }, headers, signal }),
      options,
    );
  }
}
