import { ApiError } from "../api";
import { Field } from "./Field";

/** The server's rule (docs/team.md): a new password has at least this many characters. */
const MIN_PASSWORD_LENGTH = 10;

/** The refusal the server would answer for a new password too short, before asking it; else undefined. */
export function newPasswordError(password: string): ApiError | undefined {
  return [...password].length < MIN_PASSWORD_LENGTH
    ? new ApiError(0, "invalid_request", `Use at least ${MIN_PASSWORD_LENGTH} characters.`, "password")
    : undefined;
}

/** A new password's field, as setting up the account and accepting an invite ask for it. */
export function NewPasswordField(props: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <Field
      label="Password"
      error={props.error}
      hint={`At least ${MIN_PASSWORD_LENGTH} characters. A passphrase of a few words works well.`}
    >
      {(control) => (
        <input
          {...control}
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD_LENGTH}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
