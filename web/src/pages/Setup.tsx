import { type FormEvent, useState } from "react";
import { Navigate, useNavigate } from "react-router";
import { AuthCard } from "../components/AuthCard";
import { ErrorNotice, formErrors, Loading } from "../components/Feedback";
import { Field } from "../components/Field";
import { NewPasswordField, newPasswordError } from "../components/NewPasswordField";
import { useSession } from "../session";

export function SetupPage() {
  const { state, setUp } = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [submitting, setSubmitting] = useState(false);

  if (state.status === "loading") {
    return (
      <div className="center-screen">
        <Loading />
      </div>
    );
  }
  if (state.status === "signed-in" && !submitting) return <Navigate to="/" replace />;
  if (state.status === "signed-out" && !state.setupNeeded) return <Navigate to="/signin" replace />;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const tooShort = newPasswordError(password);
    if (tooShort) {
      setError(tooShort);
      return;
    }
    setSubmitting(true);
    setError(undefined);
    try {
      await setUp(email.trim(), password);
      navigate("/", { replace: true });
    } catch (caught) {
      setError(caught);
      setSubmitting(false);
    }
  };

  const errors = formErrors(error, ["email", "password"]);
  return (
    <AuthCard
      title="Create the first account"
      intro={
        <p className="muted">
          This installation has no account yet. The account you create now owns it: its API keys, credits,
          senders and templates. You can sign in with it right after.
        </p>
      }
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <ErrorNotice error={errors.form} />
        <Field label="Email" error={errors.field.email}>
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
        <NewPasswordField value={password} onChange={setPassword} error={errors.field.password} />
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? "Creating account…" : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}
