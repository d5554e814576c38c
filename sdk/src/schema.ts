// Generated from the server's OpenAPI document by `npm run generate:sdk`: do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database answers, the server is not shutting down, and an SMSC route is bound if this process sends live SMS */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Balance of the key's environment */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sms/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a DLT-templated SMS
         * @description Checks the destination, sender, template and variables, renders and prices the text, debits the balance and queues the message. Accepts Idempotency-Key.
         */
        post: operations["sendSms"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sms/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send up to 1,000 DLT-templated SMS in one request
         * @description Each item is checked, priced, charged and queued as POST /v2/sms/send would, on its own: a refused item does not stop the others. Answers each item's message or error in request order. The body may be up to 1 MiB. An Idempotency-Key covers the whole batch.
         */
        post: operations["sendSmsBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sms/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message and its delivery status */
        get: operations["getSms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sms/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a scheduled or queued message, refunded
         * @description While a message is `scheduled`, or `queued` and not yet taken for delivery, it ends `cancelled` and its cost is refunded (event `sms.cancelled`). Once a delivery has taken it, or it has ended, the answer is 409 `not_cancellable`. The body may be empty.
         */
        post: operations["cancelSms"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Messages, newest first
         * @description This environment's messages (every channel), filtered and paged: pass the last id of a page as `starting_after` for the next one.
         */
        get: operations["listSms"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Campaigns, newest first */
        get: operations["listCampaigns"];
        put?: never;
        /**
         * Send one template to up to 100,000 recipients
         * @description Each recipient is checked, priced and charged as a batch item, at bulk priority; a refused recipient is listed in `errors` and does not stop the others. The campaign starts at `send_at` (or now) and is fed into the queue, paced by `messages_per_minute` if given. The body may be up to 32 MiB. An Idempotency-Key covers the whole campaign.
         */
        post: operations["createCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/campaigns/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A campaign: counts by status, cost, refunds, progress */
        get: operations["getCampaign"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/campaigns/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a campaign, refunding what has not gone out
         * @description Recipients not yet in the queue and messages no delivery has taken end cancelled (each message with `sms.cancelled`), and their cost comes back as one `campaign_refund`. Messages already handed to a carrier go on. A completed or cancelled campaign answers 409 `not_cancellable`. The body may be empty.
         */
        post: operations["cancelCampaign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/otp/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a one-time passcode by SMS, WhatsApp or voice
         * @description One pending OTP per number: inside the resend cooldown a send is refused (429 resend_cooldown); after it, a send without `code` delivers the same code again (on any channel) and keeps its expiry; a send with `code` replaces it. With `fallback`, the same code goes out once on the fallback channel if the first has not reported delivery within `fallback_after_seconds`. Accepts Idempotency-Key.
         */
        post: operations["sendOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/otp/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a code
         * @description Always 200 for a well-formed request: `verified` says whether the code was right and `reason` why not. Each wrong code uses an attempt; at the limit the OTP is locked.
         */
        post: operations["verifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/otp/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An OTP and its deliveries (never its code) */
        get: operations["getOtp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Events, oldest first after a cursor
         * @description Every status change of this environment's messages and OTPs, kept 30 days. Page with `after` set to the last event id read: each event is listed exactly once, even while new ones are being written.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook endpoints (without their secrets) */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Events of this key's environment are posted to the URL, signed per Standard Webhooks.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook endpoint, with its secret */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /** Delete a webhook endpoint, its waiting deliveries and its attempt log */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description Disabling gives up the deliveries waiting for it; replay sends them again once enabled.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v2/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret
         * @description For 24 hours deliveries carry signatures under both the new and the replaced secret.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a webhook.test event to this endpoint only
         * @description A disabled endpoint is refused (400): enable it first.
         */
        post: operations["sendWebhookTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent delivery attempts, newest first (kept 30 days) */
        get: operations["listWebhookAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/webhooks/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver again every event since a time
         * @description Every event of this environment created at or after `since` that the endpoint subscribes to is delivered again, with its original `webhook-id`.
         */
        post: operations["replayWebhookEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/reports/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Messages counted by day, template, sender, status or channel
         * @description This environment's messages created in the period, grouped by `group_by` (default `day`: every day, oldest first, zeros included; other groupings most messages first). Statuses are as they stand now; `cost` is what was charged net of refunds. Days are India time (UTC+05:30), `from` and `to` both included; by default the last 30 days, today included. At most 366 days.
         */
        get: operations["reportMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/reports/otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OTP conversion by channel
         * @description This environment's OTPs created in the period, by the channel each was first sent on (a fallback counts under the first): sent, verified, their ratio and the median seconds to verify. Days are India time (UTC+05:30), `from` and `to` both included; by default the last 30 days, today included. At most 366 days.
         */
        get: operations["reportOtp"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/sandbox/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The sandbox inbox: what sandbox keys sent, newest first
         * @description Every delivery made with a sandbox key, with its text (OTP codes included). Sandbox keys only: with a live key it is 404.
         */
        get: operations["listSandboxMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                        /** @description Each live carrier's connection, e.g. smpp: {bound, window, in_flight} */
                        carriers: {
                            [key: string]: {
                                [key: string]: unknown;
                            };
                        };
                        /** @description Each SMSC route of this process's worker (docs/routes.md); empty without one */
                        routes: {
                            name: string;
                            bound: boolean;
                            /** @description Outstanding submits allowed at once */
                            window: number;
                            in_flight: number;
                            /** @enum {string} */
                            circuit: "closed" | "open" | "half_open";
                        }[];
                        /** @description SMS traffic the worker's routes leave without a route (docs/routes.md); null without routes */
                        unrouted: {
                            /** @description Traffic categories no route carries: their messages fail with no_route */
                            categories: string[];
                            /** @description Every route lists accounts: an account in none of the lists has no route */
                            accounts_listed_only: boolean;
                            /** @description Every route lists senders: a header in none of the lists has no route */
                            senders_listed_only: boolean;
                        } | null;
                    };
                };
            };
            /** @description - `unavailable`: the server is shutting down, or its database cannot be reached */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unavailable";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance of the API key's environment */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /**
                         * @description INR with exactly 4 decimals
                         * @example 99.7500
                         */
                        balance: string;
                        /** @enum {string} */
                        currency: "INR";
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    sendSms: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description E.164, an Indian mobile: +91 and 10 digits
                     * @example +919876543210
                     */
                    to: string;
                    /**
                     * @description A registered DLT header
                     * @example DAKIYA
                     */
                    sender: string;
                    /**
                     * @description A registered DLT template id
                     * @example 1107161234567890123
                     */
                    template_id: string;
                    /** @description A value for every placeholder of the template, at most 30 characters each */
                    variables?: {
                        [key: string]: string;
                    };
                    /** @description Your own id, echoed back */
                    reference?: string;
                    /**
                     * @description Step down to bulk; never above what the send gets anyway (transactional for a single send on a transactional or service-implicit template, bulk otherwise)
                     * @enum {string}
                     */
                    priority?: "otp" | "transactional" | "bulk";
                    /** @description Unsent after this long (from send_at, else acceptance), it fails as expired and is refunded; default 86400 */
                    validity_seconds?: number;
                    /**
                     * Format: date-time
                     * @description RFC 3339, up to 30 days ahead: accepted and charged now, status scheduled until then
                     * @example 2026-12-01T09:30:00+05:30
                     */
                    send_at?: string;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "voice";
                        /** @example +919876543210 */
                        to: string;
                        /** @example DAKIYA */
                        sender: string | null;
                        /** @example 1107161234567890123 */
                        template_id: string | null;
                        /** @example order-77 */
                        reference: string | null;
                        /** @example Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it. */
                        text: string;
                        /** @enum {string} */
                        encoding: "gsm7" | "ucs2";
                        segments: number;
                        /** @example 0.2500 */
                        cost: string;
                        /** @enum {string} */
                        currency: "INR";
                        /** @description Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md) */
                        error_code: string | null;
                        error_message: string | null;
                        /**
                         * @description The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:
                         * @example receipt err:623 stat:REJECTD
                         */
                        carrier_error: string | null;
                        carrier_message_ids: string[];
                        /** @description The SMSC route that took a live SMS (docs/routes.md); null otherwise */
                        route: string | null;
                        /**
                         * @description Its lane in the queue: otp goes first, then transactional, then bulk
                         * @enum {string}
                         */
                        priority: "otp" | "transactional" | "bulk";
                        /** @description Unsent by then, it fails as expired and is refunded; null for messages of before */
                        expires_at: string | null;
                        /** @description When it joins the queue: the send's send_at, or the promotional window's opening */
                        send_at: string | null;
                        /** @example 2026-11-22T10:00:00.000Z */
                        created_at: string;
                        submitted_at: string | null;
                        delivered_at: string | null;
                        undelivered_at: string | null;
                        failed_at: string | null;
                        cancelled_at: string | null;
                        /** @description The campaign it was sent for (cmp_…); null for other messages */
                        campaign_id: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `insufficient_balance`: the balance of the key's environment cannot pay for it; nothing is sent */
            402: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_balance";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body
             *     - `unknown_template`: `template_id` is not registered for the account
             *     - `unknown_sender`: `sender` is not registered for the account
             *     - `template_sender_mismatch`: the template may not go out under this sender
             *     - `missing_variable`: a placeholder of the template has no value in `variables`
             *     - `unknown_variable`: `variables` has a name the template does not use
             *     - `variable_too_long`: a value is over the DLT length limit (30 characters unless the server sets another)
             *     - `invalid_variable`: a value does not fit its typed DLT slot (numeric, url, email, …)
             *     - `message_too_long`: the text is over 10 segments
             *     - `unsupported_destination`: a valid number of a country other than India
             *     - `channel_not_configured`: the channel needs set-up first (an SMSC in live; the OTP template and sender for SMS OTPs; a 1600-series caller ID for a BFSI account's voice OTPs)
             *     - `template_inactive`: the template is registered but inactive
             *     - `cta_not_whitelisted`: a `url`/`urlott` value does not start with one of the account's whitelisted URL prefixes, or a `cbn` value is not one of its whitelisted numbers; nothing is charged
             */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused" | "unknown_template" | "unknown_sender" | "template_sender_mismatch" | "missing_variable" | "unknown_variable" | "variable_too_long" | "invalid_variable" | "message_too_long" | "unsupported_destination" | "channel_not_configured" | "template_inactive" | "cta_not_whitelisted";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    sendSmsBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 1,000 sends, each as the body of POST /v2/sms/send */
                    messages: {
                        /**
                         * @description E.164, an Indian mobile: +91 and 10 digits
                         * @example +919876543210
                         */
                        to: string;
                        /**
                         * @description A registered DLT header
                         * @example DAKIYA
                         */
                        sender: string;
                        /**
                         * @description A registered DLT template id
                         * @example 1107161234567890123
                         */
                        template_id: string;
                        /** @description A value for every placeholder of the template, at most 30 characters each */
                        variables?: {
                            [key: string]: string;
                        };
                        /** @description Your own id, echoed back */
                        reference?: string;
                        /**
                         * @description Step down to bulk; never above what the send gets anyway (transactional for a single send on a transactional or service-implicit template, bulk otherwise)
                         * @enum {string}
                         */
                        priority?: "otp" | "transactional" | "bulk";
                        /** @description Unsent after this long (from send_at, else acceptance), it fails as expired and is refunded; default 86400 */
                        validity_seconds?: number;
                        /**
                         * Format: date-time
                         * @description RFC 3339, up to 30 days ahead: accepted and charged now, status scheduled until then
                         * @example 2026-12-01T09:30:00+05:30
                         */
                        send_at?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description One entry per item, in request order: the queued message, or why the item was refused */
                        data: ({
                            /** @example msg_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                            id: string;
                            /** @enum {string} */
                            status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                            /** @enum {string} */
                            environment: "live" | "sandbox";
                            /** @enum {string} */
                            channel: "sms" | "whatsapp" | "voice";
                            /** @example +919876543210 */
                            to: string;
                            /** @example DAKIYA */
                            sender: string | null;
                            /** @example 1107161234567890123 */
                            template_id: string | null;
                            /** @example order-77 */
                            reference: string | null;
                            /** @example Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it. */
                            text: string;
                            /** @enum {string} */
                            encoding: "gsm7" | "ucs2";
                            segments: number;
                            /** @example 0.2500 */
                            cost: string;
                            /** @enum {string} */
                            currency: "INR";
                            /** @description Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md) */
                            error_code: string | null;
                            error_message: string | null;
                            /**
                             * @description The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:
                             * @example receipt err:623 stat:REJECTD
                             */
                            carrier_error: string | null;
                            carrier_message_ids: string[];
                            /** @description The SMSC route that took a live SMS (docs/routes.md); null otherwise */
                            route: string | null;
                            /**
                             * @description Its lane in the queue: otp goes first, then transactional, then bulk
                             * @enum {string}
                             */
                            priority: "otp" | "transactional" | "bulk";
                            /** @description Unsent by then, it fails as expired and is refunded; null for messages of before */
                            expires_at: string | null;
                            /** @description When it joins the queue: the send's send_at, or the promotional window's opening */
                            send_at: string | null;
                            /** @example 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            submitted_at: string | null;
                            delivered_at: string | null;
                            undelivered_at: string | null;
                            failed_at: string | null;
                            cancelled_at: string | null;
                            /** @description The campaign it was sent for (cmp_…); null for other messages */
                            campaign_id: string | null;
                        } | {
                            error: {
                                /**
                                 * @example insufficient_balance
                                 * @enum {string}
                                 */
                                code: "invalid_request" | "insufficient_balance" | "unknown_template" | "unknown_sender" | "template_sender_mismatch" | "missing_variable" | "unknown_variable" | "variable_too_long" | "invalid_variable" | "message_too_long" | "unsupported_destination" | "channel_not_configured" | "template_inactive" | "cta_not_whitelisted" | "rate_limited";
                                message: string;
                                /** @description The item's field at fault, e.g. to or variables.otp */
                                param?: string;
                                /** @description Seconds, for rate_limited */
                                retry_after?: number;
                            };
                        })[];
                        accepted: number;
                        rejected: number;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    getSms: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The message id (msg_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "voice";
                        /** @example +919876543210 */
                        to: string;
                        /** @example DAKIYA */
                        sender: string | null;
                        /** @example 1107161234567890123 */
                        template_id: string | null;
                        /** @example order-77 */
                        reference: string | null;
                        /** @example Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it. */
                        text: string;
                        /** @enum {string} */
                        encoding: "gsm7" | "ucs2";
                        segments: number;
                        /** @example 0.2500 */
                        cost: string;
                        /** @enum {string} */
                        currency: "INR";
                        /** @description Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md) */
                        error_code: string | null;
                        error_message: string | null;
                        /**
                         * @description The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:
                         * @example receipt err:623 stat:REJECTD
                         */
                        carrier_error: string | null;
                        carrier_message_ids: string[];
                        /** @description The SMSC route that took a live SMS (docs/routes.md); null otherwise */
                        route: string | null;
                        /**
                         * @description Its lane in the queue: otp goes first, then transactional, then bulk
                         * @enum {string}
                         */
                        priority: "otp" | "transactional" | "bulk";
                        /** @description Unsent by then, it fails as expired and is refunded; null for messages of before */
                        expires_at: string | null;
                        /** @description When it joins the queue: the send's send_at, or the promotional window's opening */
                        send_at: string | null;
                        /** @example 2026-11-22T10:00:00.000Z */
                        created_at: string;
                        submitted_at: string | null;
                        delivered_at: string | null;
                        undelivered_at: string | null;
                        failed_at: string | null;
                        cancelled_at: string | null;
                        /** @description The campaign it was sent for (cmp_…); null for other messages */
                        campaign_id: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    cancelSms: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The message id (msg_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example msg_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "voice";
                        /** @example +919876543210 */
                        to: string;
                        /** @example DAKIYA */
                        sender: string | null;
                        /** @example 1107161234567890123 */
                        template_id: string | null;
                        /** @example order-77 */
                        reference: string | null;
                        /** @example Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it. */
                        text: string;
                        /** @enum {string} */
                        encoding: "gsm7" | "ucs2";
                        segments: number;
                        /** @example 0.2500 */
                        cost: string;
                        /** @enum {string} */
                        currency: "INR";
                        /** @description Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md) */
                        error_code: string | null;
                        error_message: string | null;
                        /**
                         * @description The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:
                         * @example receipt err:623 stat:REJECTD
                         */
                        carrier_error: string | null;
                        carrier_message_ids: string[];
                        /** @description The SMSC route that took a live SMS (docs/routes.md); null otherwise */
                        route: string | null;
                        /**
                         * @description Its lane in the queue: otp goes first, then transactional, then bulk
                         * @enum {string}
                         */
                        priority: "otp" | "transactional" | "bulk";
                        /** @description Unsent by then, it fails as expired and is refunded; null for messages of before */
                        expires_at: string | null;
                        /** @description When it joins the queue: the send's send_at, or the promotional window's opening */
                        send_at: string | null;
                        /** @example 2026-11-22T10:00:00.000Z */
                        created_at: string;
                        submitted_at: string | null;
                        delivered_at: string | null;
                        undelivered_at: string | null;
                        failed_at: string | null;
                        cancelled_at: string | null;
                        /** @description The campaign it was sent for (cmp_…); null for other messages */
                        campaign_id: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `not_cancellable`
             *     - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed
             */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_cancellable" | "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listSms: {
        parameters: {
            query?: {
                status?: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                /**
                 * @description E.164
                 * @example +919876543210
                 */
                to?: string;
                reference?: string;
                /**
                 * @description Created at or after this time
                 * @example 2026-11-22T10:00:00Z
                 */
                created_after?: string;
                /**
                 * @description Created before this time
                 * @example 2026-11-22T10:00:00Z
                 */
                created_before?: string;
                /** @description The last message id of the previous page (msg_…) */
                starting_after?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example msg_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                            id: string;
                            /** @enum {string} */
                            status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                            /** @enum {string} */
                            environment: "live" | "sandbox";
                            /** @enum {string} */
                            channel: "sms" | "whatsapp" | "voice";
                            /** @example +919876543210 */
                            to: string;
                            /** @example DAKIYA */
                            sender: string | null;
                            /** @example 1107161234567890123 */
                            template_id: string | null;
                            /** @example order-77 */
                            reference: string | null;
                            /** @example Your Dakiya login code is 482913. Valid for 10 minutes. Do not share it. */
                            text: string;
                            /** @enum {string} */
                            encoding: "gsm7" | "ucs2";
                            segments: number;
                            /** @example 0.2500 */
                            cost: string;
                            /** @enum {string} */
                            currency: "INR";
                            /** @description Why it failed or was undelivered, e.g. invalid_number, dnd_blocked, an operator's DLT rejection such as dlt_template_mismatch (docs/dlt-compliance.md) */
                            error_code: string | null;
                            error_message: string | null;
                            /**
                             * @description The carrier's own code for a refusal or non-delivery, for support: the submit_sm_resp status or the receipt's err: and stat:
                             * @example receipt err:623 stat:REJECTD
                             */
                            carrier_error: string | null;
                            carrier_message_ids: string[];
                            /** @description The SMSC route that took a live SMS (docs/routes.md); null otherwise */
                            route: string | null;
                            /**
                             * @description Its lane in the queue: otp goes first, then transactional, then bulk
                             * @enum {string}
                             */
                            priority: "otp" | "transactional" | "bulk";
                            /** @description Unsent by then, it fails as expired and is refunded; null for messages of before */
                            expires_at: string | null;
                            /** @description When it joins the queue: the send's send_at, or the promotional window's opening */
                            send_at: string | null;
                            /** @example 2026-11-22T10:00:00.000Z */
                            created_at: string;
                            submitted_at: string | null;
                            delivered_at: string | null;
                            undelivered_at: string | null;
                            failed_at: string | null;
                            cancelled_at: string | null;
                            /** @description The campaign it was sent for (cmp_…); null for other messages */
                            campaign_id: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: {
                status?: "scheduled" | "sending" | "completed" | "cancelled";
                /** @description The last campaign id of the previous page (cmp_…) */
                starting_after?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example cmp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                            id: string;
                            name: string;
                            /**
                             * @description scheduled until send_at, sending while recipients wait or messages are queued, then completed or cancelled
                             * @enum {string}
                             */
                            status: "scheduled" | "sending" | "completed" | "cancelled";
                            /** @enum {string} */
                            environment: "live" | "sandbox";
                            template_id: string;
                            sender: string;
                            send_at: string | null;
                            messages_per_minute: number | null;
                            /** @description Rows the request had */
                            recipients: number;
                            /** @description Recipients checked, charged and sent (or to be sent) */
                            accepted: number;
                            /** @description Rows refused, each with its error in the create answer */
                            rejected: number;
                            /** @description Accepted recipients by where they are: pending (not yet in the queue), or their message's status */
                            counts: {
                                pending: number;
                                scheduled: number;
                                queued: number;
                                submitted: number;
                                delivered: number;
                                undelivered: number;
                                failed: number;
                                cancelled: number;
                            };
                            /** @description Share handed to a carrier or ended */
                            progress: number;
                            /** @example 250.0000 */
                            cost: string;
                            /** @example 0.0000 */
                            refunded: string;
                            /** @enum {string} */
                            currency: "INR";
                            created_at: string;
                            started_at: string | null;
                            completed_at: string | null;
                            cancelled_at: string | null;
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    createCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example Diwali offers */
                    name: string;
                    /** @example 1107161234567890123 */
                    template_id: string;
                    /** @example DAKIYA */
                    sender: string;
                    /**
                     * @description RFC 3339, up to 30 days ahead: the campaign starts then
                     * @example 2026-12-01T10:00:00+05:30
                     */
                    send_at?: string;
                    /** @description Paces the campaign, on top of the routes' own pacing */
                    messages_per_minute?: number;
                    /** @description 1 to 100,000 recipients, each sent the template once */
                    recipients: {
                        /**
                         * @description E.164, an Indian mobile
                         * @example +919876543210
                         */
                        to: string;
                        /** @description A value for every placeholder of the template */
                        variables?: {
                            [key: string]: string;
                        };
                        /** @description Your own id, echoed on the message */
                        reference?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example cmp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        name: string;
                        /**
                         * @description scheduled until send_at, sending while recipients wait or messages are queued, then completed or cancelled
                         * @enum {string}
                         */
                        status: "scheduled" | "sending" | "completed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        template_id: string;
                        sender: string;
                        send_at: string | null;
                        messages_per_minute: number | null;
                        /** @description Rows the request had */
                        recipients: number;
                        /** @description Recipients checked, charged and sent (or to be sent) */
                        accepted: number;
                        /** @description Rows refused, each with its error in the create answer */
                        rejected: number;
                        /** @description Accepted recipients by where they are: pending (not yet in the queue), or their message's status */
                        counts: {
                            pending: number;
                            scheduled: number;
                            queued: number;
                            submitted: number;
                            delivered: number;
                            undelivered: number;
                            failed: number;
                            cancelled: number;
                        };
                        /** @description Share handed to a carrier or ended */
                        progress: number;
                        /** @example 250.0000 */
                        cost: string;
                        /** @example 0.0000 */
                        refunded: string;
                        /** @enum {string} */
                        currency: "INR";
                        created_at: string;
                        started_at: string | null;
                        completed_at: string | null;
                        cancelled_at: string | null;
                        /** @description Each refused recipient, in request order */
                        errors: {
                            /** @description The recipient's place in the request, from 0 */
                            index: number;
                            to: string;
                            error: {
                                /**
                                 * @example insufficient_balance
                                 * @enum {string}
                                 */
                                code: "invalid_request" | "insufficient_balance" | "unknown_template" | "unknown_sender" | "template_sender_mismatch" | "missing_variable" | "unknown_variable" | "variable_too_long" | "invalid_variable" | "message_too_long" | "unsupported_destination" | "channel_not_configured" | "template_inactive" | "cta_not_whitelisted" | "rate_limited";
                                message: string;
                                /** @description The item's field at fault, e.g. to or variables.otp */
                                param?: string;
                                /** @description Seconds, for rate_limited */
                                retry_after?: number;
                            };
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body
             *     - `unknown_template`: `template_id` is not registered for the account
             *     - `unknown_sender`: `sender` is not registered for the account
             *     - `template_sender_mismatch`: the template may not go out under this sender
             *     - `missing_variable`: a placeholder of the template has no value in `variables`
             *     - `unknown_variable`: `variables` has a name the template does not use
             *     - `variable_too_long`: a value is over the DLT length limit (30 characters unless the server sets another)
             *     - `invalid_variable`: a value does not fit its typed DLT slot (numeric, url, email, …)
             *     - `message_too_long`: the text is over 10 segments
             *     - `unsupported_destination`: a valid number of a country other than India
             *     - `channel_not_configured`: the channel needs set-up first (an SMSC in live; the OTP template and sender for SMS OTPs; a 1600-series caller ID for a BFSI account's voice OTPs)
             *     - `template_inactive`: the template is registered but inactive
             *     - `cta_not_whitelisted`: a `url`/`urlott` value does not start with one of the account's whitelisted URL prefixes, or a `cbn` value is not one of its whitelisted numbers; nothing is charged
             */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused" | "unknown_template" | "unknown_sender" | "template_sender_mismatch" | "missing_variable" | "unknown_variable" | "variable_too_long" | "invalid_variable" | "message_too_long" | "unsupported_destination" | "channel_not_configured" | "template_inactive" | "cta_not_whitelisted";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    getCampaign: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The campaign id (cmp_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example cmp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        name: string;
                        /**
                         * @description scheduled until send_at, sending while recipients wait or messages are queued, then completed or cancelled
                         * @enum {string}
                         */
                        status: "scheduled" | "sending" | "completed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        template_id: string;
                        sender: string;
                        send_at: string | null;
                        messages_per_minute: number | null;
                        /** @description Rows the request had */
                        recipients: number;
                        /** @description Recipients checked, charged and sent (or to be sent) */
                        accepted: number;
                        /** @description Rows refused, each with its error in the create answer */
                        rejected: number;
                        /** @description Accepted recipients by where they are: pending (not yet in the queue), or their message's status */
                        counts: {
                            pending: number;
                            scheduled: number;
                            queued: number;
                            submitted: number;
                            delivered: number;
                            undelivered: number;
                            failed: number;
                            cancelled: number;
                        };
                        /** @description Share handed to a carrier or ended */
                        progress: number;
                        /** @example 250.0000 */
                        cost: string;
                        /** @example 0.0000 */
                        refunded: string;
                        /** @enum {string} */
                        currency: "INR";
                        created_at: string;
                        started_at: string | null;
                        completed_at: string | null;
                        cancelled_at: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    cancelCampaign: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The campaign id (cmp_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example cmp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        name: string;
                        /**
                         * @description scheduled until send_at, sending while recipients wait or messages are queued, then completed or cancelled
                         * @enum {string}
                         */
                        status: "scheduled" | "sending" | "completed" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        template_id: string;
                        sender: string;
                        send_at: string | null;
                        messages_per_minute: number | null;
                        /** @description Rows the request had */
                        recipients: number;
                        /** @description Recipients checked, charged and sent (or to be sent) */
                        accepted: number;
                        /** @description Rows refused, each with its error in the create answer */
                        rejected: number;
                        /** @description Accepted recipients by where they are: pending (not yet in the queue), or their message's status */
                        counts: {
                            pending: number;
                            scheduled: number;
                            queued: number;
                            submitted: number;
                            delivered: number;
                            undelivered: number;
                            failed: number;
                            cancelled: number;
                        };
                        /** @description Share handed to a carrier or ended */
                        progress: number;
                        /** @example 250.0000 */
                        cost: string;
                        /** @example 0.0000 */
                        refunded: string;
                        /** @enum {string} */
                        currency: "INR";
                        created_at: string;
                        started_at: string | null;
                        completed_at: string | null;
                        cancelled_at: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `not_cancellable`
             *     - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed
             */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_cancellable" | "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    sendOtp: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description E.164, an Indian mobile
                     * @example +919876543210
                     */
                    to: string;
                    /**
                     * @description sms (default), whatsapp or voice
                     * @enum {string}
                     */
                    channel?: "sms" | "whatsapp" | "voice";
                    /**
                     * @description Another channel for the same code if the first has not reported delivery in time
                     * @enum {string}
                     */
                    fallback?: "sms" | "whatsapp" | "voice";
                    /** @description Your own code, 4 to 10 digits; else one is drawn */
                    code?: string;
                    /** @description Digits of a drawn code (default 6) */
                    length?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example otp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /**
                         * @description pending until approved, expired, locked (attempts used up) or cancelled (a new code replaced it)
                         * @enum {string}
                         */
                        status: "pending" | "approved" | "expired" | "locked" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /** @example +919876543210 */
                        to: string;
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "voice";
                        /** @example 2026-11-22T10:10:00.000Z */
                        expires_at: string;
                        /**
                         * @description From then on a send to the number delivers the code again
                         * @example 2026-11-22T10:00:30.000Z
                         */
                        resend_available_at: string;
                        attempts_remaining: number;
                        sends: number;
                        /** @description The message that carries the code; null for a test number with a fixed code */
                        message_id: string | null;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `insufficient_balance`: the balance of the key's environment cannot pay for it; nothing is sent */
            402: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "insufficient_balance";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `unsupported_destination`: a valid number of a country other than India
             *     - `channel_not_configured`: the channel needs set-up first (an SMSC in live; the OTP template and sender for SMS OTPs; a 1600-series caller ID for a BFSI account's voice OTPs)
             *     - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body
             */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_destination" | "channel_not_configured" | "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `resend_cooldown`: an OTP was sent to this number less than the cooldown ago; `Retry-After` says when to resend
             *     - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again
             */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "resend_cooldown" | "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    verifyOtp: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description E.164, an Indian mobile
                     * @example +919876543210
                     */
                    to: string;
                    /** @description 4 to 10 digits */
                    code: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        verified: boolean;
                        /**
                         * @description approved (verified: true; the OTP is used up), incorrect_code (one attempt used), expired, max_attempts_reached (locked), already_verified, not_found (no OTP sent to this number in this environment)
                         * @enum {string}
                         */
                        reason: "approved" | "incorrect_code" | "expired" | "max_attempts_reached" | "already_verified" | "not_found";
                        attempts_remaining: number;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `unsupported_destination`: a valid number of a country other than India
             *     - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body
             */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_destination" | "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    getOtp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OTP id (otp_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example otp_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /**
                         * @description pending until approved, expired, locked (attempts used up) or cancelled (a new code replaced it)
                         * @enum {string}
                         */
                        status: "pending" | "approved" | "expired" | "locked" | "cancelled";
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        to: string;
                        /** @enum {string} */
                        channel: "sms" | "whatsapp" | "voice";
                        expires_at: string;
                        attempts_remaining: number;
                        sends: number;
                        created_at: string;
                        deliveries: {
                            message_id: string;
                            /** @enum {string} */
                            channel: "sms" | "whatsapp" | "voice";
                            /** @description Sent on the fallback channel */
                            fallback: boolean;
                            /** @enum {string} */
                            status: "scheduled" | "queued" | "submitted" | "delivered" | "undelivered" | "failed" | "cancelled";
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /**
                 * @description An event type, e.g. sms.delivered
                 * @example sms.delivered
                 */
                type?: "sms.submitted" | "sms.delivered" | "sms.undelivered" | "sms.failed" | "sms.cancelled" | "otp.sent" | "otp.verified" | "otp.failed" | "balance.low" | "campaign.completed" | "webhook.test";
                /** @description The id of the last event read (evt_…) */
                after?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example evt_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                            id: string;
                            /**
                             * @description An event type, e.g. sms.delivered
                             * @example sms.delivered
                             * @enum {string}
                             */
                            type: "sms.submitted" | "sms.delivered" | "sms.undelivered" | "sms.failed" | "sms.cancelled" | "otp.sent" | "otp.verified" | "otp.failed" | "balance.low" | "campaign.completed" | "webhook.test";
                            /** @description RFC 3339 UTC */
                            created_at: string;
                            /** @enum {string} */
                            environment: "live" | "sandbox";
                            /** @description sms.*: the message object (GET /v2/sms/{id}); otp.*: the OTP object (GET /v2/otp/{id}, never its code), with `reason` on otp.failed */
                            data: {
                                [key: string]: unknown;
                            };
                        }[];
                        has_more: boolean;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @example whk_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                            id: string;
                            /** @enum {string} */
                            environment: "live" | "sandbox";
                            url: string;
                            events: string[];
                            description: string | null;
                            /** @enum {string} */
                            status: "enabled" | "disabled";
                            /**
                             * @description manual; gone: it answered 410; failing: every attempt failed for 5 days
                             * @enum {string|null}
                             */
                            disabled_reason: "manual" | "gone" | "failing" | null;
                            /** @description Since when every attempt has failed */
                            failing_since: string | null;
                            /** @description whsec_ + base64 of 32 bytes: the key of the signatures */
                            secret?: string;
                            created_at: string;
                            updated_at: string;
                        }[];
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description http(s):// (https:// in live); never a loopback, private, link-local or metadata address
                     * @example https://example.com/hooks/dakiya
                     */
                    url: string;
                    /**
                     * @description Event types to receive, or ["*"] for all
                     * @example [
                     *       "sms.delivered",
                     *       "sms.failed"
                     *     ]
                     */
                    events?: string[];
                    description?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example whk_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        url: string;
                        events: string[];
                        description: string | null;
                        /** @enum {string} */
                        status: "enabled" | "disabled";
                        /**
                         * @description manual; gone: it answered 410; failing: every attempt failed for 5 days
                         * @enum {string|null}
                         */
                        disabled_reason: "manual" | "gone" | "failing" | null;
                        /** @description Since when every attempt has failed */
                        failing_since: string | null;
                        /** @description whsec_ + base64 of 32 bytes: the key of the signatures */
                        secret?: string;
                        created_at: string;
                        updated_at: string;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example whk_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        url: string;
                        events: string[];
                        description: string | null;
                        /** @enum {string} */
                        status: "enabled" | "disabled";
                        /**
                         * @description manual; gone: it answered 410; failing: every attempt failed for 5 days
                         * @enum {string|null}
                         */
                        disabled_reason: "manual" | "gone" | "failing" | null;
                        /** @description Since when every attempt has failed */
                        failing_since: string | null;
                        /** @description whsec_ + base64 of 32 bytes: the key of the signatures */
                        secret?: string;
                        created_at: string;
                        updated_at: string;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {boolean} */
                        deleted: true;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description http(s):// (https:// in live); never a loopback, private, link-local or metadata address
                     * @example https://example.com/hooks/dakiya
                     */
                    url?: string;
                    /**
                     * @description Event types to receive, or ["*"] for all
                     * @example [
                     *       "sms.delivered",
                     *       "sms.failed"
                     *     ]
                     */
                    events?: string[];
                    description?: string | null;
                    /** @enum {string} */
                    status?: "enabled" | "disabled";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example whk_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        url: string;
                        events: string[];
                        description: string | null;
                        /** @enum {string} */
                        status: "enabled" | "disabled";
                        /**
                         * @description manual; gone: it answered 410; failing: every attempt failed for 5 days
                         * @enum {string|null}
                         */
                        disabled_reason: "manual" | "gone" | "failing" | null;
                        /** @description Since when every attempt has failed */
                        failing_since: string | null;
                        /** @description whsec_ + base64 of 32 bytes: the key of the signatures */
                        secret?: string;
                        created_at: string;
                        updated_at: string;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example whk_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        url: string;
                        events: string[];
                        description: string | null;
                        /** @enum {string} */
                        status: "enabled" | "disabled";
                        /**
                         * @description manual; gone: it answered 410; failing: every attempt failed for 5 days
                         * @enum {string|null}
                         */
                        disabled_reason: "manual" | "gone" | "failing" | null;
                        /** @description Since when every attempt has failed */
                        failing_since: string | null;
                        /** @description whsec_ + base64 of 32 bytes: the key of the signatures */
                        secret?: string;
                        created_at: string;
                        updated_at: string;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    sendWebhookTestEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example evt_3kTz0aQ1vX9bWm2LcYp7RdN5 */
                        id: string;
                        /**
                         * @description An event type, e.g. sms.delivered
                         * @example sms.delivered
                         * @enum {string}
                         */
                        type: "sms.submitted" | "sms.delivered" | "sms.undelivered" | "sms.failed" | "sms.cancelled" | "otp.sent" | "otp.verified" | "otp.failed" | "balance.low" | "campaign.completed" | "webhook.test";
                        /** @description RFC 3339 UTC */
                        created_at: string;
                        /** @enum {string} */
                        environment: "live" | "sandbox";
                        /** @description sms.*: the message object (GET /v2/sms/{id}); otp.*: the OTP object (GET /v2/otp/{id}, never its code), with `reason` on otp.failed */
                        data: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listWebhookAttempts: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            event_id: string;
                            /** @description The event's type, e.g. sms.delivered */
                            event_type: string;
                            /** @description 1 for a delivery's first attempt */
                            attempt: number;
                            status_code: number | null;
                            error: string | null;
                            duration_ms: number;
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    replayWebhookEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: a repeat with the same key, method, path and body within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and nothing is sent or charged twice. Use a new key for each new request, e.g. a UUID or your order id. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The endpoint id (whk_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description RFC 3339
                     */
                    since: string;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook_id: string;
                        since: string;
                        /** @description Events queued for delivery again */
                        queued: number;
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_in_use`: a request with the same Idempotency-Key is still being processed */
            409: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_in_use";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `payload_too_large`: the body is over 16 KiB (1 MiB on POST /v2/sms/batch) */
            413: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "payload_too_large";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `unsupported_media_type`: the body is not sent as `Content-Type: application/json` */
            415: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "unsupported_media_type";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `idempotency_key_reused`: the Idempotency-Key was used with another method, path or body */
            422: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "idempotency_key_reused";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    reportMessages: {
        parameters: {
            query?: {
                /**
                 * @description The first day, YYYY-MM-DD, India time (default: 29 days before `to`)
                 * @example 2026-11-01
                 */
                from?: string;
                /**
                 * @description The last day, included, YYYY-MM-DD, India time (default: today)
                 * @example 2026-11-01
                 */
                to?: string;
                /** @description What each row counts: a day, a template, a sender, a status or a channel */
                group_by?: "day" | "template" | "sender" | "status" | "channel";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example 2026-11-01 */
                        from: string;
                        /** @example 2026-11-30 */
                        to: string;
                        /**
                         * @description What each row counts: a day, a template, a sender, a status or a channel
                         * @enum {string}
                         */
                        group_by: "day" | "template" | "sender" | "status" | "channel";
                        data: {
                            /** @description The day (YYYY-MM-DD), DLT template id, sender, status or channel; null for messages without a template or sender (OTPs by WhatsApp or voice) */
                            key: string | null;
                            /** @description Messages created in the period */
                            messages: number;
                            /** @description Their SMS parts (1 for WhatsApp and voice) */
                            segments: number;
                            /** @description Of them, now delivered */
                            delivered: number;
                            /** @description Now undelivered */
                            undelivered: number;
                            /** @description Now failed (refunded) */
                            failed: number;
                            /** @description Now cancelled before going out (refunded) */
                            cancelled: number;
                            /**
                             * @description INR charged for them net of refunds, like the balance
                             * @example 125.2500
                             */
                            cost: string;
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    reportOtp: {
        parameters: {
            query?: {
                /**
                 * @description The first day, YYYY-MM-DD, India time (default: 29 days before `to`)
                 * @example 2026-11-01
                 */
                from?: string;
                /**
                 * @description The last day, included, YYYY-MM-DD, India time (default: today)
                 * @example 2026-11-01
                 */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @example 2026-11-01 */
                        from: string;
                        /** @example 2026-11-30 */
                        to: string;
                        data: {
                            /**
                             * @description The channel each OTP was first sent on
                             * @enum {string}
                             */
                            channel: "sms" | "whatsapp" | "voice";
                            /** @description OTPs created in the period (test numbers' excluded) */
                            sent: number;
                            /** @description Of them, verified */
                            verified: number;
                            /** @description verified / sent; null when none was sent */
                            conversion_rate: number | null;
                            /** @description Median whole seconds from the first send to the verify; null when none was verified */
                            median_seconds_to_verify: number | null;
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
    listSandboxMessages: {
        parameters: {
            query?: {
                /**
                 * @description Only this number (E.164)
                 * @example +919876543210
                 */
                to?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            message_id: string;
                            /** @description sms, whatsapp or voice */
                            channel: string;
                            to: string;
                            text: string;
                            created_at: string;
                        }[];
                    };
                };
            };
            /** @description - `invalid_request`: malformed JSON, a wrong type, a missing or unknown field, a bad format */
            400: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "invalid_request";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `missing_api_key`: no `Authorization` header, or not `Bearer <key>`
             *     - `invalid_api_key`: an unknown, malformed or deleted key
             */
            401: {
                headers: {
                    /** @description `Bearer`, when the key is missing */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "missing_api_key" | "invalid_api_key";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /**
             * @description - `forbidden`: the key's scope does not allow this request; the message names the scope
             *     - `ip_not_allowed`: the key has `allowed_ips` and the client address is not in them
             */
            403: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "forbidden" | "ip_not_allowed";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `not_found`: no such resource in this account and environment */
            404: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "not_found";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
            /** @description - `rate_limited`: over the key's request limit or a per-number or per-account cap; `Retry-After` says when to try again */
            429: {
                headers: {
                    /** @description Requests this API key may make at once (its burst) */
                    "RateLimit-Limit"?: number;
                    /** @description Requests it may make right now */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until RateLimit-Remaining is back to RateLimit-Limit */
                    "RateLimit-Reset"?: number;
                    /** @description Seconds to wait before trying again */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "rate_limited";
                            /** @description What went wrong and what to do, for a person to read */
                            message: string;
                            /** @description The field at fault, as a dotted path like variables.otp */
                            param?: string;
                            /** @description Seconds to wait, on a 429 */
                            retry_after?: number;
                            /** @description The X-Request-Id of the request */
                            request_id: string;
                        };
                    };
                };
            };
        };
    };
}
