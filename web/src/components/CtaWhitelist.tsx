import { type FormEvent, useCallback, useState } from "react";
import { api, type CtaEntry, type CtaKind } from "../api";
import { formatDateTime } from "../format";
import { useResource } from "../use-resource";
import { Allowed, ReadOnlyNote } from "./Allowed";
import { ConfirmDialog } from "./ConfirmDialog";
import { ErrorNotice, formErrors, Loading } from "./Feedback";
import { Field } from "./Field";

const KIND_LABELS: Record<CtaKind, string> = { url: "Link", number: "Number" };
const PLACEHOLDERS: Record<CtaKind, string> = { url: "https://dky.in/", number: "+9118001234567" };
const HINTS: Record<CtaKind, string> = {
  url: "http:// or https://, a domain and an optional path; links must start with it.",
  number: "+ and the country code, e.g. +91 1800 123 4567.",
};

/**
 * The account's whitelisted links and callback numbers (docs/dashboard-api.md, CtaEntry),
 * on the Templates & senders page: listed, added, removed after a confirmation.
 */
export function CtaWhitelist() {
  const entries = useResource(useCallback((signal: AbortSignal) => api.listCtaEntries(signal), []));
  const [kind, setKind] = useState<CtaKind>("url");
  const [draft, setDraft] = useState("");
  const [addError, setAddError] = useState<unknown>();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<CtaEntry | undefined>();

  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    const value = draft.trim();
    const problem = checkDraft(kind, value);
    if (problem) {
      setAddError(new Error(problem));
      return;
    }
    setAdding(true);
    setAddError(undefined);
    try {
      await api.addCtaEntry(kind, value);
      setDraft("");
      entries.reload();
    } catch (caught) {
      setAddError(caught);
    } finally {
      setAdding(false);
    }
  };

  const errors = formErrors(addError, ["value"]);
  const list = entries.data?.data;
  return (
    <section className="card" aria-labelledby="cta-title">
      <div className="card-header">
        <h2 id="cta-title">Whitelisted links and numbers</h2>
        <span className="muted small">as whitelisted on the DLT portal</span>
      </div>
      <p className="muted cta-explainer">
        Once you list a link, every link in a message ({"{#url#}"}, {"{#urlott#}"}) must start with one you
        listed, and once you list a number, every callback number ({"{#cbn#}"}) must be one of them; other
        sends are refused before they are charged.
      </p>
      <ErrorNotice error={entries.error} />
      {entries.loading && !list ? <Loading /> : null}
      {list && list.length === 0 ? (
        <p className="muted">No links or numbers yet: messages may carry any.</p>
      ) : null}
      {list && list.length > 0 ? (
        <ul className="cta-list" aria-label="Whitelisted links and numbers">
          {list.map((entry) => (
            <li key={`${entry.kind} ${entry.value}`} className="cta-item">
              <span className={`badge ${entry.kind === "url" ? "badge-blue" : "badge-violet"}`}>
                {KIND_LABELS[entry.kind]}
              </span>
              <span className="mono cta-value">{entry.value}</span>
              <span className="muted small cta-added">added {formatDateTime(entry.created_at)}</span>
              <Allowed route="DELETE /dashboard/api/cta">
                <button
                  type="button"
                  className="button button-small button-ghost-danger"
                  onClick={() => setRemoving(entry)}
                  aria-label={`Remove ${entry.value}`}
                >
                  Remove
                </button>
              </Allowed>
            </li>
          ))}
        </ul>
      ) : null}
      <Allowed
        route="POST /dashboard/api/cta"
        otherwise={<ReadOnlyNote what="Whitelisted links and numbers" />}
      >
        <form className="inline-form" onSubmit={onAdd} noValidate aria-label="Add a link or number">
          <Field label="Type" className="cta-kind">
            {(control) => (
              <select
                {...control}
                value={kind}
                onChange={(event) => {
                  setKind(event.target.value as CtaKind);
                  setAddError(undefined);
                }}
              >
                <option value="url">Link (URL prefix)</option>
                <option value="number">Callback number</option>
              </select>
            )}
          </Field>
          <Field
            label={kind === "url" ? "Link" : "Number"}
            className="cta-input"
            error={errors.field.value ?? errors.form}
            hint={HINTS[kind]}
          >
            {(control) => (
              <input
                {...control}
                className="mono"
                inputMode={kind === "url" ? "url" : "tel"}
                autoComplete="off"
                spellCheck={false}
                placeholder={PLACEHOLDERS[kind]}
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
              />
            )}
          </Field>
          <button type="submit" className="button" disabled={adding}>
            {adding ? "Adding…" : kind === "url" ? "Add link" : "Add number"}
          </button>
        </form>
      </Allowed>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing.value}?`}
          confirmLabel={removing.kind === "url" ? "Remove link" : "Remove number"}
          busyLabel="Removing…"
          onConfirm={async () => {
            await api.removeCtaEntry(removing.kind, removing.value);
            setRemoving(undefined);
            entries.reload();
          }}
          onClose={() => setRemoving(undefined)}
        >
          <p>
            {list && list.filter((entry) => entry.kind === removing.kind).length === 1
              ? `It is your only ${removing.kind === "url" ? "link" : "number"}: once it is gone, messages may carry any ${removing.kind === "url" ? "link" : "callback number"} again (unless your operator runs Dakiya in strict mode, which then allows none).`
              : `Messages with ${removing.kind === "url" ? "links under it" : "this callback number"} will be refused from then on, unless another entry allows them.`}
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** What is plainly wrong before asking the server, which checks the rest and says why. */
function checkDraft(kind: CtaKind, value: string): string | undefined {
  if (value === "")
    return kind === "url" ? "Enter a link, like https://dky.in/." : "Enter a number, like +9118001234567.";
  if (kind === "url" && !/^https?:\/\//i.test(value)) return "A link starts with http:// or https://.";
  if (kind === "number" && !value.startsWith("+")) {
    return "Write the number with + and the country code, like +91 1800 123 4567.";
  }
  return undefined;
}
