// Which rows of the candidate list are drawn (lib/rowWindow.ts): the rows in view and a margin, the
// rest stood for by their heights, a cap whatever the heights, and the scroll that shows a row.
// Expected values are worked out by hand from the heights given, not read from the code.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GUESSED_ROW_PX, RowHeights, rowAt, rowWindow, scrollFor } from "../../src/lib/rowWindow.ts";

const ids = (n) => Array.from({ length: n }, (_, i) => `r${i}`);

test("rows not drawn yet are taken at the mean of those measured, or the guess before any", () => {
  const h = new RowHeights();
  assert.deepEqual(h.offsets(ids(3)), [0, GUESSED_ROW_PX, 2 * GUESSED_ROW_PX, 3 * GUESSED_ROW_PX]);
  assert.equal(h.set("r0", 60), true);
  assert.equal(h.set("r1", 100), true);
  assert.equal(h.set("r1", 100.2), false, "the same height again is no change");
  assert.equal(h.set("r2", 0), false, "a row not laid out (0 px) is not a height");
  // r0 60, r1 100, r2 and r3 the mean 80.
  assert.deepEqual(h.offsets(ids(4)), [0, 60, 160, 240, 320]);
  h.set("r1", 40); // measured again narrower: the mean is now 50
  assert.deepEqual(h.offsets(ids(4)), [0, 60, 100, 150, 200]);
  h.clear();
  assert.deepEqual(h.offsets(ids(2)), [0, GUESSED_ROW_PX, 2 * GUESSED_ROW_PX]);
});

test("rowAt finds the row under a point, the first past its end for a point below", () => {
  const off = [0, 10, 30, 60]; // rows of 10, 20, 30 px
  assert.equal(rowAt(off, 0), 0);
  assert.equal(rowAt(off, 9.9), 0);
  assert.equal(rowAt(off, 10), 1, "a row's bottom edge belongs to the next");
  assert.equal(rowAt(off, 59), 2);
  assert.equal(rowAt(off, 60), 3);
  assert.equal(rowAt(off, 1e9), 3);
  assert.equal(rowAt([0], 5), 0, "no rows");
});

test("the window is the rows in view and those within the margin, the rest as spacer heights", () => {
  const off = Array.from({ length: 201 }, (_, i) => i * 100); // 200 rows of 100 px
  // At the top, 600 px in view and 200 px of margin: rows 0-7 (row 8 begins at 800, past the margin).
  assert.deepEqual(rowWindow(off, 0, 600, 200, 60), { start: 0, end: 8, before: 0, after: 19200 });
  // Scrolled to 5,050: in view 5,050-5,650 (rows 50-56), margin 4,850-5,850 (rows 48-58).
  assert.deepEqual(rowWindow(off, 5050, 600, 200, 60), { start: 48, end: 59, before: 4800, after: 14100 });
  // At the very end.
  assert.deepEqual(rowWindow(off, 19400, 600, 200, 60), { start: 192, end: 200, before: 19200, after: 0 });
  // Scrolled past the end (a list that just shrank): the last rows, never an empty window.
  const w = rowWindow(off, 50000, 600, 200, 60);
  assert.ok(w.start < 200 && w.end === 200, JSON.stringify(w));
  assert.deepEqual(rowWindow([0], 0, 600), { start: 0, end: 0, before: 0, after: 0 });
});

test("however small the rows measure, no more than the cap are drawn, from the first in view", () => {
  const off = Array.from({ length: 1001 }, (_, i) => i); // 1,000 rows of 1 px
  // In view 500-599, with the margin 100-999: 900 rows, cut to the 60 from the first in view.
  const w = rowWindow(off, 500, 100, 400, 60);
  assert.deepEqual(w, { start: 500, end: 560, before: 500, after: 440 });
  const end = rowWindow(off, 990, 10, 400, 60);
  assert.deepEqual([end.start, end.end], [940, 1000], "at the end, the last 60");
});

test("scrollFor moves as little as shows the row whole, and not at all when it is in view", () => {
  const off = [0, 100, 250, 300, 400]; // rows of 100, 150, 50, 100 px
  assert.equal(scrollFor(off, 1, 0, 300), 0, "row 1 (100-250) is in view at 0-300");
  assert.equal(scrollFor(off, 3, 0, 300), 100, "row 3 (300-400) below: its bottom to the view's");
  assert.equal(scrollFor(off, 0, 150, 300), 0, "row 0 above: its top to the view's");
  assert.equal(scrollFor(off, 1, 0, 120), 100, "a row taller than the view: its top");
});
