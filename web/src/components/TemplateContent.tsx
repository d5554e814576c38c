import type { ContentPiece } from "../dlt";

/** Template text with its placeholders as highlighted chips. */
export function TemplateContent({ pieces }: { pieces: ContentPiece[] }) {
  return (
    <span className="template-content">
      {pieces.map((piece, index) =>
        piece.kind === "text" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces have no identity beyond their position
          <span key={index}>{piece.text}</span>
        ) : (
          <span
            // biome-ignore lint/suspicious/noArrayIndexKey: pieces have no identity beyond their position
            key={index}
            className="placeholder-chip"
            title={piece.from !== piece.name ? `{#${piece.from}#} becomes {#${piece.name}#}` : undefined}
          >
            {`{#${piece.name}#}`}
          </span>
        ),
      )}
    </span>
  );
}
