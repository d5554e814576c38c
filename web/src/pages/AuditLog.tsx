import { useCallback, useEffect, useState } from "react";
import { type AuditEntry, type AuditValue, api } from "../api";
import { EmptyState, ErrorNotice, formErrors, Loading } from "../components/Feedback";
import { Field } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { EnvironmentBadge } from "../components/StatusBadge";
import { formatIndiaTime, formatUtc, parseIndiaInput } from "../format";
import { useFilterParams } from "../use-filter-params";
import { usePagedList } from "../use-paged-list";

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** The action filter's choices: every action of a kind of target, by the prefix the server matches. */
const ACTION_GROUPS: Array<{ value: string; label: string }> = [
  { value: "", label: "All changes" },
  { value: "key", label: "API keys" },
  { value: "webhook", label: "Webhooks" },
  { value: "template", label: "Templates" },
  { value: "sender", label: "Senders" },
  { value: "cta_entry", label: "Whitelisted links and numbers" },
  { value: "otp_settings", label: "OTP settings" },
  { value: "account", label: "Account" },
  { value: "credits", label: "Credits" },
  { value: "campaign", label: "Campaigns" },
  { value: "member", label: "Members" },
  { value: "sign_in", label: "Sign-ins" },
];

/** Each action in words; an unknown one shows as recorded. */
const ACTIONS: Record<string, string> = {
  "key.created": "API key created",
  "key.rotated": "API key rotated",
  "key.deleted": "API key deleted",
  "key.rate_limit_changed": "API key rate limit changed",
  "webhook.created": "Webhook created",
  "webhook.updated": "Webhook changed",
  "webhook.deleted": "Webhook deleted",
  "webhook.secret_rotated": "Webhook secret rotated",
  "template.created": "Template added",
  "template.updated": "Template changed",
  "template.deleted": "Template removed",
  "sender.created": "Sender added",
  "sender.deleted": "Sender removed",
  "cta_entry.created": "Link or number whitelisted",
  "cta_entry.deleted": "Link or number removed",
  "otp_settings.updated": "OTP settings changed",
  "account.updated": "Account changed",
  "credits.added": "Credits added",
  "member.invited": "Member invited",
  "member.joined": "Member joined",
  "member.role_changed": "Member's role changed",
  "member.removed": "Member removed",
  "sign_in.succeeded": "Signed in",
  "sign_in.failed": "Sign-in failed",
  "campaign.created": "Campaign sent",
  "campaign.cancelled": "Campaign cancelled",
};

/** The filters as they stand in the address: days of India time, and the actor as typed. */
interface PageFilters {
  action: string;
  actor: string;
  from: string;
  to: string;
}

