import { type FormEvent, Fragment, useCallback, useState } from "react";
import {
  type ApiKey,
  type ApiKeyWithSecret,
  api,
  ENVIRONMENTS,
  type Environment,
  KEY_SCOPES,
  type KeyScope,
} from "../api";
import { Allowed } from "../components/Allowed";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Dialog } from "../components/Dialog";
import { EmptyState, ErrorNotice, formErrors, Loading, SuccessNotice } from "../components/Feedback";
import { Field, FieldError } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { SecretReveal } from "../components/SecretReveal";
import { useEnvironment } from "../environment";
import { formatDate, formatDateTime, formatRelative } from "../format";
import { useResource } from "../use-resource";

const GRACE_PERIODS: ReadonlyArray<{ seconds: number; label: string; explain: string }> = [
  { seconds: 0, label: "Immediately", explain: "The old key stops working now." },
  { seconds: 3_600, label: "1 hour", explain: "Both keys work for an hour." },
  { seconds: 86_400, label: "24 hours", explain: "Both keys work for a day." },
  { seconds: 604_800, label: "7 days", explain: "Both keys work for a week." },
];

const SCOPES: Record<KeyScope, { label: string; explain: string; badge: string }> = {
  full: { label: "Full access", explain: "Every /v2/ route.", badge: "badge-grey" },
  send: {
    label: "Send only",
    explain: "Only sending SMS (single and batch) and OTPs, and verifying codes.",
    badge: "badge-blue",
  },
  read: {
    label: "Read only",
    explain: "Only GET requests: balance, messages, OTPs, events, webhooks.",
    badge: "badge-violet",
  },
};

/** At most this many addresses or ranges on one key; the server checks each and says what to write instead. */
const MAX_ALLOWED_IPS = 20;

/** The allowlist as typed: one address or CIDR per line (commas and spaces also separate them). */
function allowedIpsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

type Dialogs =
  | { kind: "create" }
  | { kind: "rotate"; key: ApiKey }
  | { kind: "delete"; key: ApiKey }
  | { kind: "secret"; key: ApiKeyWithSecret; title: string };

/** The key as the console shows it: its prefix and, where kept, its last four characters. */
function shownKey(key: ApiKey): string {
  return `${key.prefix}…${key.last_four ?? ""}`;
}

function keyName(key: ApiKey): string {
  return key.label ?? shownKey(key);
}

export function ApiKeysPage() {
  const { environment } = useEnvironment();
  const keys = useResource(
    useCallback((signal: AbortSignal) => api.listKeys(environment, signal), [environment]),
  );
  const [dialog, setDialog] = useState<Dialogs | undefined>();
  const [notice, setNotice] = useState<string | undefined>();

  const close = () => setDialog(undefined);

  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys authenticate calls to <span className="mono">/v2/</span> as{" "}
            <span className="mono">Authorization: Bearer dk_…</span>. Sandbox keys spend test credits and
            deliver to the sandbox inbox; live keys send real messages.
          </>
        }
        actions={
          <Allowed route="POST /dashboard/api/keys">
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setNotice(undefined);
                setDialog({ kind: "create" });
              }}
            >
              Create key
            </button>
          </Allowed>
        }
      />
      {notice ? <SuccessNotice>{notice}</SuccessNotice> : null}
      <ErrorNotice error={keys.error} />
      <section className="card card-flush" aria-label={`${environment} keys`}>
        {keys.loading && !keys.data ? <Loading /> : null}
        {keys.data && keys.data.data.length === 0 ? (
          <EmptyState title={`No ${environment} keys`}>
            <p>Create a key to call the API.</p>
            <Allowed route="POST /dashboard/api/keys">
              <button
                type="button"
                className="button button-primary"
                onClick={() => setDialog({ kind: "create" })}
              >
                Create a {environment} key
              </button>
            </Allowed>
          </EmptyState>
        ) : null}
        {keys.data && keys.data.data.length > 0 ? (
          <KeysTable
            keys={keys.data.data}
            onRotate={(key) => setDialog({ kind: "rotate", key })}
            onDelete={(key) => setDialog({ kind: "delete", key })}
          />
        ) : null}
      </section>

      {dialog?.kind === "create" ? (
        <CreateKeyDialog
          defaultEnvironment={environment}
          onClose={close}
          onCreated={(key) => {
            setDialog({ kind: "secret", key, title: `Your new ${key.environment} key` });
            if (key.environment !== environment) {
              setNotice(
                `The key was created in ${key.environment}: switch to ${key.environment} mode to see it.`,
              );
            }
            keys.reload();
          }}
        />
      ) : null}
      {dialog?.kind === "rotate" ? (
        <RotateKeyDialog
          apiKey={dialog.key}
          onClose={close}
          onRotated={(key) => {
            setDialog({ kind: "secret", key, title: "Your rotated key" });
            keys.reload();
          }}
        />
      ) : null}
      {dialog?.kind === "delete" ? (
        <DeleteKeyDialog
          apiKey={dialog.key}
          onClose={close}
          onDeleted={() => {
            setNotice(`Key ${keyName(dialog.key)} deleted.`);
            close();
            keys.setData((data) => data && { data: data.data.filter((key) => key.id !== dialog.key.id) });
            keys.reload();
          }}
        />
      ) : null}
      {dialog?.kind === "secret" ? (
        <Dialog title={dialog.title} onClose={close} dismissible={false}>
          <SecretReveal secret={dialog.key.secret} onDone={close} />
        </Dialog>
      ) : null}
    </>
  );
}

