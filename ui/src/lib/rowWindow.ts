// Which rows of a long list to draw: those in the scrolled-to part of it and a margin around, with
// the height of the rows left out standing in for them (spacers above and below), so the page holds
// a few dozen row elements however many rows the list has fetched. Each row of the candidate list
// with its claim diff cost WebKit tens of KiB; drawing the 200 of a page where about twenty fit the
// window held 9-16 MiB for nothing.
//
// Rows differ in height (a claim takes one line or two, more on a narrow window), so the heights are
// those measured of rows drawn so far, and the mean of them for the rest. Pure functions over
// numbers: the component measures and scrolls, this decides, and is tested without a DOM.

/** The rows to draw, `start` to `end` (exclusive), and the height the rows left out stand for. */
export type RowWindow = { start: number; end: number; before: number; after: number };

/** What a row is taken to measure before any has been drawn. */
export const GUESSED_ROW_PX = 80;
/** Drawn beyond each edge of what is in view, so a scroll or a key meets rows already drawn. */
export const MARGIN_PX = 400;
/** Never more rows than this, whatever the heights say (a row measured tiny would draw the page). */
export const MOST_ROWS = 60;

/** Heights of rows measured when drawn, by row id, and their mean for rows not yet drawn. */
export class RowHeights {
  #px = new Map<string, number>();
  #sum = 0;

  /** Records a row's height; whether it differs from what was known. */
  set(id: string, px: number): boolean {
    if (!(px > 0)) return false;
    const was = this.#px.get(id);
    if (was !== undefined && Math.abs(was - px) < 0.5) return false;
    this.#sum += px - (was ?? 0);
    this.#px.set(id, px);
    return true;
  }

  /** What a row not yet drawn is taken to measure. */
  guess(): number {
    return this.#px.size === 0 ? GUESSED_ROW_PX : this.#sum / this.#px.size;
  }

  /** Where each row begins, from the top of the first, and (last) where the last ends. */
  offsets(ids: readonly string[]): number[] {
    const guess = this.guess();
    const out = new Array<number>(ids.length + 1);
    out[0] = 0;
    for (let i = 0; i < ids.length; i++) out[i + 1] = out[i] + (this.#px.get(ids[i]) ?? guess);
    return out;
  }

  /** Forgets every height (the list's width changed, so its rows wrap differently). */
  clear() {
    this.#px.clear();
    this.#sum = 0;
  }
}

/** The first row whose bottom is below `y` (rows.length if none): a binary search of `offsets`. */
export function rowAt(offsets: readonly number[], y: number): number {
  let lo = 0;
  let hi = offsets.length - 1; // rows count
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rows to draw when the list's rows are scrolled `top` pixels and `view` pixels of them show:
 * every row in view and those within `margin` of it, at most `most`.
 */
export function rowWindow(
  offsets: readonly number[],
  top: number,
  view: number,
  margin = MARGIN_PX,
  most = MOST_ROWS,
): RowWindow {
  const count = offsets.length - 1;
  const total = offsets[count];
  if (count <= 0) return { start: 0, end: 0, before: 0, after: 0 };
  // Scrolled past the end (the list just got shorter, before the scroller caught up): its last rows.
  top = Math.min(top, Math.max(0, total - view));
  const first = Math.min(rowAt(offsets, Math.max(0, top)), count - 1);
  let start = rowAt(offsets, Math.max(0, top - margin));
  const bottom = top + Math.max(0, view) + margin;
  let end = rowAt(offsets, bottom); // the row under the bottom edge, drawn if it begins above it
  if (end < count && offsets[end] < bottom) end += 1;
  // Too many rows for the cap (tiny heights or a huge view): keep those from the first in view.
  if (end - start > most) {
    start = Math.max(start, Math.min(first, count - most));
    end = Math.min(end, start + most);
  }
  return { start, end, before: offsets[start], after: total - offsets[end] };
}

/**
 * Where to scroll the rows so that row `i` is wholly in view, moving as little as possible (as
 * scrollIntoView's "nearest"); `top` as it is when the row is already in view.
 */
export function scrollFor(offsets: readonly number[], i: number, top: number, view: number): number {
  const rowTop = offsets[i];
  const rowBottom = offsets[i + 1];
  if (rowTop < top || rowBottom - rowTop > view) return rowTop;
  if (rowBottom > top + view) return rowBottom - view;
  return top;
}
