// The views' code fetched on first opening (lib/viewChunks.svelte.ts): once per view however often
// it is asked for, kept after, and a failure said and tried again when asked again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ViewChunks } from "../../src/lib/viewChunks.svelte.ts";

/** A loader whose answer the test gives when it likes; counts the fetches. */
function gate() {
  const g = { fetches: 0, answer: null, fail: null };
  g.loader = () => {
    g.fetches += 1;
    return new Promise((ok, no) => {
      g.answer = (component) => ok({ default: component });
      g.fail = (message) => no(new Error(message));
    });
  };
  return g;
}

test("a view's code is fetched once, however often it is asked for while on its way and after", async () => {
  const a = gate();
  const b = gate();
  const chunks = new ViewChunks({ agreement: a.loader, split: b.loader });
  const first = chunks.load("agreement");
  const again = chunks.load("agreement");
  assert.equal(a.fetches, 1, "asked twice while on its way: one fetch");
  assert.equal(b.fetches, 0, "a view not asked for is not fetched");
  assert.equal(chunks.loaded.agreement, undefined, "not here before it arrives");
  const Agreement = function Agreement() {};
  a.answer(Agreement);
  await Promise.all([first, again]);
  assert.equal(chunks.loaded.agreement, Agreement);
  await chunks.load("agreement");
  assert.equal(a.fetches, 1, "kept: opening the view again fetches nothing");
  assert.deepEqual(Object.keys(chunks.loaded), ["agreement"]);
});

test("a fetch that fails says why, and asking again tries again", async () => {
  const a = gate();
  const chunks = new ViewChunks({ evaluate: a.loader });
  const first = chunks.load("evaluate");
  a.fail("Failed to fetch dynamically imported module: tauri://localhost/assets/EvaluateView-x.js");
  await first;
  assert.equal(chunks.loaded.evaluate, undefined);
  assert.match(chunks.failed.evaluate, /EvaluateView-x\.js/);
  const second = chunks.load("evaluate");
  assert.equal(a.fetches, 2, "tried again");
  assert.equal(chunks.failed.evaluate, undefined, "the old failure is not shown while trying again");
  const Evaluate = function Evaluate() {};
  a.answer(Evaluate);
  await second;
  assert.equal(chunks.loaded.evaluate, Evaluate);
  assert.equal(chunks.failed.evaluate, undefined);
});

test("views arriving out of order each land under their own name", async () => {
  const a = gate();
  const b = gate();
  const chunks = new ViewChunks({ agreement: a.loader, split: b.loader });
  const pa = chunks.load("agreement");
  const pb = chunks.load("split");
  const Split = function Split() {};
  const Agreement = function Agreement() {};
  b.answer(Split);
  await pb;
  assert.deepEqual(chunks.loaded, { split: Split });
  a.answer(Agreement);
  await pa;
  assert.deepEqual(chunks.loaded, { split: Split, agreement: Agreement });
});
