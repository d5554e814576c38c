import type { ReactNode } from "react";

/** One term of a `.facts` list: a label and its value, monospaced for ids and amounts. */
export function Fact({
  term,
  mono = false,
  wide = false,
  children,
}: {
  term: string;
  mono?: boolean;
  /** Spans the whole row, for long values such as URLs. */
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`fact${wide ? " fact-wide" : ""}`}>
      <dt>{term}</dt>
      <dd className={mono ? "mono" : undefined}>{children}</dd>
    </div>
  );
}
