import { AuthCard } from "../components/AuthCard";
import { ErrorNotice } from "../components/Feedback";
import { useSession } from "../session";

/** The server could not be asked whether there is a session. */
export function UnavailablePage({ message }: { message: string }) {
  const { retry } = useSession();
  return (
    <AuthCard title="Dakiya is not answering">
      <ErrorNotice error={message} />
      <button type="button" className="button button-primary button-block" onClick={retry}>
        Try again
      </button>
    </AuthCard>
  );
}
