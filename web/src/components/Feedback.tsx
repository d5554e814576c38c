import type { ReactNode } from "react";
import { ApiError } from "../api";

/** A page- or form-level error. */
export function ErrorNotice({
  error,
  children,
}: {
  error?: Error | string | undefined;
  children?: ReactNode;
}) {
  if (!error && !children) return null;
  const message = typeof error === "string" ? error : error?.message;
  return (
    <div className="notice notice-error" role="alert">
      {message}
      {children}
    </div>
  );
}

export function SuccessNotice({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice-success" role="status">
      {children}
    </div>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="loading" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <h3>{title}</h3>
      {children}
    </div>
  );
}

/**
 * Splits a failed request's error between the form's fields: the message goes next to the
 * field named by `param` (or by its first segment, for `test_numbers.+91…`), otherwise on the form.
 */
export function formErrors(
  error: unknown,
  fields: readonly string[],
): { field: Partial<Record<string, string>>; form: string | undefined } {
  if (!error) return { field: {}, form: undefined };
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError && error.param) {
    const name = fields.includes(error.param) ? error.param : error.param.split(".")[0];
    if (name !== undefined && fields.includes(name)) return { field: { [name]: message }, form: undefined };
  }
  return { field: {}, form: message };
}
