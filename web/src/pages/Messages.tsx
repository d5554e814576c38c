import { type FormEvent, useCallback, useEffect, useState } from "react";
import {
  api,
  CHANNELS,
  type Channel,
  type ListedMessage,
  MESSAGE_STATUSES,
  MESSAGES_CSV_LIMIT,
  type Message,
  type MessageFilters,
  type MessageStatus,
} from "../api";
import { CancelMessageDialog, cancelledNotice } from "../components/CancelMessageDialog";
import { EmptyState, ErrorNotice, formErrors, Loading, SuccessNotice } from "../components/Feedback";
import { Field } from "../components/Field";
import { MessagesTable } from "../components/MessagesTable";
import { PageHeader } from "../components/PageHeader";
import { useEnvironment } from "../environment";
import { channelLabel } from "../format";
import { useFilterParams } from "../use-filter-params";
import { usePagedList } from "../use-paged-list";

const PAGE_SIZE = 50;

function pick<T extends string>(value: string | null, allowed: readonly T[]): T | undefined {
  return allowed.find((candidate) => candidate === value);
}

export function MessagesPage() {
  const { environment } = useEnvironment();
  const { params, setFilter, clearFilters } = useFilterParams<keyof MessageFilters>();
  const status = pick<MessageStatus>(params.get("status"), MESSAGE_STATUSES);
  const channel = pick<Channel>(params.get("channel"), CHANNELS);
  const to = params.get("to") ?? "";
  const from = params.get("from") ?? "";
  const until = params.get("until") ?? "";
  const [toDraft, setToDraft] = useState(to);
  useEffect(() => setToDraft(to), [to]);

  const loadPage = useCallback(
    (after: ListedMessage | undefined, signal?: AbortSignal) =>
      api.listMessages(
        environment,
        {
          status,
          channel,
          to: to || undefined,
          from: from || undefined,
          until: until || undefined,
          before: after?.id,
          limit: PAGE_SIZE,
        },
        signal,
      ),
    [environment, status, channel, to, from, until],
  );
  const {
    firstPage,
    items: messages,
    hasMore,
    loadMore,
    loadingMore,
    moreError,
    update,
  } = usePagedList(loadPage);
  const [cancelling, setCancelling] = useState<Message | undefined>();
  const [outcome, setOutcome] = useState<{ done: string } | { refused: Error } | undefined>();
  // An outcome belongs to the filters it was seen with.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets whenever the list's source changes
  useEffect(() => setOutcome(undefined), [loadPage]);

  /** Shows a message's new state in whichever loaded page holds it. */
  const replace = (changed: Message) =>
    update((message) => (message.id === changed.id ? { ...message, ...changed } : message));
  const onCancelled = (message: Message) => {
    setCancelling(undefined);
    replace(message);
    setOutcome({ done: cancelledNotice(message) });
    firstPage.reload();
  };
  const onRefused = (error: Error) => {
    setCancelling(undefined);
    setOutcome({ refused: error });
    firstPage.reload();
  };

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    setFilter("to", toDraft.trim());
  };

  const errors = formErrors(firstPage.error, ["to", "status", "channel", "from", "until"]);
  const filtered = Boolean(status || channel || to || from || until);
  const csvUrl = api.messagesCsvUrl(environment, {
    status,
    channel,
    to: to || undefined,
    from: from || undefined,
    until: until || undefined,
  });

  return (
    <>
      <PageHeader
        title="Messages"
        description={`Every ${environment} SMS, WhatsApp message and call, newest first. Dates are India time.`}
        actions={
          firstPage.error ? null : (
            <div className="csv-download">
              <a className="button" href={csvUrl} download>
                {filtered ? "Download CSV of these messages" : "Download CSV"}
              </a>
              <p className="csv-download-note">
                Every matching message, up to the newest {MESSAGES_CSV_LIMIT.toLocaleString("en-IN")}
              </p>
            </div>
          )
        }
      />
      <form className="filters filters-messages card" onSubmit={onSearch} aria-label="Filter messages">
        <Field label="Status" error={errors.field.status}>
          {(control) => (
            <select
              {...control}
              value={status ?? ""}
              onChange={(event) => setFilter("status", event.target.value)}
            >
              <option value="">Any status</option>
              {MESSAGE_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value.charAt(0).toUpperCase() + value.slice(1)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Channel" error={errors.field.channel}>
          {(control) => (
            <select
              {...control}
              value={channel ?? ""}
              onChange={(event) => setFilter("channel", event.target.value)}
            >
              <option value="">Any channel</option>
              {CHANNELS.map((value) => (
                <option key={value} value={value}>
                  {channelLabel(value)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Number" error={errors.field.to} className="filters-number">
          {(control) => (
            <input
              {...control}
              type="search"
              inputMode="tel"
              className="mono"
              placeholder="9876543210 or its last digits"
              title="A full number, a 10-digit Indian mobile (+91 is assumed), or the last 4 digits or more"
              value={toDraft}
              onChange={(event) => setToDraft(event.target.value)}
            />
          )}
        </Field>
        <Field label="From" error={errors.field.from} className="filters-date">
          {(control) => (
            <input
              {...control}
              type="date"
              title="The first day, India time"
              value={from}
              max={until || undefined}
              onChange={(event) => setFilter("from", event.target.value)}
            />
          )}
        </Field>
        <Field label="To" error={errors.field.until} className="filters-date">
          {(control) => (
            <input
              {...control}
              type="date"
              title="The last day, India time (included)"
              value={until}
              min={from || undefined}
              onChange={(event) => setFilter("until", event.target.value)}
            />
          )}
        </Field>
        <div className="filters-actions">
          <button type="submit" className="button">
            Search
          </button>
          {filtered ? (
            <button type="button" className="button button-ghost" onClick={clearFilters}>
              Clear filters
            </button>
          ) : null}
        </div>
      </form>

      <ErrorNotice error={errors.form} />
      {outcome && "done" in outcome ? <SuccessNotice>{outcome.done}</SuccessNotice> : null}
      <ErrorNotice error={outcome && "refused" in outcome ? outcome.refused : undefined} />
      {firstPage.error && !firstPage.data && messages.length === 0 ? null : (
        <section className="card card-flush" aria-label="Message list">
          {firstPage.loading && !firstPage.data ? <Loading /> : null}
          {firstPage.data && messages.length === 0 ? (
            <EmptyState
              title={filtered ? "No messages match these filters" : `No ${environment} messages yet`}
            >
              <p>
                {filtered
                  ? "Try another status, channel, number or dates, or clear the filters."
                  : `Messages sent with a ${environment} key appear here as soon as they are queued.`}
              </p>
            </EmptyState>
          ) : null}
          {messages.length > 0 ? (
            <MessagesTable
              detailed
              messages={messages}
              caption={`${environment} messages`}
              onCancel={(message) => {
                setOutcome(undefined);
                setCancelling(message);
              }}
            />
          ) : null}
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
      {cancelling ? (
        <CancelMessageDialog
          message={cancelling}
          environment={environment}
          onCancelled={onCancelled}
          onRefused={onRefused}
          onClose={() => setCancelling(undefined)}
        />
      ) : null}
    </>
  );
}
