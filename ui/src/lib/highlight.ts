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

/** A piece of a passage as `PassageText` shows it: plain text, or a highlight of a given tone. */
export interface PassagePiece {
  text: string;
  marked: boolean;
  /** The highlight's kind (classes of the mark): none for the evidence span, "preview" while one
   *  is being chosen, "suggested" for a suggestion not yet confirmed, "a", "b" or "a b" for two
   *  annotators' spans. */
  tone?: string;
  /** Data attributes of the mark (`data-a`, ...), for tests and tools. */
  data?: Record<string, string>;
}
