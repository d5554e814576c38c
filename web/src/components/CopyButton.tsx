import { useState } from "react";

/** Copies `text`; where the clipboard is refused, selects the element `fallbackTarget` points at. */
export function CopyButton({
  text,
  label = "Copy",
  fallbackTarget,
}: {
  text: string;
  label?: string;
  fallbackTarget?: () => HTMLElement | null;
}) {
  const [state, setState] = useState<"idle" | "copied" | "selected">("idle");

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      const element = fallbackTarget?.();
      if (element) {
        const range = document.createRange();
        range.selectNodeContents(element);
        const selection = window.getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
      }
      setState("selected");
    }
    window.setTimeout(() => setState("idle"), 2500);
  };

  return (
    <button type="button" className="button button-small" onClick={copy}>
      {state === "copied" ? "Copied" : state === "selected" ? "Selected: press Ctrl+C" : label}
    </button>
  );
}
