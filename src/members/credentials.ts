import { ApiError } from "../errors.js";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/** An email as members are stored and looked up: trimmed, lower case; `invalid_request` otherwise. */
export function normaliseEmail(input: string): string {
  const email = input.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(email) || email.length > 254) {
    throw new ApiError("invalid_request", "email must be an email address.", "email");
  }
  return email;
}

/** The password's argon2id hash, once its length is within the bounds. */
export async function hashPassword(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new ApiError(
      "invalid_request",
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`,
      "password",
    );
  }
  // The argon2 addon is loaded here, not with this module, which every account command loads.
  const { hash } = await import("@node-rs/argon2");
  return hash(password);
}

/** Whether `password` is the one `passwordHash` was made from. */
export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await import("@node-rs/argon2");
  return verify(passwordHash, password);
}

/** Whether an email already signs in somewhere: an email is a member of one account at most. */
export function emailTaken(email: string): ApiError {
  return new ApiError(
    "invalid_request",
    `${email} is already a member of a Dakiya account; an email signs in to one account.`,
    "email",
  );
}
