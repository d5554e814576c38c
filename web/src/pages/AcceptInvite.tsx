import { type FormEvent, useState } from "react";
import { useNavigate, useParams } from "react-router";
import { AuthCard } from "../components/AuthCard";
import { ErrorNotice, formErrors } from "../components/Feedback";
import { NewPasswordField, newPasswordError } from "../components/NewPasswordField";
import { SecondFactorForm } from "../components/SecondFactorForm";
import { useSession } from "../session";

/**
 * `/invite/<token>`: an invite's link, or a password reset's, where the member sets a password and
 * is signed in. The token works once; the server says so when it was used or expired.
 */
export function AcceptInvitePage() {
  const { token = "" } = useParams();
  const { acceptInvite } = useSession();
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [submitting, setSubmitting] = useState(false);
  const [challenge, setChallenge] = useState<string | undefined>();

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
      const outcome = await acceptInvite(token, password);
      if (outcome.signedIn) {
        navigate("/", { replace: true });
        return;
      }
      // A password reset keeps two-factor sign-in: the new password is set, the code still asked.
      setChallenge(outcome.challenge);
      setSubmitting(false);
    } catch (caught) {
      setError(caught);
      setSubmitting(false);
    }
  };

  if (challenge) {
    return (
      <AuthCard
        title="Two-factor sign-in"
        intro={
          <p className="muted">Your new password is set. Your second factor is still needed to sign in.</p>
        }
      >
        <SecondFactorForm
          challenge={challenge}
          onSignedIn={() => navigate("/", { replace: true })}
          onEnded={() => navigate("/signin", { replace: true })}
        />
      </AuthCard>
    );
  }

  const errors = formErrors(error, ["password"]);
  return (
    <AuthCard
      title="Set your password"
      intro={
        <p className="muted">
          Choose the password you will sign in with. This link works once; after it, sign in with your email
          and this password.
        </p>
      }
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <ErrorNotice error={errors.form} />
        <NewPasswordField value={password} onChange={setPassword} error={errors.field.password} />
        <button type="submit" className="button button-primary button-block" disabled={submitting}>
          {submitting ? "Signing in…" : "Set password and sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
