import { type FormEvent, useState } from "react";
import { ApiError, api, type TwoFactorSetup } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorNotice, SuccessNotice } from "../components/Feedback";
import { Field } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { AuthenticatorCodeField } from "../components/SecondFactorForm";
import { useSession, useSignedIn } from "../session";
import { useCopySecret } from "../use-copy-secret";

const POLICY_ROUTE = "PATCH /dashboard/api/two-factor/policy";

/** Settings → Security: the member's own two-factor sign-in, and (owners) the account's rule. */
export function SecurityPage() {
  const { mustSetUpTwoFactor, can } = useSignedIn();
  return (
    <>
      <PageHeader title="Security" description="How you sign in to this account's console." />
      {mustSetUpTwoFactor ? (
        <div className="notice notice-warning security-required" role="alert">
          This account requires two-factor sign-in for every member. Set it up below to continue: until then,
          the rest of the console stays closed to you.
        </div>
      ) : null}
      <TwoFactorCard />
      {can(POLICY_ROUTE) ? <PolicyCard /> : null}
    </>
  );
}

type Dialogs = "disable" | "new-codes" | undefined;

function TwoFactorCard() {
  const { member, account } = useSignedIn();
  const { refresh } = useSession();
  const [setup, setSetup] = useState<TwoFactorSetup | undefined>();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | undefined>();
  const [dialog, setDialog] = useState<Dialogs>();
  const [notice, setNotice] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [starting, setStarting] = useState(false);

  const start = async () => {
    setStarting(true);
    setError(undefined);
    setNotice(undefined);
    try {
      setSetup(await api.setUpTwoFactor());
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section className="card" aria-labelledby="two-factor-title">
      <div className="card-header">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        <span className={`badge ${member.two_factor ? "badge-green" : "badge-grey"}`}>
          {member.two_factor ? "On" : "Off"}
        </span>
      </div>
      {notice ? <SuccessNotice>{notice}</SuccessNotice> : null}
      <ErrorNotice error={error} />

      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(undefined)} />
      ) : setup ? (
        <Enrolment
          setup={setup}
          email={member.email}
          onCancel={() => setSetup(undefined)}
          onEnabled={async (codes) => {
            setSetup(undefined);
            setRecoveryCodes(codes);
            await refresh();
          }}
        />
      ) : member.two_factor ? (
        <>
          <p className="section-intro">
            Signing in asks for your password and a 6-digit code from your authenticator app. If you lose your
            phone, sign in with one of your recovery codes; each works once.
          </p>
          <div className="card-actions">
            <button type="button" className="button" onClick={() => setDialog("new-codes")}>
              New recovery codes
            </button>
            <button
              type="button"
              className="button button-ghost-danger card-actions-end"
              onClick={() => setDialog("disable")}
              disabled={account.require_two_factor}
            >
              Turn off
            </button>
          </div>
          {account.require_two_factor ? (
            <p className="field-hint security-hint">
              This account requires two-factor sign-in, so it cannot be turned off. An owner can lift the
              requirement below.
            </p>
          ) : null}
        </>
      ) : (
        <>
          <p className="section-intro">
            Protect your sign-in with a second step: after your password, a 6-digit code from an authenticator
            app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Authy or any other
            TOTP app).
          </p>
          <button type="button" className="button button-primary" onClick={start} disabled={starting}>
            {starting ? "Preparing…" : "Set up two-factor sign-in"}
          </button>
        </>
      )}

      {dialog === "disable" ? (
        <PasswordDialog
          title="Turn off two-factor sign-in?"
          explanation="Signing in will ask for your password only. Your recovery codes stop working."
          confirmLabel="Turn off"
          tone="danger"
          onClose={() => setDialog(undefined)}
          onConfirm={async (password) => {
            await api.disableTwoFactor(password);
            setDialog(undefined);
            setNotice("Two-factor sign-in is off.");
            await refresh();
          }}
        />
      ) : null}
      {dialog === "new-codes" ? (
        <PasswordDialog
          title="New recovery codes"
          explanation="Ten new codes replace your current ones: the old codes stop working, used or not."
          confirmLabel="Make new codes"
          onClose={() => setDialog(undefined)}
          onConfirm={async (password) => {
            const { recovery_codes } = await api.newRecoveryCodes(password);
            setDialog(undefined);
            setRecoveryCodes(recovery_codes);
          }}
        />
      ) : null}
    </section>
  );
}

