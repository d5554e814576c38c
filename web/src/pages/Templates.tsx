import { type FormEvent, useCallback, useMemo, useState } from "react";
import {
  ApiError,
  api,
  type NewTemplate,
  type Sender,
  TEMPLATE_CATEGORIES,
  type Template,
  type TemplateCategory,
  type TemplateChange,
} from "../api";
import { Allowed, ReadOnlyNote } from "../components/Allowed";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { CtaWhitelist } from "../components/CtaWhitelist";
import { Dialog } from "../components/Dialog";
import { EmptyState, ErrorNotice, formErrors, Loading, SuccessNotice } from "../components/Feedback";
import { Field, FieldError } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { StatusBadge } from "../components/StatusBadge";
import { TemplateContent } from "../components/TemplateContent";
import { HeadersAsShown, TemplateWarnings } from "../components/TemplateWarnings";
import { TmChainSection } from "../components/TmChainSection";
import { headerSuffix, previewContent, splitContent, takesNumericHeaders } from "../dlt";
import { categoryLabel, formatDateTime } from "../format";
import { useResource } from "../use-resource";

const SENDER_PATTERN = /^([A-Za-z]{6}|\d{6})$/;

export function TemplatesPage() {
  const senders = useResource(useCallback((signal: AbortSignal) => api.listSenders(signal), []));
  const templates = useResource(useCallback((signal: AbortSignal) => api.listTemplates(signal), []));

  return (
    <>
      <PageHeader
        title="Templates & senders"
        description="Your DLT headers and content templates, entered exactly as approved on the DLT portal. They are shared by live and sandbox."
      />
      <SendersSection
        senders={senders.data?.data}
        loading={senders.loading}
        error={senders.error}
        onChanged={senders.reload}
      />
      <TemplatesSection
        templates={templates.data?.data}
        senders={senders.data?.data ?? []}
        loading={templates.loading}
        error={templates.error}
        onChanged={templates.reload}
        onTemplateChanged={(changed) =>
          templates.setData(
            (data) =>
              data && {
                data: data.data.map((template) =>
                  template.template_id === changed.template_id ? changed : template,
                ),
              },
          )
        }
      />
      <CtaWhitelist />
      <TmChainSection />
    </>
  );
}

function SendersSection({
  senders,
  loading,
  error,
  onChanged,
}: {
  senders: Sender[] | undefined;
  loading: boolean;
  error: Error | undefined;
  onChanged(): void;
}) {
  const [draft, setDraft] = useState("");
  const [addError, setAddError] = useState<unknown>();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | undefined>();

  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    const sender = draft.trim();
    if (!SENDER_PATTERN.test(sender)) {
      setAddError(
        new Error(
          "A sender is 6 letters (transactional, service-implicit) or 6 digits (promotional, service-explicit).",
        ),
      );
      return;
    }
    setAdding(true);
    setAddError(undefined);
    try {
      await api.addSender(sender.toUpperCase());
      setDraft("");
      onChanged();
    } catch (caught) {
      setAddError(caught);
    } finally {
      setAdding(false);
    }
  };

  const errors = formErrors(addError, ["sender"]);
  const fieldError = errors.field.sender ?? errors.form;
  return (
    <section className="card" aria-labelledby="senders-title">
      <div className="card-header">
        <h2 id="senders-title">Senders</h2>
        <span className="muted small">DLT headers, shown to the recipient as the sender</span>
      </div>
      <ErrorNotice error={error} />
      {loading && !senders ? <Loading /> : null}
      {senders && senders.length === 0 ? (
        <p className="muted">
          No senders yet. Add the header you registered on the DLT portal, e.g.{" "}
          <span className="mono">DAKIYA</span>.
        </p>
      ) : null}
      {senders && senders.length > 0 ? (
        <ul className="sender-list" aria-label="Registered senders">
          {senders.map((sender) => (
            <li key={sender.sender} className="sender-item">
              <span className="mono sender-name">{sender.sender}</span>
              <span className="muted small">added {formatDateTime(sender.created_at)}</span>
              <Allowed route="DELETE /dashboard/api/senders/:sender">
                <button
                  type="button"
                  className="button button-small button-ghost-danger"
                  onClick={() => setRemoving(sender.sender)}
                  aria-label={`Remove sender ${sender.sender}`}
                >
                  Remove
                </button>
              </Allowed>
            </li>
          ))}
        </ul>
      ) : null}
      <Allowed route="POST /dashboard/api/senders" otherwise={<ReadOnlyNote what="Senders and templates" />}>
        <form className="inline-form" onSubmit={onAdd} noValidate>
          <Field
            label="New sender"
            error={fieldError}
            hint="6 letters for transactional and service-implicit messages, or 6 digits for promotional and service-explicit ones."
          >
            {(control) => (
              <input
                {...control}
                className="mono uppercase"
                maxLength={6}
                autoComplete="off"
                spellCheck={false}
                placeholder="DAKIYA"
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
              />
            )}
          </Field>
          <button type="submit" className="button" disabled={adding}>
            {adding ? "Adding…" : "Add sender"}
          </button>
        </form>
      </Allowed>
      {removing ? (
        <RemoveSenderDialog
          sender={removing}
          onClose={() => setRemoving(undefined)}
          onRemoved={() => {
            setRemoving(undefined);
            onChanged();
          }}
        />
      ) : null}
    </section>
  );
}

