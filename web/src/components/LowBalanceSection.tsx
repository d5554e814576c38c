import { type FormEvent, useEffect, useState } from "react";
import { api } from "../api";
import { useEnvironment } from "../environment";
import { formatInr } from "../format";
import { useLowBalance } from "../low-balance";
import { Allowed, ReadOnlyNote } from "./Allowed";
import { ErrorNotice, formErrors, Loading, SuccessNotice } from "./Feedback";
import { Field } from "./Field";

/** The threshold as the field holds it: `"1.0000"` → `"1.00"`, as it was most likely typed. */
function thresholdText(threshold: string | null): string {
  if (threshold === null) return "";
  return threshold.replace(/(\.\d\d\d*?)0+$/, "$1");
}

/**
 * The low-balance alert of the current environment's balance (docs/money.md#low-balance-alerts):
 * its threshold, set or turned off here; the banner across the console reads the same state.
 */
export function LowBalanceSection() {
  const { environment } = useEnvironment();
  const { alert, error, show } = useLowBalance();
  const [draft, setDraft] = useState("");
  const [saveError, setSaveError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | undefined>();

  const threshold = alert?.low_balance_threshold ?? null;
  useEffect(() => setDraft(thresholdText(threshold)), [threshold]);
  // A notice of the other environment's change does not stay on this one's section.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets when the environment changes
  useEffect(() => {
    setSaved(undefined);
    setSaveError(undefined);
  }, [environment]);

  const save = async (value: string | null) => {
    setSaving(true);
    setSaveError(undefined);
    setSaved(undefined);
    try {
      const view = await api.setLowBalanceThreshold(environment, value);
      show(view);
      setSaved(
        view.low_balance_threshold === null
          ? "Alert turned off."
          : `Saved. A charge that takes the ${environment} balance below ${formatInr(view.low_balance_threshold)} sends a balance.low event.`,
      );
    } catch (caught) {
      setSaveError(caught);
    } finally {
      setSaving(false);
    }
  };

  const onSave = (event: FormEvent) => {
    event.preventDefault();
    void save(draft.trim());
  };

  const errors = formErrors(saveError, ["low_balance_threshold"]);
  return (
    <section className="card" aria-labelledby="low-balance-title">
      <div className="card-header">
        <h2 id="low-balance-title">Low-balance alert</h2>
        <span className="muted small">{environment} balance</span>
      </div>
      <ErrorNotice error={error} />
      {alert === undefined ? (
        error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p className="muted">
            {threshold === null
              ? `Off. Set an amount and a charge that takes the ${environment} balance below it sends one balance.low event to your webhooks and events feed, and the console shows a reminder.`
              : `On: a charge that takes the ${environment} balance (now ${formatInr(alert.balance)}) below ${formatInr(threshold)} sends one balance.low event; another is sent only after credits bring the balance back to ${formatInr(threshold)}.`}
          </p>
          {alert.below_threshold && threshold !== null ? (
            <p className="notice notice-warning">
              The balance, {formatInr(alert.balance)}, is below the threshold now.
            </p>
          ) : null}
          {saved ? <SuccessNotice>{saved}</SuccessNotice> : null}
          <Allowed
            route="PATCH /dashboard/api/billing"
            otherwise={<ReadOnlyNote what="Alert settings" roles="an owner, admin or finance member" />}
          >
            <form className="inline-form" onSubmit={onSave} noValidate>
              <Field
                label="Alert below (INR)"
                error={errors.field.low_balance_threshold ?? errors.form}
                hint="An amount in rupees, like 500.00."
              >
                {(control) => (
                  <input
                    {...control}
                    className="mono"
                    inputMode="decimal"
                    autoComplete="off"
                    placeholder="500.00"
                    value={draft}
                    onChange={(event) => setDraft(event.target.value)}
                  />
                )}
              </Field>
              <button type="submit" className="button" disabled={saving}>
                {saving ? "Saving…" : "Save alert"}
              </button>
              {threshold !== null ? (
                <button
                  type="button"
                  className="button button-ghost"
                  disabled={saving}
                  onClick={() => void save(null)}
                >
                  Turn off
                </button>
              ) : null}
            </form>
          </Allowed>
        </>
      )}
    </section>
  );
}