/** Scan (or type) the secret, then confirm with a code: nothing changes until the code is right. */
function Enrolment({
  setup,
  email,
  onCancel,
  onEnabled,
}: {
  setup: TwoFactorSetup;
  email: string;
  onCancel(): void;
  onEnabled(codes: string[]): Promise<void>;
}) {
  const [code, setCode] = useState("");
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { recovery_codes } = await api.enableTwoFactor(code.trim());
      await onEnabled(recovery_codes);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(false);
    }
  };
  const codeError = error instanceof ApiError && error.param === "code" ? error.message : undefined;

  return (
    <div className="enrolment">
      <ol className="enrolment-steps">
        <li>
          <h3>Scan this QR code with your authenticator app</h3>
          <div className="enrolment-key">
            <img
              className="qr-code"
              src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`}
              alt={`QR code to add Dakiya (${email}) to an authenticator app`}
              width={180}
              height={180}
            />
            <div className="enrolment-manual">
              <p className="muted small">Cannot scan it? Choose to enter a setup key in the app and type:</p>
              <SetupKey secret={setup.secret} />
              <p className="muted small">Account: {email} · time-based · 6 digits</p>
            </div>
          </div>
        </li>
        <li>
          <h3>Type the 6-digit code the app shows</h3>
          <form className="inline-form enrolment-confirm" onSubmit={submit} noValidate>
            {codeError ? null : <ErrorNotice error={error} />}
            <AuthenticatorCodeField value={code} onChange={setCode} error={codeError} />
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? "Checking…" : "Turn on"}
            </button>
            <button type="button" className="button button-ghost" onClick={onCancel}>
              Cancel
            </button>
          </form>
        </li>
      </ol>
    </div>
  );
}

/** The secret in groups of four, as authenticator apps accept it typed, with a copy button. */
function SetupKey({ secret }: { secret: string }) {
  const { outcome, copy } = useCopySecret(secret);
  return (
    <div className="setup-key">
      <code className="mono setup-key-text" data-testid="two-factor-secret">
        {secret.match(/.{1,4}/g)?.join(" ")}
      </code>
      <button type="button" className="button button-small" onClick={copy}>
        {outcome === "copied" ? "Copied" : "Copy"}
      </button>
    </div>
  );
}

/** Shown once: the member keeps them somewhere other than the phone. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  const text = `Dakiya recovery codes (each works once)\n\n${codes.join("\n")}\n`;
  const { boxRef, outcome, copy } = useCopySecret(text);
  const download = () => {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    link.download = "dakiya-recovery-codes.txt";
    link.click();
    URL.revokeObjectURL(link.href);
  };
  return (
    <div className="recovery-codes">
      <p className="notice notice-warning" role="alert">
        Save these recovery codes now: they are shown once. If you lose your phone, each of them signs you in
        once instead of a code from the app.
      </p>
      <ul className="recovery-code-list mono" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <textarea
        ref={boxRef}
        className="visually-hidden"
        readOnly
        value={text}
        tabIndex={-1}
        aria-hidden="true"
      />
      <p className="field-hint" aria-live="polite">
        {outcome === "selected" ? "Your browser blocked copying: press Ctrl+C or ⌘C." : null}
      </p>
      <div className="card-actions">
        <button type="button" className="button" onClick={copy}>
          {outcome === "copied" ? "Copied" : "Copy codes"}
        </button>
        <button type="button" className="button" onClick={download}>
          Download
        </button>
        <button type="button" className="button button-primary card-actions-end" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

function PasswordDialog({
  title,
  explanation,
  confirmLabel,
  tone = "default",
  onClose,
  onConfirm,
}: {
  title: string;
  explanation: string;
  confirmLabel: string;
  tone?: "default" | "danger";
  onClose(): void;
  onConfirm(password: string): Promise<void>;
}) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm(password);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(false);
    }
  };
  const passwordError = error instanceof ApiError && error.param === "password" ? error.message : undefined;
  return (
    <Dialog title={title} onClose={onClose} tone={tone}>
      <form className="form" onSubmit={submit} noValidate>
        <p>{explanation}</p>
        {passwordError ? null : <ErrorNotice error={error} />}
        <Field label="Your password" error={passwordError}>
          {(control) => (
            <input
              {...control}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          )}
        </Field>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className={`button ${tone === "danger" ? "button-danger" : "button-primary"}`}
            disabled={busy}
          >
            {busy ? "Checking…" : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Owners: whether every member must sign in with a second factor. */
function PolicyCard() {
  const { account, member } = useSignedIn();
  const { refresh } = useSession();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  // Shown at once, and put back if the server refuses.
  const [required, setRequired] = useState(account.require_two_factor);

  const change = async (next: boolean) => {
    setBusy(true);
    setError(undefined);
    setRequired(next);
    try {
      await api.requireTwoFactor(next);
      await refresh();
    } catch (caught) {
      setRequired(!next);
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    } finally {
      setBusy(false);
    }
  };
  const blocked = !required && !member.two_factor;

  return (
    <section className="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Account policy</h2>
      <ErrorNotice error={error} />
      <label className="policy-toggle">
        <input
          type="checkbox"
          checked={required}
          disabled={busy || blocked}
          onChange={(event) => void change(event.target.checked)}
        />
        <span>
          <strong>Require two-factor sign-in for every member</strong>
          <span className="muted small">
            Members without it can sign in, but can use nothing until they set it up, and nobody can turn
            theirs off.
          </span>
        </span>
      </label>
      {blocked ? (
        <p className="field-hint security-hint policy-hint">Turn on two-factor sign-in for yourself first.</p>
      ) : null}
    </section>
  );
}