function RemoveSenderDialog({
  sender,
  onClose,
  onRemoved,
}: {
  sender: string;
  onClose(): void;
  onRemoved(): void;
}) {
  return (
    <ConfirmDialog
      title={`Remove sender ${sender}?`}
      confirmLabel="Remove sender"
      busyLabel="Removing…"
      onConfirm={async () => {
        await api.removeSender(sender);
        onRemoved();
      }}
      onClose={onClose}
    >
      <p>
        Sends under {sender} will be refused from then on, in live and sandbox. You can add it again later.
      </p>
    </ConfirmDialog>
  );
}

function TemplatesSection({
  templates,
  senders,
  loading,
  error,
  onChanged,
  onTemplateChanged,
}: {
  templates: Template[] | undefined;
  senders: Sender[];
  loading: boolean;
  error: Error | undefined;
  onChanged(): void;
  onTemplateChanged(template: Template): void;
}) {
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string | undefined>();
  const [dialog, setDialog] = useState<{ kind: "edit" | "remove"; template: Template } | undefined>();
  const close = () => setDialog(undefined);

  return (
    <section className="card" aria-labelledby="templates-title">
      <div className="card-header">
        <h2 id="templates-title">Templates</h2>
        {adding ? null : (
          <Allowed route="POST /dashboard/api/templates">
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setAdding(true);
                setNotice(undefined);
              }}
            >
              Add template
            </button>
          </Allowed>
        )}
      </div>
      <p className="muted small">
        Senders are shown as handsets see them: the network adds <span className="mono">-T</span> for
        transactional, <span className="mono">-S</span> for service-implicit and{" "}
        <span className="mono">-P</span> for promotional and service-explicit templates.
      </p>
      {notice ? <SuccessNotice>{notice}</SuccessNotice> : null}
      {adding ? (
        <div className="panel">
          <h3 id="add-template-title" className="panel-title">
            Add a DLT template
          </h3>
          <TemplateForm
            labelledBy="add-template-title"
            senders={senders}
            submitLabel="Add template"
            busyLabel="Adding…"
            onCancel={() => setAdding(false)}
            onSubmit={async (form) => {
              const template = await api.addTemplate({
                ...form,
                template_id: form.template_id.trim(),
                entity_id: form.entity_id.trim(),
                name: form.name.trim(),
              });
              setAdding(false);
              setNotice(`Template ${template.name} added.${withWarnings(template)}`);
              onChanged();
            }}
          />
        </div>
      ) : null}
      <ErrorNotice error={error} />
      {loading && !templates ? <Loading /> : null}
      {templates && templates.length === 0 && !adding ? (
        <EmptyState title="No templates yet">
          <p>
            In India every commercial SMS must match a content template registered on a DLT portal (Jio,
            Airtel, Vi, BSNL…) under your entity id. Register it there first, then add it here with the same
            template id, entity id and content; paste the content as it is,{" "}
            <span className="mono">{"{#var#}"}</span> included.
          </p>
          <Allowed route="POST /dashboard/api/templates">
            <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
              Add your first template
            </button>
          </Allowed>
        </EmptyState>
      ) : null}
      {templates && templates.length > 0 ? (
        <TemplatesTable
          templates={templates}
          onTemplateChanged={onTemplateChanged}
          onEdit={(template) => {
            setNotice(undefined);
            setDialog({ kind: "edit", template });
          }}
          onRemove={(template) => {
            setNotice(undefined);
            setDialog({ kind: "remove", template });
          }}
        />
      ) : null}

      {dialog?.kind === "edit" ? (
        <Dialog title={`Edit template ${dialog.template.name}`} onClose={close} size="wide">
          <EditTemplateForm
            template={dialog.template}
            senders={senders}
            onCancel={close}
            onSaved={(template) => {
              close();
              if (template) {
                onTemplateChanged(template);
                setNotice(`Template ${template.name} saved.${withWarnings(template)}`);
              }
            }}
          />
        </Dialog>
      ) : null}
      {dialog?.kind === "remove" ? (
        <ConfirmDialog
          title={`Remove template ${dialog.template.name}?`}
          confirmLabel="Remove template"
          busyLabel="Removing…"
          onConfirm={async () => {
            await api.removeTemplate(dialog.template.template_id);
            close();
            setNotice(`Template ${dialog.template.name} removed.`);
            onChanged();
          }}
          onClose={close}
        >
          <p>
            Sends with template id <span className="mono">{dialog.template.template_id}</span> will be refused
            from then on, in live and sandbox. Messages already queued still go out with their text.
          </p>
          <p className="muted small">
            This cannot be undone. To stop using it for a while, deactivate it instead.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function TemplatesTable({
  templates,
  onTemplateChanged,
  onEdit,
  onRemove,
}: {
  templates: Template[];
  onTemplateChanged(template: Template): void;
  onEdit(template: Template): void;
  onRemove(template: Template): void;
}) {
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <thead>
          <tr>
            <th scope="col">Template id</th>
            <th scope="col">Name</th>
            <th scope="col">Category</th>
            <th scope="col">Senders</th>
            <th scope="col">Content</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {templates.map((template) => (
            <TemplateRow
              key={template.id}
              template={template}
              onChanged={onTemplateChanged}
              onEdit={() => onEdit(template)}
              onRemove={() => onRemove(template)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TemplateRow({
  template,
  onChanged,
  onEdit,
  onRemove,
}: {
  template: Template;
  onChanged(template: Template): void;
  onEdit(): void;
  onRemove(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const active = template.status === "active";

  const toggle = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onChanged(await api.setTemplateStatus(template.template_id, active ? "inactive" : "active"));
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr>
      <td data-label="Template id" className="mono nowrap">
        {template.template_id}
      </td>
      <td data-label="Name" className="nowrap">
        <strong>{template.name}</strong>
      </td>
      <td data-label="Category">{categoryLabel(template.category)}</td>
      <td data-label="Senders">
        <HeadersAsShown senders={template.senders} category={template.category} />
      </td>
      <td data-label="Content" className="content-cell">
        <TemplateContent pieces={splitContent(template.content)} />
        <TemplateWarnings warnings={template.warnings} name={template.name} />
      </td>
      <td data-label="Status">
        <StatusBadge status={template.status} />
      </td>
      <td data-label="Actions" className="actions-cell">
        <Allowed route="PATCH /dashboard/api/templates/:template_id">
          <div className="row-actions row-actions-stacked">
            <button
              type="button"
              className="button button-small"
              onClick={onEdit}
              aria-label={`Edit template ${template.name}`}
            >
              Edit
            </button>
            <button
              type="button"
              className="button button-small"
              onClick={toggle}
              disabled={busy}
              aria-label={`${active ? "Deactivate" : "Activate"} template ${template.name}`}
            >
              {active ? "Deactivate" : "Activate"}
            </button>
            <button
              type="button"
              className="button button-small button-ghost-danger"
              onClick={onRemove}
              aria-label={`Remove template ${template.name}`}
            >
              Remove
            </button>
          </div>
        </Allowed>
        <ErrorNotice error={error} />
      </td>
    </tr>
  );
}

/** How a notice mentions a saved template's DLT warnings, if it has any. */
function withWarnings(template: Template): string {
  const count = template.warnings.length;
  return count === 0
    ? ""
    : ` It has ${count} DLT warning${count === 1 ? "" : "s"}: open its badge for how to fix.`;
}

/** The fields of an edit that differ from the template as it is; empty when nothing changed. */
function changesOf(template: Template, form: NewTemplate): TemplateChange {
  const change: TemplateChange = {};
  const name = form.name.trim();
  const entityId = form.entity_id.trim();
  if (name !== template.name) change.name = name;
  if (entityId !== template.entity_id) change.entity_id = entityId;
  if (form.category !== template.category) change.category = form.category;
  const sameSenders =
    form.senders.length === template.senders.length &&
    form.senders.every((sender) => template.senders.includes(sender));
  if (!sameSenders) change.senders = form.senders;
  if (form.content.trim() !== template.content) change.content = form.content;
  const justification = form.variables_justification.trim();
  if (justification !== (template.variables_justification ?? ""))
    change.variables_justification = justification;
  return change;
}

function EditTemplateForm({
  template,
  senders,
  onCancel,
  onSaved,
}: {
  template: Template;
  senders: Sender[];
  onCancel(): void;
  /** With the saved template, or nothing when no field had changed. */
  onSaved(template: Template | undefined): void;
}) {
  return (
    <TemplateForm
      labelledBy={undefined}
      label={`Edit template ${template.name}`}
      senders={senders}
      initial={template}
      submitLabel="Save changes"
      busyLabel="Saving…"
      note="Messages already sent or queued keep their text; new sends use the template as saved here."
      onCancel={onCancel}
      onSubmit={async (form) => {
        const change = changesOf(template, form);
        onSaved(
          Object.keys(change).length === 0
            ? undefined
            : await api.updateTemplate(template.template_id, change),
        );
      }}
    />
  );
}

const TEMPLATE_FIELDS = [
  "template_id",
  "entity_id",
  "name",
  "category",
  "senders",
  "content",
  "variables_justification",
] as const;
const EMPTY_TEMPLATE: NewTemplate = {
  template_id: "",
  entity_id: "",
  name: "",
  category: "transactional",
  senders: [],
  content: "",
  variables_justification: "",
};

/**
 * The fields of a DLT template, to add one or, given `initial`, to edit it (its template id then
 * stays as it is). Content is checked as it is typed by the server's own rule, and a refusal is
 * shown once, under the content, whether it came from that check or from the server.
 */
function TemplateForm({
  labelledBy,
  label,
  senders,
  initial,
  submitLabel,
  busyLabel,
  note,
  onCancel,
  onSubmit,
}: {
  labelledBy: string | undefined;
  label?: string;
  senders: Sender[];
  initial?: Template;
  submitLabel: string;
  busyLabel: string;
  note?: string;
  onCancel(): void;
  onSubmit(form: NewTemplate): Promise<void>;
}) {
  const [form, setForm] = useState<NewTemplate>(() =>
    initial
      ? {
          template_id: initial.template_id,
          entity_id: initial.entity_id,
          name: initial.name,
          category: initial.category,
          senders: initial.senders,
          content: initial.content,
          variables_justification: initial.variables_justification ?? "",
        }
      : EMPTY_TEMPLATE,
  );
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const preview = useMemo(() => previewContent(form.content), [form.content]);
  const editing = initial !== undefined;

  const update = <K extends keyof NewTemplate>(name: K, value: NewTemplate[K]) => {
    setForm((current) => ({ ...current, [name]: value }));
    // A refusal of a field is about the field as it was: a new value gets checked afresh.
    if (
      (name === "content" || name === "variables_justification") &&
      error instanceof ApiError &&
      error.param === name
    ) {
      setError(undefined);
    }
  };

  const toggleSender = (sender: string, checked: boolean) =>
    update(
      "senders",
      checked ? [...form.senders, sender] : form.senders.filter((candidate) => candidate !== sender),
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (preview.problem) {
      setError(new ApiError(400, "invalid_request", preview.problem, "content"));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(form);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const errors = formErrors(error, TEMPLATE_FIELDS);
  // One message for the content: the live check's while it finds a problem (in the server's own
  // words), otherwise what the server said about this very content (e.g. an OTP template's rule).
  const contentError = (form.content.trim() ? preview.problem : undefined) ?? errors.field.content;
  return (
    <form
      className="form"
      onSubmit={submit}
      noValidate
      aria-labelledby={labelledBy}
      aria-label={labelledBy ? undefined : label}
    >
      <ErrorNotice error={errors.form} />
      <div className="form-grid">
        <Field
          label="Template id"
          error={errors.field.template_id}
          hint={
            editing
              ? "The DLT id stays; for another id, add a template."
              : "The DLT content template id (digits)."
          }
        >
          {(control) => (
            <input
              {...control}
              className="mono"
              inputMode="numeric"
              autoComplete="off"
              placeholder="1107161234567890123"
              value={form.template_id}
              disabled={editing}
              onChange={(event) => update("template_id", event.target.value)}
            />
          )}
        </Field>
        <Field label="Entity id" error={errors.field.entity_id} hint="Your principal entity (PE) id on DLT.">
          {(control) => (
            <input
              {...control}
              className="mono"
              inputMode="numeric"
              autoComplete="off"
              placeholder="1101456789012345678"
              value={form.entity_id}
              onChange={(event) => update("entity_id", event.target.value)}
            />
          )}
        </Field>
        <Field label="Name" error={errors.field.name} hint="For you, e.g. login-code.">
          {(control) => (
            <input
              {...control}
              autoComplete="off"
              value={form.name}
              onChange={(event) => update("name", event.target.value)}
            />
          )}
        </Field>
        <Field label="Category" error={errors.field.category}>
          {(control) => (
            <select
              {...control}
              value={form.category}
              onChange={(event) => update("category", event.target.value as TemplateCategory)}
            >
              {TEMPLATE_CATEGORIES.map((category) => (
                <option key={category} value={category}>
                  {categoryLabel(category)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      <fieldset className={`field checkbox-group${errors.field.senders ? " field-invalid" : ""}`}>
        <legend>Senders</legend>
        {senders.length === 0 ? (
          <p className="field-hint">
            Add a sender above first: a template goes out under the senders you tick here.
          </p>
        ) : (
          <div className="checkbox-row">
            {senders.map((sender) => (
              <label key={sender.sender} className="checkbox">
                <input
                  type="checkbox"
                  checked={form.senders.includes(sender.sender)}
                  onChange={(event) => toggleSender(sender.sender, event.target.checked)}
                />
                <span className="mono">{sender.sender}</span>
              </label>
            ))}
          </div>
        )}
        {senders.length > 0 ? (
          <p className="field-hint">
            {takesNumericHeaders(form.category) ? "6-digit headers" : "6-letter headers"}; handsets show them
            with <span className="mono">{headerSuffix(form.category)}</span>.
          </p>
        ) : null}
        <FieldError message={errors.field.senders} />
      </fieldset>

      <Field
        label="Content"
        error={contentError}
        hint={
          <>
            Paste the approved text as it is. Bare <span className="mono">{"{#var#}"}</span> become var1,
            var2, … in order; name a placeholder yourself with <span className="mono">{"{#otp#}"}</span>.
          </>
        }
      >
        {(control) => (
          <textarea
            {...control}
            rows={4}
            value={form.content}
            placeholder="Your verification code is {#otp#}. Do not share it with anyone."
            onChange={(event) => update("content", event.target.value)}
          />
        )}
      </Field>

      {form.content.trim() ? (
        <div className="preview" aria-live="polite">
          <p className="preview-title">Preview</p>
          <p className="preview-text">
            <TemplateContent pieces={preview.pieces} />
          </p>
          <p className="small">
            Placeholders:{" "}
            {preview.placeholders.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              preview.placeholders.map((name) => (
                <span key={name} className="placeholder-chip">
                  {name}
                </span>
              ))
            )}
          </p>
        </div>
      ) : null}

      <Field
        label="Variables justification"
        error={errors.field.variables_justification}
        hint="Needed when the template has more than 3 variables: the justification you gave on the DLT portal."
      >
        {(control) => (
          <textarea
            {...control}
            rows={2}
            maxLength={1000}
            value={form.variables_justification}
            placeholder="Booking reference, coach, seat and departure time of each ticket."
            onChange={(event) => update("variables_justification", event.target.value)}
          />
        )}
      </Field>

      {note ? <p className="muted small">{note}</p> : null}
      <div className="form-actions">
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
