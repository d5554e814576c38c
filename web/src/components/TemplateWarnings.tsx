import type { TemplateCategory, TemplateWarning } from "../api";
import { headerSuffix, TEMPLATE_RULE_TITLES } from "../dlt";

/**
 * A badge saying how many of TRAI's template rules a template breaks; opened, it lists each with
 * the reason and what to do. A native disclosure: keyboard and screen readers work as usual, and
 * the words carry the meaning, not the colour.
 */
export function TemplateWarnings({ warnings, name }: { warnings: TemplateWarning[]; name: string }) {
  if (warnings.length === 0) return null;
  const count = `${warnings.length} DLT warning${warnings.length === 1 ? "" : "s"}`;
  return (
    <details className="dlt-warnings">
      <summary aria-label={`${count} on template ${name}: show why and how to fix`}>
        <span className="badge badge-amber">
          <span aria-hidden="true">⚠</span> {count}
        </span>
      </summary>
      <ul className="dlt-warning-list">
        {warnings.map((warning) => (
          <li key={warning.code}>
            <strong>{TEMPLATE_RULE_TITLES[warning.code] ?? warning.code}.</strong> {warning.message}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A template's headers as handsets show them, with the suffix networks add for its category. */
export function HeadersAsShown({ senders, category }: { senders: string[]; category: TemplateCategory }) {
  const suffix = headerSuffix(category);
  return (
    <ul className="headers-as-shown">
      {senders.map((sender) => (
        <li key={sender} className="mono">
          {sender}
          <span className="header-suffix">{suffix}</span>
        </li>
      ))}
    </ul>
  );
}
