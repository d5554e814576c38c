import type { ContentPiece } from "../dlt";

/** Template text with its placeholders as highlighted chips, and refused tokens marked. */
export function TemplateContent({ pieces }: { pieces: ContentPiece[] }) {
  return (
    <span className="template-content">
      {pieces.map((piece, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: pieces have no identity beyond their position
        <Piece key={index} piece={piece} />
      ))}
    </span>
  );
}

function Piece({ piece }: { piece: ContentPiece }) {
  if (piece.kind === "text") return <span>{piece.text}</span>;
  if (piece.kind === "invalid") {
    return (
      <mark className="placeholder-invalid" title="Not a valid placeholder">
        {piece.text}
      </mark>
    );
  }
  return (
    <span
      className="placeholder-chip"
      title={piece.from !== piece.name ? `{#${piece.from}#} becomes {#${piece.name}#}` : undefined}
    >
      {`{#${piece.name}#}`}
    </span>
  );
}
