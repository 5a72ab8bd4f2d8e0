// Splits a passage around its evidence span so the view can highlight the span with plain text
// nodes (never HTML: passages are untrusted input).

export interface Piece {
  text: string;
  /** True for an occurrence of the span. */
  span: boolean;
}

/** The passage cut into pieces; every occurrence of `span` is its own piece marked `span`. */
export function splitOnSpan(passage: string, span: string | null | undefined): Piece[] {
  if (!span) return [{ text: passage, span: false }];
  const pieces: Piece[] = [];
  let from = 0;
  for (let at = passage.indexOf(span); at !== -1; at = passage.indexOf(span, from)) {
    if (at > from) pieces.push({ text: passage.slice(from, at), span: false });
    pieces.push({ text: span, span: true });
    from = at + span.length;
  }
  if (from < passage.length) pieces.push({ text: passage.slice(from), span: false });
  return pieces;
}
