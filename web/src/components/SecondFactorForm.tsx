import { type FormEvent, useState } from "react";
import { ApiError } from "../api";
import { useSession } from "../session";
import { ErrorNotice } from "./Feedback";
import { Field } from "./Field";

/**
 * The second step of signing in: the 6-digit code of the member's authenticator app, or one of
 * their recovery codes. `onEnded` runs when the challenge is no longer valid (5 minutes, or used),
 * to go back to the password.
 */
export function SecondFactorForm({
  challenge,
  onSignedIn,
  onEnded,
}: {
  challenge: string;
  onSignedIn(): void;
  onEnded(message: string): void;
}) {
  const { answerChallenge } = useSession();
  const [useRecoveryCode, setUseRecoveryCode] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitting(true);
    setError(undefined);
    try {
      await answerChallenge(
        challenge,
        useRecoveryCode ? { recovery_code: code.trim() } : { code: code.trim() },
      );
      onSignedIn();
    } catch (caught) {
      setSubmitting(false);
      if (caught instanceof ApiError && caught.param === "challenge") {
        onEnded(caught.message);
        return;
      }
      setError(secondFactorErrorMessage(caught));
    }
  };

  const switchKind = () => {
    setUseRecoveryCode((current) => !current);
    setCode("");
    setError(undefined);
  };

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <p className="muted">
        {useRecoveryCode
          ? "Type one of the recovery codes you saved when you turned on two-factor sign-in. Each works once."
          : "Open your authenticator app and type the 6-digit code it shows for Dakiya."}
      </p>
      <ErrorNotice error={error} />
      {useRecoveryCode ? (
        <Field label="Recovery code" key="recovery">
          {(control) => (
            <input
              {...control}
              className="mono"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              required
              placeholder="xxxx-xxxx-xxxx-xxxx"
              value={code}
              onChange={(event) => setCode(event.target.value)}
            />
          )}
        </Field>
      ) : (
        <AuthenticatorCodeField key="code" value={code} onChange={setCode} />
      )}
      <button type="submit" className="button button-primary button-block" disabled={submitting}>
        {submitting ? "Checking…" : "Verify and sign in"}
      </button>
      <button type="button" className="link-button" onClick={switchKind}>
        {useRecoveryCode ? "Use a code from your authenticator app" : "Use a recovery code instead"}
      </button>
    </form>
  );
}

function secondFactorErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 429 && error.retryAfterSeconds !== undefined) {
    const minutes = Math.max(1, Math.ceil(error.retryAfterSeconds / 60));
    return `Too many codes tried. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
  }
  return error instanceof Error ? error.message : "Could not check the code.";
}

/** The 6-digit code of an authenticator app (a space in the middle allowed), as sign-in and enrolment ask for it. */
export function AuthenticatorCodeField(props: {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}) {
  return (
    <Field label="Authentication code" error={props.error}>
      {(control) => (
        <input
          {...control}
          className="mono code-input"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9 ]*"
          maxLength={7}
          required
          placeholder="123456"
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
