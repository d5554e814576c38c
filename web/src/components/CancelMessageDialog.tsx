import { ApiError, api, type Environment, type Message } from "../api";
import { formatIndiaTime, formatInr } from "../format";
import { ConfirmDialog } from "./ConfirmDialog";

/**
 * Asks before cancelling a waiting message, then cancels it. A refusal because the message has
 * moved on (409 `not_cancellable`: a delivery took it meanwhile) goes to `onRefused`, for the
 * page to show with the message's new state; other errors stay in the dialog, to try again.
 */
export function CancelMessageDialog({
  message,
  environment,
  onCancelled,
  onRefused,
  onClose,
}: {
  message: Message;
  environment: Environment;
  onCancelled(message: Message): void;
  onRefused(error: ApiError): void;
  onClose(): void;
}) {
  return (
    <ConfirmDialog
      title="Cancel this message?"
      confirmLabel="Cancel message"
      busyLabel="Cancelling…"
      dismissLabel="Keep it"
      onConfirm={async () => {
        try {
          onCancelled(await api.cancelMessage(environment, message.id));
        } catch (error) {
          if (error instanceof ApiError && error.code === "not_cancellable") onRefused(error);
          else throw error;
        }
      }}
      onClose={onClose}
    >
      <p>
        Its {formatInr(message.cost)} is refunded to the {environment} balance, and the message to{" "}
        <span className="mono nowrap">{message.to}</span>{" "}
        {message.send_at && message.status === "scheduled"
          ? `will not go out at ${formatIndiaTime(message.send_at)}.`
          : "will not be sent."}
      </p>
    </ConfirmDialog>
  );
}

/** What the page says once a message is cancelled. */
export function cancelledNotice(message: Message): string {
  const cancelled = `Message to ${message.to} cancelled`;
  if (!message.refund) return `${cancelled}.`;
  return `${cancelled}; ${formatInr(message.refund.amount)} refunded to the ${message.environment} balance.`;
}
