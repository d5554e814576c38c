const TONES: Record<string, string> = {
  delivered: "green",
  active: "green",
  approved: "green",
  failed: "red",
  undelivered: "red",
  queued: "grey",
  inactive: "grey",
  enabled: "green",
  disabled: "grey",
  submitted: "blue",
  scheduled: "violet",
  sending: "blue",
  completed: "green",
  cancelled: "outline",
};

export function StatusBadge({ status }: { status: string }) {
  const label = status.charAt(0).toUpperCase() + status.slice(1);
  return <span className={`badge badge-${TONES[status] ?? "grey"}`}>{label}</span>;
}

export function EnvironmentBadge({ environment }: { environment: string }) {
  return <span className={`badge badge-env-${environment}`}>{environment}</span>;
}
