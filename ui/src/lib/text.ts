// Passage text helpers for the annotate view. The core stores evidence spans with UTF-8 byte
// offsets; JavaScript strings index UTF-16 code units. Every conversion goes through here so
// "Zürich", em dashes and "12–18%" land on the same characters on both sides.

const encoder = new TextEncoder();

/** UTF-8 length of a string. */
export function utf8Length(s: string): number {
  return encoder.encode(s).length;
}

/** The JS string index of a UTF-8 byte offset into `s` (null when it is not on a character boundary). */
export function byteToIndex(s: string, byte: number): number | null {
  let bytes = 0;
  let i = 0;
  while (i < s.length) {
    if (bytes === byte) return i;
    if (bytes > byte) return null;
    const cp = s.codePointAt(i)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return bytes === byte ? i : null;
}

/** The UTF-8 byte offset of a JS string index into `s`. */
export function indexToByte(s: string, index: number): number {
  return utf8Length(s.slice(0, index));
}

export interface ByteSpan {
  text: string;
  start: number;
  end: number;
}

/** The span of `s` between two JS indices, with byte offsets, as the core stores it. */
export function spanOf(s: string, from: number, to: number): ByteSpan {
  const start = indexToByte(s, from);
  const text = s.slice(from, to);
  return { text, start, end: start + utf8Length(text) };
}

/** Where a stored span sits in `s` as JS indices, or null if its offsets do not point at its text. */
export function locate(s: string, span: ByteSpan | null | undefined): { from: number; to: number } | null {
  if (!span) return null;
  const from = byteToIndex(s, span.start);
  const to = byteToIndex(s, span.end);
  if (from === null || to === null || s.slice(from, to) !== span.text) return null;
  return { from, to };
}

export interface Piece {
  text: string;
  mark: boolean;
}

/** `s` cut at [from, to): the marked piece and the text around it. */
export function cut(s: string, range: { from: number; to: number } | null): Piece[] {
  if (!range || range.to <= range.from) return [{ text: s, mark: false }];
  const pieces: Piece[] = [];
  if (range.from > 0) pieces.push({ text: s.slice(0, range.from), mark: false });
  pieces.push({ text: s.slice(range.from, range.to), mark: true });
  if (range.to < s.length) pieces.push({ text: s.slice(range.to), mark: false });
  return pieces;
}

/**
 * The words of a passage as JS index ranges, for choosing a span by keyboard: runs of letters
 * and digits, keeping inner punctuation ("12–18%", "well-known", "U.S") in one word and leaving
 * out trailing punctuation (the full stop after a word).
 */
export function words(s: string): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  const re = /[\p{L}\p{N}]+(?:[^\s\p{L}\p{N}]+[\p{L}\p{N}]+)*%?/gu;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push({ from: m.index, to: m.index + m[0].length });
  return out;
}

/** Trims whitespace off a [from, to) range of `s`. */
export function trimRange(s: string, from: number, to: number): { from: number; to: number } {
  while (from < to && /\s/.test(s[from])) from++;
  while (to > from && /\s/.test(s[to - 1])) to--;
  return { from, to };
}
