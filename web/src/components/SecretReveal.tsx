import { useCopySecret } from "../use-copy-secret";

/** A key's secret, shown once, with a copy button that falls back to selecting the text. */
export function SecretReveal({ secret, onDone }: { secret: string; onDone(): void }) {
  const { boxRef, outcome: copied, copy } = useCopySecret(secret);

  return (
    <div className="secret-reveal">
      <p className="notice notice-warning" role="alert">
        Copy this key now. It will not be shown again.
      </p>
      <label className="secret-label" htmlFor="new-key-secret">
        Secret key
      </label>
      <div className="secret-row">
        <textarea
          ref={boxRef}
          id="new-key-secret"
          className="secret-box mono"
          readOnly
          rows={2}
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
          spellCheck={false}
        />
        <button type="button" className="button" onClick={copy}>
          {copied === "copied" ? "Copied" : "Copy"}
        </button>
      </div>
      <p className="field-hint" aria-live="polite">
        {copied === "copied" ? "The key is on your clipboard." : null}
        {copied === "selected"
          ? "Your browser blocked copying: the key is selected, press Ctrl+C or ⌘C."
          : null}
      </p>
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