/** A CIDR that may wrap only after an IPv6 colon, so a long IPv6 range wraps by its groups and never widens the table. */
function CidrText({ cidr }: { cidr: string }) {
  const groups = cidr.split(":");
  return (
    <>
      {groups.map((group, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the groups of one address never move
        <Fragment key={index}>
          {group}
          {index < groups.length - 1 ? (
            <>
              :<wbr />
            </>
          ) : null}
        </Fragment>
      ))}
    </>
  );
}

function KeysTable({
  keys,
  onRotate,
  onDelete,
}: {
  keys: ApiKey[];
  onRotate(key: ApiKey): void;
  onDelete(key: ApiKey): void;
}) {
  return (
    <div className="table-wrap">
      <table className="table table-stack keys-table">
        <thead>
          <tr>
            <th scope="col">Label</th>
            <th scope="col">Key</th>
            <th scope="col">Scope</th>
            <th scope="col">Allowed IPs</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td data-label="Label" className="key-label">
                {key.label ? <strong>{key.label}</strong> : <span className="muted">No label</span>}
              </td>
              <td data-label="Key" className="mono nowrap">
                {shownKey(key)}
              </td>
              <td data-label="Scope" className="nowrap">
                <span className={`badge ${SCOPES[key.scope].badge}`} title={SCOPES[key.scope].explain}>
                  {key.scope}
                </span>
              </td>
              <td data-label="Allowed IPs" className="key-ips">
                {key.allowed_ips ? (
                  <ul className="cidr-list">
                    {key.allowed_ips.map((cidr) => (
                      <li key={cidr} className="mono">
                        <CidrText cidr={cidr} />
                      </li>
                    ))}
                  </ul>
                ) : (
                  <span className="muted">Any address</span>
                )}
              </td>
              <td data-label="Created" className="nowrap">
                <time dateTime={key.created_at} title={formatDateTime(key.created_at)}>
                  {formatDate(key.created_at)}
                </time>
              </td>
              <td data-label="Last used" className="nowrap">
                {key.last_used_at ? (
                  <time dateTime={key.last_used_at} title={formatDateTime(key.last_used_at)}>
                    {formatRelative(key.last_used_at)}
                  </time>
                ) : (
                  <span className="muted">never</span>
                )}
              </td>
              <td data-label="Expires" className="nowrap">
                {key.expires_at ? (
                  <time
                    className="badge badge-amber"
                    dateTime={key.expires_at}
                    title={formatDateTime(key.expires_at)}
                  >
                    {formatRelative(key.expires_at)}
                  </time>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td data-label="Actions" className="actions-cell">
                <Allowed route="POST /dashboard/api/keys/:id/rotate">
                  <div className="row-actions">
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => onRotate(key)}
                      aria-label={`Rotate key ${keyName(key)}`}
                      disabled={key.expires_at !== null}
                      title={
                        key.expires_at ? "Already rotated: it stops working when it expires." : undefined
                      }
                    >
                      Rotate
                    </button>
                    <button
                      type="button"
                      className="button button-small button-ghost-danger"
                      onClick={() => onDelete(key)}
                      aria-label={`Delete key ${keyName(key)}`}
                    >
                      Delete
                    </button>
                  </div>
                </Allowed>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CreateKeyDialog({
  defaultEnvironment,
  onClose,
  onCreated,
}: {
  defaultEnvironment: Environment;
  onClose(): void;
  onCreated(key: ApiKeyWithSecret): void;
}) {
  const [environment, setEnvironment] = useState<Environment>(defaultEnvironment);
  const [label, setLabel] = useState("");
  const [scope, setScope] = useState<KeyScope>("full");
  const [allowedIps, setAllowedIps] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const ips = allowedIpsOf(allowedIps);
    try {
      onCreated(
        await api.createKey({
          environment,
          scope,
          ...(label.trim() ? { label: label.trim() } : {}),
          ...(ips.length > 0 ? { allowed_ips: ips } : {}),
        }),
      );
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const errors = formErrors(error, ["environment", "label", "scope", "allowed_ips"]);
  return (
    <Dialog title="Create an API key" onClose={onClose}>
      <form className="form" onSubmit={onSubmit} noValidate>
        <ErrorNotice error={errors.form} />
        <fieldset className="field">
          <legend>Environment</legend>
          <div className="choice-row">
            {ENVIRONMENTS.map((value) => (
              <label key={value} className={`choice choice-${value}`}>
                <input
                  type="radio"
                  name="environment"
                  value={value}
                  checked={environment === value}
                  onChange={() => setEnvironment(value)}
                />
                <span>
                  <strong>{value === "live" ? "Live" : "Sandbox"}</strong>
                  <span className="muted small">
                    {value === "live"
                      ? "Real messages, real credits"
                      : "Test data; nothing leaves this machine"}
                  </span>
                </span>
              </label>
            ))}
          </div>
          <FieldError message={errors.field.environment} />
        </fieldset>
        <Field
          label="Label (optional)"
          error={errors.field.label}
          hint="Where the key is used, e.g. checkout-service."
        >
          {(control) => (
            <input
              {...control}
              maxLength={64}
              autoComplete="off"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
            />
          )}
        </Field>
        <fieldset className="field">
          <legend>Scope</legend>
          <div className="choice-list">
            {KEY_SCOPES.map((value) => (
              <label key={value} className="choice choice-compact">
                <input
                  type="radio"
                  name="scope"
                  value={value}
                  checked={scope === value}
                  onChange={() => setScope(value)}
                />
                <span>
                  <strong>{SCOPES[value].label}</strong>
                  <span className="muted small">{SCOPES[value].explain}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldError message={errors.field.scope} />
        </fieldset>
        <Field
          label="Allowed IPs (optional)"
          error={errors.field.allowed_ips}
          hint={`One address or CIDR per line, up to ${MAX_ALLOWED_IPS}, e.g. 203.0.113.0/24 or 2001:db8::/32. Empty: any address.`}
        >
          {(control) => (
            <textarea
              {...control}
              className="mono"
              rows={3}
              autoComplete="off"
              spellCheck={false}
              placeholder={"203.0.113.0/24\n2001:db8::/32"}
              value={allowedIps}
              onChange={(event) => setAllowedIps(event.target.value)}
            />
          )}
        </Field>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RotateKeyDialog({
  apiKey,
  onClose,
  onRotated,
}: {
  apiKey: ApiKey;
  onClose(): void;
  onRotated(key: ApiKeyWithSecret): void;
}) {
  const [graceSeconds, setGraceSeconds] = useState(0);
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await api.rotateKey(apiKey.id, graceSeconds);
      onRotated(result.key);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(false);
    }
  };

  return (
    <Dialog title={`Rotate key ${keyName(apiKey)}`} onClose={onClose}>
      <form className="form" onSubmit={onSubmit}>
        <p>
          A new key replaces <span className="mono">{shownKey(apiKey)}</span> with the same environment,
          label, scope and allowed IPs. Keep the old one working while your deployments switch over:
        </p>
        <fieldset className="field">
          <legend>Old key stops working</legend>
          <div className="choice-list">
            {GRACE_PERIODS.map((period) => (
              <label key={period.seconds} className="choice">
                <input
                  type="radio"
                  name="grace"
                  value={period.seconds}
                  checked={graceSeconds === period.seconds}
                  onChange={() => setGraceSeconds(period.seconds)}
                />
                <span>
                  <strong>{period.label}</strong>
                  <span className="muted small">{period.explain}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorNotice error={error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? "Rotating…" : "Rotate key"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteKeyDialog({
  apiKey,
  onClose,
  onDeleted,
}: {
  apiKey: ApiKey;
  onClose(): void;
  onDeleted(): void;
}) {
  return (
    <ConfirmDialog
      title={`Delete key ${keyName(apiKey)}?`}
      confirmLabel="Delete key"
      busyLabel="Deleting…"
      onConfirm={async () => {
        await api.deleteKey(apiKey.id);
        onDeleted();
      }}
      onClose={onClose}
    >
      <p>
        Requests with this key will fail at once. Key <span className="mono">{shownKey(apiKey)}</span> cannot
        be restored.
      </p>
    </ConfirmDialog>
  );
}
