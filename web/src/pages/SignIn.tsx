import { type FormEvent, useState } from "react";
import { Navigate, useLocation, useNavigate } from "react-router";
import { ApiError } from "../api";
import { AuthCard } from "../components/AuthCard";
import { ErrorNotice, Loading } from "../components/Feedback";
import { Field } from "../components/Field";
import { SecondFactorForm } from "../components/SecondFactorForm";
import { useSession } from "../session";

export function SignInPage() {
  const { state, signIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const [challenge, setChallenge] = useState<string | undefined>();
  const from = (location.state as { from?: string } | null)?.from ?? "/";

  if (state.status === "loading") {
    return (
      <div className="center-screen">
        <Loading />
      </div>
    );
  }
  if (state.status === "signed-in" && !submitting) return <Navigate to={from} replace />;
  if (state.status === "signed-out" && state.setupNeeded) return <Navigate to="/setup" replace />;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitting(true);
    setError(undefined);
    try {
      const outcome = await signIn(email.trim(), password);
      if (outcome.signedIn) {
        navigate(from, { replace: true });
        return;
      }
      setPassword("");
      setChallenge(outcome.challenge);
      setSubmitting(false);
    } catch (caught) {
      setError(signInErrorMessage(caught));
      setSubmitting(false);
    }
  };

  if (challenge) {
    return (
      <AuthCard title="Two-factor sign-in" intro={<p className="auth-identity">{email.trim()}</p>}>
        <SecondFactorForm
          challenge={challenge}
          onSignedIn={() => navigate(from, { replace: true })}
          onEnded={(message) => {
            setChallenge(undefined);
            setError(message);
          }}
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Sign in to Dakiya">
      <form className="form" onSubmit={onSubmit} noValidate>
        <ErrorNotice error={error} />
        <Field label="Email">
          {(control) => (
            <input
              {...control}
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
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
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </AuthCard>
  );
}

function signInErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) {
    if (error.retryAfterSeconds !== undefined) {
      const minutes = Math.max(1, Math.ceil(error.retryAfterSeconds / 60));
      return `Too many attempts, try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
    }
    return error.message;
  }
  return error instanceof Error ? error.message : "Could not sign in.";
}