export function AuditLogPage() {
  const { params, setFilter, clearFilters } = useFilterParams<keyof PageFilters>();
  const filters: PageFilters = {
    action: params.get("action") ?? "",
    actor: params.get("actor") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
  };
  const { action, actor, from, to } = filters;
  const [actorDraft, setActorDraft] = useState(actor);
  useEffect(() => setActorDraft(actor), [actor]);

  const loadPage = useCallback(
    (after: AuditEntry | undefined, signal?: AbortSignal) =>
      api.listAudit(
        {
          action: action || undefined,
          actor: actor || undefined,
          created_after: indiaDayStart(from),
          created_before: indiaDayEnd(to),
          limit: PAGE_SIZE,
          ...(after ? { starting_after: after.id } : {}),
        },
        signal,
      ),
    [action, actor, from, to],
  );
  const { firstPage, items: entries, hasMore, loadMore, loadingMore, moreError } = usePagedList(loadPage);

  const errors = formErrors(firstPage.error, ["action", "actor", "created_after", "created_before"]);
  const filtered = Boolean(action || actor || from || to);

  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change to this account's keys, webhooks, templates, senders and settings: who made it, when and from where, newest first. Kept one year; dates are India time."
      />
      <form
        className="filters filters-audit card"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter("actor", actorDraft.trim());
        }}
      >
        <Field label="Change">
          {(control) => (
            <select {...control} value={action} onChange={(event) => setFilter("action", event.target.value)}>
              {ACTION_GROUPS.map((group) => (
                <option key={group.value} value={group.value}>
                  {group.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="By" error={errors.field.actor}>
          {(control) => (
            <input
              {...control}
              type="search"
              placeholder="Email or key id"
              title="An email, an API key's id, or member, key or cli; press Enter to apply"
              value={actorDraft}
              onChange={(event) => setActorDraft(event.target.value)}
              onBlur={() => setFilter("actor", actorDraft.trim())}
            />
          )}
        </Field>
        <Field label="From" error={errors.field.created_after}>
          {(control) => (
            <input
              {...control}
              type="date"
              title="The first day, India time"
              value={from}
              max={to || undefined}
              onChange={(event) => setFilter("from", event.target.value)}
            />
          )}
        </Field>
        <Field label="To" error={errors.field.created_before}>
          {(control) => (
            <input
              {...control}
              type="date"
              title="The last day, India time (included)"
              value={to}
              min={from || undefined}
              onChange={(event) => setFilter("to", event.target.value)}
            />
          )}
        </Field>
        {filtered ? (
          <div className="filters-actions">
            <button type="button" className="button button-ghost" onClick={clearFilters}>
              Clear filters
            </button>
          </div>
        ) : null}
      </form>

      <ErrorNotice error={errors.form} />
      {firstPage.error && entries.length === 0 ? null : (
        <section className="card card-flush" aria-label="Audit log">
          {firstPage.loading && !firstPage.data ? <Loading /> : null}
          {firstPage.data && entries.length === 0 ? (
            <EmptyState title={filtered ? "No changes match these filters" : "No changes recorded yet"}>
              <p>
                {filtered
                  ? "Try other filters, or clear them."
                  : "Creating a key, a webhook or a template, or changing a setting, is recorded here."}
              </p>
            </EmptyState>
          ) : null}
          {entries.length > 0 ? <AuditTable entries={entries} /> : null}
        </section>
      )}
      <ErrorNotice error={moreError} />
      {hasMore ? (
        <div className="load-more">
          <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? "Loading…" : "Load more"}
          </button>
        </div>
      ) : null}
    </>
  );
}

/** The instant 00:00 India time begins `day` (YYYY-MM-DD); undefined without a day. */
function indiaDayStart(day: string): string | undefined {
  return day ? parseIndiaInput(`${day} 00:00`) : undefined;
}

/** The instant the India day `day` ends (00:00 of the next); undefined without a day. */
function indiaDayEnd(day: string): string | undefined {
  const start = indiaDayStart(day);
  return start === undefined ? undefined : new Date(Date.parse(start) + DAY_MS).toISOString();
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack audit-table">
        <caption className="visually-hidden">Audit log</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Change</th>
            <th scope="col">By</th>
            <th scope="col">What changed</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td
                data-label="Time"
                className="audit-time"
                title={`${formatUtc(entry.created_at)} · ${entry.id}`}
              >
                {formatIndiaTime(entry.created_at)}
              </td>
              <td data-label="Change">
                <div className="audit-action">
                  <strong>{ACTIONS[entry.action] ?? entry.action}</strong>
                  {entry.environment ? <EnvironmentBadge environment={entry.environment} /> : null}
                </div>
                {entry.target.id ? (
                  <div className="mono muted audit-target" title={`${entry.target.type} ${entry.target.id}`}>
                    {entry.target.id}
                  </div>
                ) : null}
              </td>
              <td data-label="By">
                <ActorCell entry={entry} />
              </td>
              <td data-label="What changed">
                <ChangeSummary before={entry.before} after={entry.after} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ActorCell({ entry }: { entry: AuditEntry }) {
  const { actor } = entry;
  const who =
    actor.type === "cli"
      ? "Operator (CLI)"
      : actor.type === "key"
        ? `API key ${actor.id ?? ""}`
        : (actor.label ?? actor.id);
  return (
    <>
      <div
        className={actor.type === "key" ? "mono audit-actor" : "audit-actor"}
        title={actor.id ?? undefined}
      >
        {who}
      </div>
      {entry.client_address ? <div className="mono muted audit-address">{entry.client_address}</div> : null}
    </>
  );
}

/**
 * A compact diff. A creation shows its fields, a deletion its fields struck through; a change
 * shows each field that differs as `old → new`, and the fields that only one side names (a
 * rotated key's successor) as they are: new ones in green, the rest as context.
 */
function ChangeSummary({
  before,
  after,
}: {
  before: Record<string, AuditValue> | null;
  after: Record<string, AuditValue> | null;
}) {
  if (!before && !after) return <span className="muted">—</span>;
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const rows = names.flatMap((name) => {
    const inBefore = before !== null && name in before;
    const inAfter = after !== null && name in after;
    if (inBefore && inAfter && same(before?.[name], after?.[name])) return [];
    return [{ name, old: inBefore ? before?.[name] : undefined, next: inAfter ? after?.[name] : undefined }];
  });
  if (rows.length === 0) return <span className="muted">No field changed</span>;
  const deletion = after === null;
  return (
    <dl className="audit-diff">
      {rows.map(({ name, old, next }) => (
        <div key={name} className="audit-diff-row">
          <dt>{name.replaceAll("_", " ")}</dt>
          <dd>
            {old !== undefined && next !== undefined ? (
              <>
                <del className="audit-old">{shown(old)}</del>
                <span className="audit-arrow" aria-hidden="true">
                  {" → "}
                </span>
                <span className="visually-hidden"> became </span>
                <ins className="audit-new">{shown(next)}</ins>
              </>
            ) : next !== undefined ? (
              <ins className="audit-new">{shown(next)}</ins>
            ) : deletion ? (
              <del className="audit-old audit-removed">{shown(old)}</del>
            ) : (
              <span className="audit-same">{shown(old)}</span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function same(a: AuditValue | undefined, b: AuditValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function shown(value: AuditValue | undefined): string {
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  // Times (a rotated key's end) in India time, like the rest of the page.
  if (typeof value === "string" && TIMESTAMP.test(value)) return formatIndiaTime(value);
  return String(value);
}
