import { type FormEvent, useState } from "react";
import {
  ALL_WEBHOOK_EVENTS,
  ApiError,
  type Environment,
  type NewWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "../api";
import { ErrorNotice, formErrors } from "./Feedback";
import { Field, FieldError } from "./Field";

const EVENT_EXPLANATIONS: Record<WebhookEventType, string> = {
  "sms.submitted": "A carrier accepted the message",
  "sms.delivered": "A receipt says delivered",
  "sms.undelivered": "A receipt says not delivered, or a long SMS went out only in part",
  "sms.failed": "Failed for good, and refunded",
  "sms.cancelled": "Cancelled before it went out, and refunded",
  "otp.sent": "A passcode went out (send, resend or fallback)",
  "otp.verified": "The right code was entered",
  "otp.failed": "Expired, or too many wrong codes",
  "balance.low": "A charge took the balance below its alert threshold",
  "campaign.completed": "Every message of a campaign reached a final status",
};

const EVENT_GROUPS: ReadonlyArray<{ title: string; prefix: string }> = [
  { title: "Message events", prefix: "sms." },
  { title: "OTP events", prefix: "otp." },
  { title: "Balance events", prefix: "balance." },
  { title: "Campaign events", prefix: "campaign." },
];

const FIELDS = ["url", "events", "description"] as const;

export interface EndpointFormValues {
  url: string;
  description: string;
  events: string[];
}

/** The URL, description and events of an endpoint, for creating one or changing it. */
export function WebhookEndpointForm({
  environment,
  initial,
  submitLabel,
  busyLabel,
  onSubmit,
  onCancel,
}: {
  environment: Environment;
  initial: EndpointFormValues;
  submitLabel: string;
  busyLabel: string;
  /** Saves the endpoint; a refusal is shown next to the field it names. */
  onSubmit(values: NewWebhookEndpoint): Promise<void>;
  onCancel(): void;
}) {
  const [url, setUrl] = useState(initial.url);
  const [description, setDescription] = useState(initial.description);
  const [events, setEvents] = useState<string[]>(initial.events);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const all = events.includes(ALL_WEBHOOK_EVENTS);

  const toggle = (type: string, checked: boolean) => {
    setEvents((current) => (checked ? [...current, type] : current.filter((value) => value !== type)));
    if (checked) setError(undefined);
  };
  const chooseAll = (checked: boolean) => {
    setEvents(checked ? [ALL_WEBHOOK_EVENTS] : []);
    if (checked) setError(undefined);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (events.length === 0) {
      setError(new ApiError(400, "invalid_request", "Choose the events to send, or all events.", "events"));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit({
        url: url.trim(),
        events: all ? [ALL_WEBHOOK_EVENTS] : WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type)),
        description: description.trim(),
      });
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const errors = formErrors(error, FIELDS);
  const eventsError = errors.field.events;
  return (
    <form className="form" onSubmit={submit} noValidate>
      <ErrorNotice error={errors.form} />
      <Field
        label="Endpoint URL"
        error={errors.field.url}
        hint={
          environment === "live"
            ? "Where Dakiya POSTs events. Live endpoints must use https://."
            : "Where Dakiya POSTs events, http:// or https://."
        }
      >
        {(control) => (
          <input
            {...control}
            type="url"
            inputMode="url"
            className="mono"
            maxLength={2048}
            autoComplete="off"
            spellCheck={false}
            placeholder="https://example.com/webhooks/dakiya"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
        )}
      </Field>
      <Field
        label="Description (optional)"
        error={errors.field.description}
        hint="For you, e.g. order service."
      >
        {(control) => (
          <input
            {...control}
            maxLength={500}
            autoComplete="off"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>
      <fieldset className={`field${eventsError ? " field-invalid" : ""}`}>
        <legend>Events to send</legend>
        <div className="choice-list">
          <label className="choice">
            <input type="checkbox" checked={all} onChange={(event) => chooseAll(event.target.checked)} />
            <span>
              <strong>All events</strong>
              <span className="muted small">
                {all
                  ? "Every message and OTP event, and types added later. Untick to choose."
                  : "Or choose the types below."}
              </span>
            </span>
          </label>
        </div>
        {all
          ? null
          : EVENT_GROUPS.map((group) => (
              <fieldset key={group.prefix} className="event-group">
                <legend className="event-group-title">{group.title}</legend>
                <div className="event-grid">
                  {WEBHOOK_EVENT_TYPES.filter((type) => type.startsWith(group.prefix)).map((type) => (
                    <label key={type} className="choice choice-compact">
                      <input
                        type="checkbox"
                        checked={events.includes(type)}
                        onChange={(event) => toggle(type, event.target.checked)}
                      />
                      <span>
                        <strong className="mono">{type}</strong>
                        <span className="muted small">{EVENT_EXPLANATIONS[type]}</span>
                      </span>
                    </label>
                  ))}
                </div>
              </fieldset>
            ))}
        <FieldError message={eventsError} />
      </fieldset>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
      </div>
    </form>
  );
}
