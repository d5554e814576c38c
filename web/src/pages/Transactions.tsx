import { useCallback } from "react";
import { Link } from "react-router";
import { api, type DateRange, type LedgerEntry } from "../api";
import { EmptyState, ErrorNotice, formErrors, Loading } from "../components/Feedback";
import { Field } from "../components/Field";
import { LowBalanceSection } from "../components/LowBalanceSection";
import { PageHeader } from "../components/PageHeader";
import { useEnvironment } from "../environment";
import { formatDateTime, formatInr, formatShortDateTime } from "../format";
import { useFilterParams } from "../use-filter-params";
import { usePagedList } from "../use-paged-list";

const PAGE_SIZE = 50;

/** What each reason the ledger records means, in words; an unknown one shows as recorded. */
const REASONS: Record<string, string> = {
  credits_added: "Credits added",
  sandbox_top_up: "Sandbox top-up",
  sms_charge: "SMS charge",
  sms_refund: "SMS refund",
  whatsapp_charge: "WhatsApp charge",
  whatsapp_refund: "WhatsApp refund",
  voice_charge: "Voice call charge",
  voice_refund: "Voice call refund",
  campaign_charge: "Campaign charge",
  campaign_refund: "Campaign refund",
};

export function TransactionsPage() {
  const { environment } = useEnvironment();
  const { params, setFilter: setDate, clearFilters } = useFilterParams<keyof DateRange>();
  const range: DateRange = { from: params.get("from") || undefined, to: params.get("to") || undefined };
  const { from, to } = range;

  const loadPage = useCallback(
    (after: LedgerEntry | undefined, signal?: AbortSignal) =>
      api.listLedger(environment, { from, to, before: after?.id, limit: PAGE_SIZE }, signal),
    [environment, from, to],
  );
  const { firstPage, items: entries, hasMore, loadMore, loadingMore, moreError } = usePagedList(loadPage);

  const errors = formErrors(firstPage.error, ["from", "to"]);
  const filtered = Boolean(from || to);
  const csvLabel = filtered ? "Download CSV of these dates" : "Download CSV";

  return (
    <>
      <PageHeader
        title="Transactions"
        description={`Every credit, charge and refund of the ${environment} balance, newest first. Dates are India time.`}
        actions={
          errors.field.from || errors.field.to ? null : (
            <a className="button" href={api.ledgerCsvUrl(environment, range)} download>
              {csvLabel}
            </a>
          )
        }
      />
      <LowBalanceSection />
      <form
        className="filters filters-dates card"
        aria-label="Filter transactions"
        onSubmit={(event) => event.preventDefault()}
      >
        <Field label="From" error={errors.field.from}>
          {(control) => (
            <input
              {...control}
              type="date"
              title="The first day, India time"
              value={from ?? ""}
              max={to}
              onChange={(event) => setDate("from", event.target.value)}
            />
          )}
        </Field>
        <Field label="To" error={errors.field.to}>
          {(control) => (
            <input
              {...control}
              type="date"
              title="The last day, India time (included)"
              value={to ?? ""}
              min={from}
              onChange={(event) => setDate("to", event.target.value)}
            />
          )}
        </Field>
        {filtered ? (
          <div className="filters-actions">
            <button type="button" className="button button-ghost" onClick={clearFilters}>
              All dates
            </button>
          </div>
        ) : null}
      </form>

      <ErrorNotice error={errors.form} />
      {firstPage.error && entries.length === 0 ? null : (
        <section className="card card-flush" aria-label="Transactions">
          {firstPage.loading && !firstPage.data ? <Loading /> : null}
          {firstPage.data && entries.length === 0 ? (
            <EmptyState
              title={filtered ? "No transactions on these dates" : `No ${environment} transactions yet`}
            >
              <p>
                {filtered
                  ? "Pick other dates, or show all of them."
                  : environment === "sandbox"
                    ? "Add test credits on the overview; each sandbox send is charged here."
                    : "Live credits appear here once the operator adds them."}
              </p>
            </EmptyState>
          ) : null}
          {entries.length > 0 ? (
            <LedgerTable entries={entries} caption={`${environment} transactions`} />
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
    </>
  );
}

function LedgerTable({ entries, caption }: { entries: LedgerEntry[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Reference</th>
            <th scope="col" className="numeric">
              Amount
            </th>
            <th scope="col" className="numeric">
              Balance after
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label="Time" title={`${formatDateTime(entry.created_at)} · ${entry.id}`}>
                {formatShortDateTime(entry.created_at)}
              </td>
              <td data-label="Type">{REASONS[entry.reason] ?? entry.reason}</td>
              <td data-label="Reference" className="mono">
                {entry.message_id ? (
                  <Link to={`/messages/${entry.message_id}`} title={`Open ${entry.message_id}`}>
                    {entry.message_id}
                  </Link>
                ) : entry.reference ? (
                  <span title={entry.reference}>{entry.reference}</span>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td
                data-label="Amount"
                className={`numeric mono ${entry.amount.startsWith("-") ? "amount-debit" : "amount-credit"}`}
              >
                {entry.amount.startsWith("-") ? "" : "+"}
                {formatInr(entry.amount)}
              </td>
              <td data-label="Balance after" className="numeric mono">
                {formatInr(entry.balance_after)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
