import { type FormEvent, useCallback, useEffect, useState } from "react";
import { api, type TmChain } from "../api";
import { useResource } from "../use-resource";
import { Allowed, ReadOnlyNote } from "./Allowed";
import { ErrorNotice, formErrors, Loading, SuccessNotice } from "./Feedback";
import { Field } from "./Field";

/** The ids as the field holds them: comma-separated, in order. */
function chainText(chain: string[] | null): string {
  return chain?.join(", ") ?? "";
}

/**
 * The account's PE–TM chain: the telemarketers that carry its messages after its principal
 * entity, and the hash each entity's messages carry with it (docs/dlt-compliance.md).
 */
export function TmChainSection() {
  const chain = useResource(useCallback((signal: AbortSignal) => api.tmChain(signal), []));
  const [draft, setDraft] = useState("");
  const [saveError, setSaveError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (chain.data) setDraft(chainText(chain.data.tm_chain));
  }, [chain.data]);

  const save = async (ids: string[] | null) => {
    setSaving(true);
    setSaveError(undefined);
    setSaved(false);
    try {
      const view: TmChain = await api.setTmChain(ids);
      chain.setData(() => view);
      setSaved(true);
    } catch (caught) {
      setSaveError(caught);
    } finally {
      setSaving(false);
    }
  };

  const onSave = (event: FormEvent) => {
    event.preventDefault();
    const ids = draft
      .split(",")
      .map((id) => id.trim())
      .filter((id) => id !== "");
    void save(ids.length === 0 ? null : ids);
  };

  const errors = formErrors(saveError, ["tm_chain"]);
  const current = chain.data;
  return (
    <section className="card" aria-labelledby="tm-chain-title">
      <div className="card-header">
        <h2 id="tm-chain-title">PE–TM chain</h2>
        <span className="muted small">the telemarketers your messages pass through, as bound on DLT</span>
      </div>
      <ErrorNotice error={chain.error} />
      {chain.loading && !current ? <Loading /> : null}
      {current ? (
        <>
          <p className="muted">
            {current.tm_chain
              ? "Every SMS carries the SHA-256 of its template's entity id followed by these ids. Operators reject a message whose hash does not match the chain bound on DLT."
              : "Your messages carry the chain your provider set on its SMS routes. Set your own if you reach the operators through other telemarketers."}
          </p>
          {current.tm_chain && current.entities.length > 0 ? (
            <dl className="chain-hashes" aria-label="Hash by principal entity">
              {current.entities.map((entity) => (
                <div key={entity.entity_id} className="fact">
                  <dt>PE {entity.entity_id}</dt>
                  <dd className="mono hash-value">{entity.hash}</dd>
                </div>
              ))}
            </dl>
          ) : null}
          {saved ? <SuccessNotice>Saved. New messages carry the new hash.</SuccessNotice> : null}
          <form className="inline-form" onSubmit={onSave} noValidate>
            <Field
              label="Telemarketer ids"
              error={errors.field.tm_chain ?? errors.form}
              hint="In order after your principal entity, comma-separated: 19-digit DLT ids. Leave empty for your provider's chain."
            >
              {(control) => (
                <input
                  {...control}
                  className="mono"
                  inputMode="numeric"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="1702000000000000001"
                  value={draft}
                  onChange={(event) => setDraft(event.target.value)}
                />
              )}
            </Field>
            <Allowed route="PUT /dashboard/api/tm-chain" otherwise={<ReadOnlyNote what="Chain settings" />}>
              <button type="submit" className="button" disabled={saving}>
                {saving ? "Saving…" : "Save chain"}
              </button>
            </Allowed>
          </form>
        </>
      ) : null}
    </section>
  );
}
