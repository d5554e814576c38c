import { type FormEvent, useCallback, useEffect, useMemo, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, type CampaignPreview, type NewCampaign, type Template } from "../api";
import { CsvProblem, type CsvRecipients, readRecipientsCsv, requiredColumns } from "../campaign-csv";
import { ReadOnlyNote } from "../components/Allowed";
import { Fact } from "../components/Fact";
import { ErrorNotice, formErrors, Loading } from "../components/Feedback";
import { Field } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { useEnvironment } from "../environment";
import { formatIndiaTime, formatInr, formatUtc, parseIndiaInput } from "../format";
import { useSignedIn } from "../session";
import { useResource } from "../use-resource";
import type { CampaignNavigationState } from "./CampaignDetail";

/** The preview lists this many refused rows at most (the server's own cap). */
const SHOWN_ROW_ERRORS = 1_000;
const FIELDS = ["name", "template_id", "sender", "send_at", "messages_per_minute"] as const;

type FileState =
  | { status: "none" }
  | { status: "reading"; rowsRead: number }
  | { status: "read"; csv: CsvRecipients }
  | { status: "failed"; error: Error };

/** A refused row as the preview table shows it: its row in the file, the number, and why. */
interface RowError {
  row: number;
  to: string;
  message: string;
}

export function NewCampaignPage() {
  const { environment } = useEnvironment();
  const { can } = useSignedIn();
  const navigate = useNavigate();
  const templates = useResource(useCallback((signal: AbortSignal) => api.listTemplates(signal), []));
  const active = useMemo(
    () => templates.data?.data.filter((template) => template.status === "active") ?? [],
    [templates.data],
  );

  const [name, setName] = useState("");
  const [templateId, setTemplateId] = useState("");
  const [sender, setSender] = useState("");
  const [file, setFile] = useState<File | undefined>();
  const [fileState, setFileState] = useState<FileState>({ status: "none" });
  const [sendAt, setSendAt] = useState("");
  const [perMinute, setPerMinute] = useState("");
  const [preview, setPreview] = useState<{ of: NewCampaign; result: CampaignPreview } | undefined>();
  const [requestError, setRequestError] = useState<Error | undefined>();
  const [busy, setBusy] = useState<"previewing" | "sending" | undefined>();

  const template = active.find((candidate) => candidate.template_id === templateId);
  const placeholders = template?.placeholders;

  // The file is read again for another template: its placeholders decide which columns count.
  useEffect(() => {
    if (file === undefined || placeholders === undefined) {
      setFileState({ status: "none" });
      return;
    }
    let current = true;
    setFileState({ status: "reading", rowsRead: 0 });
    readRecipientsCsv(file, placeholders, (rowsRead) => {
      if (current) setFileState({ status: "reading", rowsRead });
    }).then(
      (csv) => current && setFileState({ status: "read", csv }),
      (error: Error) => current && setFileState({ status: "failed", error }),
    );
    return () => {
      current = false;
    };
  }, [file, placeholders]);

  const startsAt = sendAt ? parseIndiaInput(sendAt) : undefined;
  const sendAtError = sendAt && startsAt === undefined ? "Pick a day and a time, India time." : undefined;
  const csv = fileState.status === "read" ? fileState.csv : undefined;
  const campaign = useMemo<NewCampaign | undefined>(() => {
    if (!csv || !template || !sender || !name.trim()) return undefined;
    return {
      name: name.trim(),
      template_id: template.template_id,
      sender,
      ...(startsAt ? { send_at: startsAt } : {}),
      ...(perMinute ? { messages_per_minute: Number(perMinute) } : {}),
      recipients: csv.recipients,
    };
  }, [csv, template, sender, name, startsAt, perMinute]);
  // A preview holds for what it was asked about: any change asks for a new one.
  const shown = preview && preview.of === campaign ? preview.result : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a changed campaign (or environment) clears what was said about the last one
  useEffect(() => setRequestError(undefined), [campaign, environment]);

  const onPreview = async (event: FormEvent) => {
    event.preventDefault();
    if (!campaign || sendAtError) return;
    setBusy("previewing");
    setRequestError(undefined);
    try {
      setPreview({ of: campaign, result: await api.previewCampaign(environment, campaign) });
    } catch (caught) {
      setRequestError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(undefined);
    }
  };

  const onSend = async () => {
    if (!campaign || !shown) return;
    setBusy("sending");
    setRequestError(undefined);
    try {
      const created = await api.createCampaign(environment, campaign);
      const state: CampaignNavigationState = { refusedSincePreview: created.rejected - shown.rejected };
      navigate(`/campaigns/${encodeURIComponent(created.id)}`, { state });
    } catch (caught) {
      setRequestError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(undefined);
    }
  };

  const errors = formErrors(requestError, FIELDS);
  if (!can("POST /dashboard/api/campaigns")) {
    return (
      <>
        <PageHeader title="New campaign" />
        <ReadOnlyNote what="Campaigns" />
      </>
    );
  }
  return (
    <>
      <p className="breadcrumb">
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <PageHeader
        title={`New ${environment} campaign`}
        description="Pick a template and a sender, upload the recipients as CSV, and check every row and the cost before anything is sent."
      />
      <ErrorNotice error={templates.error} />
      {templates.loading && !templates.data ? <Loading /> : null}
      {templates.data && active.length === 0 ? (
        <ErrorNotice>
          <p>
            No active template yet: <Link to="/templates">add your DLT template</Link> first.
          </p>
        </ErrorNotice>
      ) : null}
      <form className="card form" onSubmit={onPreview} aria-label="New campaign" noValidate>
        <div className="form-grid form-grid-wide">
          <Field label="Name" error={errors.field.name} hint="For you: shown in the list and the audit log.">
            {(control) => (
              <input
                {...control}
                type="text"
                maxLength={100}
                required
                placeholder="Diwali offers"
                value={name}
                onChange={(event) => setName(event.target.value)}
              />
            )}
          </Field>
          <Field label="Template" error={errors.field.template_id}>
            {(control) => (
              <select
                {...control}
                required
                value={templateId}
                onChange={(event) => {
                  const chosen = active.find((candidate) => candidate.template_id === event.target.value);
                  setTemplateId(event.target.value);
                  setSender(chosen?.senders[0] ?? "");
                }}
              >
                <option value="">Choose a template</option>
                {active.map((candidate) => (
                  <option key={candidate.template_id} value={candidate.template_id}>
                    {candidate.name} ({candidate.template_id})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Sender" error={errors.field.sender} hint="The headers registered with the template.">
            {(control) => (
              <select
                {...control}
                required
                disabled={!template}
                value={sender}
                onChange={(event) => setSender(event.target.value)}
              >
                {template ? null : <option value="">Choose a template first</option>}
                {template?.senders.map((candidate) => (
                  <option key={candidate} value={candidate}>
                    {candidate}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {template ? <TemplateColumns template={template} /> : null}

        <Field
          label="Recipients (CSV file)"
          hint="UTF-8, with a header row; up to 1,00,000 rows. A number written as 10 digits (9876543210) is sent as +91 9876543210."
        >
          {(control) => (
            <input
              {...control}
              type="file"
              accept=".csv,text/csv"
              disabled={!template}
              onChange={(event) => setFile(event.target.files?.[0])}
            />
          )}
        </Field>
        <FileSummary state={fileState} />

        <div className="form-grid">
          <Field
            label="Send at (India time, IST)"
            error={sendAtError ?? errors.field.send_at}
            hint={
              startsAt ? (
                <>
                  Starts <span title={formatUtc(startsAt)}>{formatIndiaTime(startsAt)}</span>.
                </>
              ) : (
                "Leave empty to start now; up to 30 days ahead."
              )
            }
          >
            {(control) => (
              <input
                {...control}
                type="datetime-local"
                value={sendAt}
                onChange={(event) => setSendAt(event.target.value)}
              />
            )}
          </Field>
          <Field
            label="Messages per minute"
            error={errors.field.messages_per_minute}
            hint="Optional: paces the campaign, on top of the carriers' own pace."
          >
            {(control) => (
              <input
                {...control}
                type="number"
                inputMode="numeric"
                min={1}
                max={100_000}
                step={1}
                placeholder="As fast as allowed"
                value={perMinute}
                onChange={(event) => setPerMinute(event.target.value)}
              />
            )}
          </Field>
        </div>

        <ErrorNotice error={errors.form} />
        <div className="form-actions">
          <button
            type="submit"
            className="button"
            disabled={!campaign || Boolean(sendAtError) || busy !== undefined}
            title={campaign ? undefined : "Name the campaign, pick a template and a sender, and add a file."}
          >
            {busy === "previewing" ? "Checking…" : "Check and preview"}
          </button>
        </div>
      </form>

      {shown && csv ? (
        <PreviewResult
          preview={shown}
          csv={csv}
          scheduled={startsAt}
          sending={busy === "sending"}
          onSend={onSend}
        />
      ) : null}
    </>
  );
}

/** The columns a file needs for the chosen template, so people can prepare it before uploading. */
function TemplateColumns({ template }: { template: Template }) {
  return (
    <div className="campaign-columns">
      <p className="small">
        Your CSV needs columns:{" "}
        {requiredColumns(template.placeholders).map((column, index) => (
          <span key={column}>
            {index > 0 ? ", " : null}
            <code className="placeholder-chip">{column}</code>
          </span>
        ))}
        ; optionally <code className="placeholder-chip">reference</code>, your own id for each message.
      </p>
      <p className="template-content small muted">{template.content}</p>
    </div>
  );
}

function FileSummary({ state }: { state: FileState }) {
  switch (state.status) {
    case "none":
      return null;
    case "reading":
      return <Loading label={`Reading the file… ${state.rowsRead.toLocaleString("en-IN")} rows`} />;
    case "failed":
      return (
        <ErrorNotice
          error={
            state.error instanceof CsvProblem
              ? state.error
              : `The file could not be read: ${state.error.message}`
          }
        />
      );
    case "read": {
      const { csv } = state;
      return (
        <div className="notice notice-success campaign-file" role="status">
          <strong>{csv.rowsRead.toLocaleString("en-IN")} rows read.</strong>{" "}
          {csv.normalised > 0
            ? `${csv.normalised.toLocaleString("en-IN")} numbers without a country code are read as +91. `
            : null}
          {csv.columns.ignored.length > 0
            ? `Ignored columns, not in the template: ${csv.columns.ignored.join(", ")}.`
            : null}
        </div>
      );
    }
  }
}

function PreviewResult({
  preview,
  csv,
  scheduled,
  sending,
  onSend,
}: {
  preview: CampaignPreview;
  csv: CsvRecipients;
  scheduled: string | undefined;
  sending: boolean;
  onSend(): void;
}) {
  const rowErrors: RowError[] = [
    ...csv.errors,
    ...preview.errors.map(({ index, to, error }) => ({
      row: csv.rows[index] ?? index + 2,
      to,
      message: error.message,
    })),
  ].sort((a, b) => a.row - b.row);
  const refused = csv.errors.length + preview.rejected;
  const short = Number(preview.cost) > Number(preview.balance);
  return (
    <section className="card campaign-preview" aria-labelledby="campaign-preview-title">
      <h2 id="campaign-preview-title">Preview</h2>
      <dl className="facts">
        <Fact term="Rows" mono>
          {csv.rowsRead.toLocaleString("en-IN")}
        </Fact>
        <Fact term="To send" mono>
          {preview.accepted.toLocaleString("en-IN")}
        </Fact>
        <Fact term="Refused" mono>
          {refused.toLocaleString("en-IN")}
        </Fact>
        <Fact term="Total cost" mono>
          {formatInr(preview.cost)}
        </Fact>
        <Fact term="Balance" mono>
          {formatInr(preview.balance)}
        </Fact>
      </dl>
      {short ? (
        <div className="notice notice-warning" role="status">
          The balance does not cover every row: recipients past it are refused with insufficient balance. Add
          credits first to send them all.
        </div>
      ) : null}
      {rowErrors.length > 0 ? (
        <>
          <h3 className="campaign-errors-title">
            Refused rows
            {rowErrors.length < refused ? ` (the first ${rowErrors.length.toLocaleString("en-IN")})` : ""}
          </h3>
          <p className="muted small">
            These rows are skipped; the others are sent. Row numbers count the header as row 1.
          </p>
          <div className="table-wrap campaign-errors">
            <table className="table table-stack">
              <caption className="visually-hidden">Refused rows</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Number</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {rowErrors.slice(0, SHOWN_ROW_ERRORS).map((error) => (
                  <tr key={`${error.row}-${error.to}`}>
                    <td data-label="Row" className="mono">
                      {error.row}
                    </td>
                    <td data-label="Number" className="mono">
                      {error.to || "—"}
                    </td>
                    <td data-label="Error">{error.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : (
        <p className="muted small">Every row can be sent.</p>
      )}
      <div className="form-actions">
        <button
          type="button"
          className="button button-primary"
          disabled={preview.accepted === 0 || sending}
          onClick={onSend}
          title={preview.accepted === 0 ? "No row can be sent: fix the file and check again." : undefined}
        >
          {sending
            ? "Sending…"
            : `${scheduled ? "Schedule" : "Send"} to ${preview.accepted.toLocaleString("en-IN")} recipient${preview.accepted === 1 ? "" : "s"} for ${formatInr(preview.cost)}`}
        </button>
      </div>
    </section>
  );
}
