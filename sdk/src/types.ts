import type { paths } from "./schema.js";

/* Names for the shapes of the generated schema, so that users never spell a path to import a type. */

type Method = "get" | "post" | "patch" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type Answer<P extends keyof paths, M extends Method, Status extends number> =
  Operation<P, M> extends { responses: { [S in Status]: infer Response } } ? JsonOf<Response> : never;
type Body<P extends keyof paths, M extends Method> = JsonOf<NonNullable<Operation<P, M>["requestBody"]>>;
/** Query parameters, all optional: the server fills in its defaults. */
type Query<P extends keyof paths, M extends Method> = Partial<
  NonNullable<Operation<P, M>["parameters"]["query"]>
>;
type ItemOf<List> = List extends { data: Array<infer Item> } ? Item : never;

export type Balance = Answer<"/v2/balance", "get", 200>;

type GeneratedBatchResult = Answer<"/v2/sms/batch", "post", 202>;

export type SmsSendParams = Body<"/v2/sms/send", "post">;
/** A message, as sending it answers and `GET /v2/sms/{id}` shows it. */
export type Message = Answer<"/v2/sms/send", "post", 202>;
export type MessageStatus = Message["status"];
/** The lane a message takes to its carrier: `otp` first, then `transactional`, then `bulk`. */
export type MessagePriority = Message["priority"];
export type SmsBatchParams = Body<"/v2/sms/batch", "post">;
/** A batch item the server refused, in place of its message. */
export type SmsBatchItemError = Extract<ItemOf<GeneratedBatchResult>, { error: unknown }>;
export type SmsBatchResult = GeneratedBatchResult;
/** Filters of `GET /v2/sms`; `limit` is the page size, `starting_after` where to start. */
export type SmsListParams = Query<"/v2/sms", "get">;
export type MessagePage = Answer<"/v2/sms", "get", 200>;

export type OtpSendParams = Body<"/v2/otp/send", "post">;
export type Otp = Answer<"/v2/otp/send", "post", 200>;
export type OtpVerifyParams = Body<"/v2/otp/verify", "post">;
export type OtpVerification = Answer<"/v2/otp/verify", "post", 200>;
/** An OTP with its deliveries, never its code. */
export type OtpDetails = Answer<"/v2/otp/{id}", "get", 200>;

/** Filters of `GET /v2/events`; `limit` is the page size, `after` the last event already read. */
export type EventListParams = Query<"/v2/events", "get">;
export type EventPage = Answer<"/v2/events", "get", 200>;
export type DakiyaEvent = ItemOf<EventPage>;
export type EventType = DakiyaEvent["type"];

export type WebhookCreateParams = Body<"/v2/webhooks", "post">;
export type WebhookUpdateParams = Body<"/v2/webhooks/{id}", "patch">;
export type WebhookEndpoint = Answer<"/v2/webhooks", "post", 201>;
/** `GET /v2/webhooks`: `{ data }`, the endpoints without their secrets. */
export type WebhookEndpointList = Answer<"/v2/webhooks", "get", 200>;
export type DeletedWebhookEndpoint = Answer<"/v2/webhooks/{id}", "delete", 200>;
export type WebhookAttemptsParams = Query<"/v2/webhooks/{id}/attempts", "get">;
/** `GET /v2/webhooks/{id}/attempts`: `{ data }`, the latest attempts first. */
export type WebhookAttemptList = Answer<"/v2/webhooks/{id}/attempts", "get", 200>;
export type WebhookAttempt = ItemOf<WebhookAttemptList>;
export type WebhookReplayParams = Body<"/v2/webhooks/{id}/replay", "post">;
export type WebhookReplay = Answer<"/v2/webhooks/{id}/replay", "post", 202>;

export type SandboxMessagesParams = Query<"/v2/sandbox/messages", "get">;
/** `GET /v2/sandbox/messages`: `{ data }`, the newest first. */
export type SandboxMessageList = Answer<"/v2/sandbox/messages", "get", 200>;
export type SandboxMessage = ItemOf<SandboxMessageList>;

type AnyOperation = { [P in keyof paths]: { [M in Method]: paths[P][M] }[Method] }[keyof paths];
type AnyResponse = AnyOperation extends infer O
  ? O extends { responses: infer R }
    ? R[keyof R]
    : never
  : never;
type CodeOf<Response> =
  JsonOf<Response> extends infer E ? (E extends { error: { code: infer C } } ? C : never) : never;
/** Every error code the API documents (`error.code` of the error envelope). */
export type ErrorCode = CodeOf<AnyResponse>;

/** `GET /v2/reports/messages`: `from`, `to` (India-time days, both included) and `group_by`. */
export type MessageReportParams = Query<"/v2/reports/messages", "get">;
/** `{ from, to, group_by, data }`: one row per day, template, sender, status or channel. */
export type MessageReport = Answer<"/v2/reports/messages", "get", 200>;
export type MessageReportRow = ItemOf<MessageReport>;
/** `GET /v2/reports/otp`: `from` and `to`. */
export type OtpReportParams = Query<"/v2/reports/otp", "get">;
/** `{ from, to, data }`: one row per channel an OTP was first sent on. */
export type OtpReport = Answer<"/v2/reports/otp", "get", 200>;
export type OtpReportRow = ItemOf<OtpReport>;

/** `POST /v2/campaigns`: a name, template, sender, up to 100,000 recipients, `send_at`, `messages_per_minute`. */
export type CampaignCreateParams = Body<"/v2/campaigns", "post">;
/** A campaign: counts by status, cost, refunds, progress. */
export type Campaign = Answer<"/v2/campaigns/{id}", "get", 200>;
export type CampaignStatus = Campaign["status"];
/** A new campaign, with each refused recipient in `errors`. */
export type CampaignCreateResult = Answer<"/v2/campaigns", "post", 202>;
export type CampaignRecipientError = CampaignCreateResult["errors"][number];
/** Filters of `GET /v2/campaigns`; `limit` is the page size, `starting_after` where to start. */
export type CampaignListParams = Query<"/v2/campaigns", "get">;
