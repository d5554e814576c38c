import { useRef, useState } from "react";

export type CopyOutcome = "copied" | "selected" | undefined;

/**
 * Copies a secret to the clipboard; where the browser refuses, selects it in its text box so
 * the user can copy it by hand. `outcome` says which happened, for the hint under the box.
 */
export function useCopySecret(secret: string) {
  const boxRef = useRef<HTMLTextAreaElement>(null);
  const [outcome, setOutcome] = useState<CopyOutcome>();

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(secret);
      setOutcome("copied");
    } catch {
      boxRef.current?.focus();
      boxRef.current?.select();
      setOutcome("selected");
    }
  };

  return { boxRef, outcome, setOutcome, copy };
}
