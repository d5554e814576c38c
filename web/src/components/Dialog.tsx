import { type ReactNode, useEffect, useId, useRef } from "react";

interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  /** While true, Escape and the backdrop do nothing (e.g. while a secret is on screen). */
  dismissible?: boolean;
  tone?: "default" | "danger";
  /** `wide` for forms with several columns of choices. */
  size?: "default" | "wide";
}

/** A modal dialog on the native <dialog>, which traps focus and restores it on close. */
export function Dialog({
  title,
  onClose,
  children,
  dismissible = true,
  tone = "default",
  size = "default",
}: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  const dismissibleRef = useRef(dismissible);
  dismissibleRef.current = dismissible;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      if (dismissibleRef.current) onCloseRef.current();
    };
    // The browser may still close it (a second Escape in a row cannot be refused): follow along.
    const onNativeClose = () => onCloseRef.current();
    dialog.addEventListener("cancel", onCancel);
    dialog.addEventListener("close", onNativeClose);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      dialog.removeEventListener("close", onNativeClose);
      if (dialog.open) dialog.close();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${tone}${size === "wide" ? " dialog-wide" : ""}`}
      aria-modal="true"
      aria-labelledby={titleId}
      onMouseDown={(event) => {
        if (event.target === ref.current && dismissibleRef.current) onCloseRef.current();
      }}
    >
      <div className="dialog-body">
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </dialog>
  );
}
