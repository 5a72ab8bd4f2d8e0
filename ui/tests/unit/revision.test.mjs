// The revision helper reloads a view when the project's revision moves, not when the view opens.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flushSync } from "svelte";
import { box, effectRoot } from "../support/runes.svelte.js";
import { reloadOnChange } from "../../src/lib/revision.svelte.ts";

test("reloads when the revision moves, not when the view opens, and stops with its view", () => {
  const revision = box("1:0");
  let reloads = 0;
  const stop = effectRoot(() => reloadOnChange(() => revision.value, () => reloads++));
  flushSync();
  assert.equal(reloads, 0, "opening the view is not a change");
  revision.value = "2:0";
  flushSync();
  assert.equal(reloads, 1);
  revision.value = "2:0";
  flushSync();
  assert.equal(reloads, 1, "the same revision again is not a change");
  stop();
  revision.value = "3:0";
  flushSync();
  assert.equal(reloads, 1, "a closed view reloads nothing");
});
