import { Link } from "react-router";
import { EmptyState } from "../components/Feedback";
import { PageHeader } from "../components/PageHeader";

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState title="There is nothing at this address">
        <p>
          Go back to the <Link to="/">overview</Link>.
        </p>
      </EmptyState>
    </>
  );
}
