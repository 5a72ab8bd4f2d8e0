// The evaluate view's family breakdown (components/families.svelte.ts): it shows the core's
// report, only once some row has a family, and keeps the core's refusal.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FamiliesState } from "../../src/components/families.svelte.ts";

const m = (n, mvr) => ({ n_pairs: n, mvr, fs: 0.1, violations: Math.round(n * mvr), missing: 0, mvr_ci95: [0, 1], fs_ci95: [0, 0.2] });

test("the family table shows the core's families and flags, and nothing when no row has a family", async () => {
  const report = {
    pairs: { easy: 6, rest: 30 },
    per_family: { "baseline:token_overlap": { easy: m(6, 0), rest: m(30, 0.4) } },
    shortcuts: [{ family: "easy", baseline: "baseline:token_overlap", n_pairs: 6, mvr: 0, mvr_ci95: [0, 0], n_rest: 30, mvr_rest: 0.4, gap: 0.4, too_few: false, flagged: true }],
    flagged: ["easy"],
    rule: "the core's rule",
  };
  const f = new FamiliesState(async () => report);
  await f.load();
  assert.deepEqual(f.families, ["easy", "rest"]);
  assert.equal(f.shown, true);
  const none = new FamiliesState(async () => ({ pairs: { none: 36 }, per_family: { x: { none: m(36, 0.5) } }, shortcuts: [], flagged: [], rule: "" }));
  await none.load();
  assert.equal(none.shown, false, "every row without a family: nothing to break down");
  const refusal = { code: "no_locked_split", message: "there is no split; draft and lock one first" };
  const refused = new FamiliesState(async () => Promise.reject(refusal));
  await refused.load();
  assert.deepEqual({ code: refused.error.code, message: refused.error.message }, refusal);
  assert.equal(refused.shown, false);
});
