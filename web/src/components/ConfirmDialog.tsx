import { type ReactNode, useState } from "react";
import { Dialog } from "./Dialog";
import { ErrorNotice } from "./Feedback";

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  /** The confirm button's label, and what it says while the action runs. */
  confirmLabel: string;
  busyLabel: string;
  /** The button that closes the dialog without acting; "Cancel" unless that is the action itself. */
  dismissLabel?: string;
  /** The action; its error is shown in the dialog, which stays open to try again. */
  onConfirm(): Promise<void>;
  onClose(): void;
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel,
  dismissLabel = "Cancel",
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(false);
    }
  };

  return (
    <Dialog title={title} onClose={onClose} tone="danger">
      {children}
      <ErrorNotice error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          {dismissLabel}
        </button>
        <button type="button" className="button button-danger" onClick={confirm} disabled={busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}
