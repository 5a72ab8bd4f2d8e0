// The judge grid's picks and completeness notes (lib/evaluate.ts): a prompt's column compares only
// the cells the core pooled, and a cell with requests never answered says so.
import assert from "node:assert/strict";
import { test } from "node:test";
import { completenessLine, completenessNote, gridPick } from "../../src/lib/evaluate.ts";

const complete = { requests: 20, answered: 20, unusable: 0, unanswered: 0 };
const cell = (model, template, extra = {}) => ({
  model,
  template,
  evaluator: `${model}@${template}`,
  metrics: { n_pairs: 10, mvr: 0.3, fs: 0.5, violations: 3, missing: 0, unanswered: 0, mvr_ci95: null, fs_ci95: null },
  completeness: complete,
  left_out: null,
  ...extra,
});

test("a prompt's column holds only the cells the core pooled", () => {
  const grid = {
    models: ["a", "b", "c"],
    templates: ["generic"],
    cells: [
      cell("a", "generic"),
      cell("b", "generic", { left_out: "`b@generic` is incomplete: 13 of its 20 requests were never answered" }),
      cell("c", "generic", { metrics: null, completeness: null }),
    ],
    pooled: [],
    baselines: [],
    footnotes: [],
  };
  assert.deepEqual(gridPick(grid, "generic").members, ["a@generic"]);
  assert.deepEqual(gridPick(grid, "generic", "b").members, ["b@generic"], "a single cell is still the user's pick");
});

test("a cell's completeness in words", () => {
  assert.equal(completenessNote(complete), "");
  assert.equal(completenessNote(null), "");
  assert.equal(completenessNote({ requests: 20, answered: 6, unusable: 1, unanswered: 13 }), "13 of 20 requests never answered");
});

test("every scored cell says how many of its requests were answered, unusable answers counted apart", () => {
  assert.deepEqual(completenessLine(complete), { text: "20/20 answered", complete: true });
  assert.deepEqual(completenessLine({ requests: 20, answered: 17, unusable: 3, unanswered: 0 }), { text: "20/20 answered, 3 unusable", complete: true });
  assert.deepEqual(completenessLine({ requests: 20, answered: 6, unusable: 1, unanswered: 13 }), { text: "7/20 answered, 1 unusable", complete: false });
  assert.equal(completenessLine(null), null);
});
