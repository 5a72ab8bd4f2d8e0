// The contexts view's state (components/contexts.svelte.ts) and its drafting runner
// (components/drafting.svelte.ts) in node: keys that would change a saved decision wait for a
// confirmation, typed draft text outlives a refused save, another row and the view itself, and
// closing the window names it; the runner sends the CLI's options and waits for a usable limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { installCore } from "../support/fakeCore.mjs";
import { ContextsState, unsavedContexts } from "../../src/components/contexts.svelte.ts";
import { DraftRunner } from "../../src/components/drafting.svelte.ts";
import { flushAll, losses } from "../../src/lib/leave.ts";

const context = (id, stage, screening = null) => ({
  id, group_id: null, source_dataset: "ExpertQA", source_id: id, context: "Q?", passage: "P.", stage, screening,
  draft_version: stage === "drafted" ? 1 : null, excluded_for: null,
});
const keep = { decision: "keep", reason: null, note: null, by: "the lead", at: "t" };
const draft = (id) => ({
  context_id: id, version: 1, origin: "hand", author: "the lead", run: null, created_at: "t", stage: "drafted", excluded_for: null, problems: [],
  fields: { evidence_span: null, calibrated_claim: "c", raised_claim: "r", repair: null, rationale: null, axis: null, severity: null },
});

function core(over = {}) {
  return installCore({
    contexts_list: () => [context("a", "drafted", keep), context("b", "kept", keep), context("c", "unscreened")],
    draft_list: () => [draft("a")],
    contexts_counts: () => null,
    draft_records: () => [],
    contexts_screen: ({ id, keep }) => ({ context: context(id, keep ? "kept" : "dropped"), changed: true }),
    draft_set: ({ id }) => ({ draft: draft(id), changed: true }),
    draft_promote: () => ({ promoted: ["a"], already_candidates: [] }),
    ...over,
  });
}

const press = (m, key, target = "other", more = {}) => m.key({ key, ...more }, target);

test("a promotion, a changed screening and an exclusion wait for confirmation; stray keys are held", async () => {
  const fake = core();
  const m = new ContextsState();
  await m.load();
  press(m, "p");
  assert.deepEqual(m.confirm, { kind: "promote", ids: ["a"] });
  for (const k of ["k", "d", "x", "2", "j", "P"]) assert.equal(press(m, k), true, `${k} is held`);
  assert.equal(m.at, 0);
  assert.deepEqual(fake.of("draft_promote"), []);
  // Enter on the focused confirm button is the button's own.
  assert.equal(press(m, "Enter", "button"), false);
  await m.confirmed();
  assert.deepEqual(fake.of("draft_promote"), [{ ids: ["a"], all: false, by: "the lead" }]);
  assert.equal(m.confirm, null);

  await m.go(1); // b is kept
  press(m, "d");
  assert.equal(m.picking, "drop");
  press(m, "3");
  assert.equal(m.confirm?.kind, "screen");
  assert.deepEqual(fake.of("contexts_screen"), []);
  press(m, "Escape");
  assert.equal(m.confirm, null);
  assert.deepEqual(fake.of("contexts_screen"), []);

  await m.go(2); // c is unscreened: a drop needs no confirmation
  press(m, "d");
  press(m, "1");
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(fake.of("contexts_screen"), [{ id: "c", keep: false, reason: "no_visible_boundary", note: null, by: "the lead" }]);
  m.release();
});

test("promoting every waiting draft asks with the count and the drafts with problems", async () => {
  core({ draft_list: () => [draft("a"), { ...draft("b"), problems: [{ file: "f", line: null, field: "span", message: "x" }] }] });
  const m = new ContextsState();
  await m.load();
  press(m, "P", "other", { shiftKey: true });
  assert.deepEqual(m.confirm, { kind: "promote-all", count: 2, withProblems: 1 });
  m.release();
});

test("typed text survives a refused save, another row and the view; closing names it", async () => {
  let refuse = true;
  const fake = core({
    draft_set: ({ id }) => {
      if (refuse) throw { code: "wrong_row_state", message: "refused" };
      return { draft: draft(id), changed: true };
    },
  });
  const m = new ContextsState();
  await m.load();
  m.type("repair", "my words");
  assert.equal(m.value("repair"), "my words");
  assert.equal(m.isUnsaved("repair"), true);
  await m.go(1);
  assert.equal(m.at, 0, "the row stays");
  assert.equal(m.leaving, 1, "and the person is asked");
  assert.equal(m.error?.code, "wrong_row_state");
  assert.equal(m.value("repair"), "my words");
  // Escape answers "stay".
  press(m, "Escape");
  assert.equal(m.leaving, null);

  // The view closes (another view) and comes back: the text is there.
  m.close();
  await new Promise((ok) => setTimeout(ok, 0));
  const again = new ContextsState();
  await again.load();
  assert.equal(again.value("repair"), "my words");
  assert.deepEqual(unsavedContexts(), ["a"]);
  await flushAll();
  assert.deepEqual(losses(), ["draft text of a, not saved yet"]);

  // Once the save goes through, nothing is held.
  refuse = false;
  await again.flush();
  assert.deepEqual(fake.of("draft_set").at(-1), { id: "a", field: "repair", value: "my words", by: "the lead" });
  assert.deepEqual(unsavedContexts(), []);
  assert.deepEqual(losses(), []);
  again.release();
});

test("text typed back to the saved value is not unsaved; Discard drops only what the person let go", async () => {
  core({ draft_set: () => Promise.reject({ code: "x", message: "no" }) });
  const m = new ContextsState();
  await m.load();
  m.type("calibrated_claim", "c2");
  m.type("calibrated_claim", "c");
  assert.equal(m.unsaved, false);
  m.type("rationale", "why");
  await m.go(2);
  assert.equal(m.leaving, 2);
  await m.discardAndGo();
  assert.equal(m.at, 2);
  assert.deepEqual(unsavedContexts(), []);
  m.release();
});

test("the drafting runner sends the command line's options and waits for a usable limit", async () => {
  const fake = installCore({
    draft_run: () => ({ name: "r", model: "m", prompt_source: "shipped:drafting", prompt_sha256: "0".repeat(64), requests: 1, answered_before: 0, answered_now: 1, drafted: 1, unusable: [], failures: [], skipped: [], unanswered: 0 }),
  });
  // A channel asks Tauri for a callback id.
  globalThis.window.__TAURI_INTERNALS__.transformCallback = () => 1;
  let finished = 0;
  const r = new DraftRunner(() => (finished += 1));
  assert.equal(r.ready, false);
  r.model = " qwen ";
  r.name = "r";
  r.numbers.limit = "2.5";
  assert.equal(r.limitValue, "bad");
  assert.equal(r.ready, false);
  r.numbers.limit = "2";
  r.api = "anthropic";
  r.template = " prompts/mine.txt ";
  assert.equal(r.ready, true);
  await r.run();
  const [sent] = fake.of("draft_run");
  assert.deepEqual(sent.params, {
    name: "r", base_url: "http://127.0.0.1:8080/v1", model: "qwen", api: "anthropic", api_key_env: null, template: "prompts/mine.txt",
    cap_field: null, no_temperature: false, extra: [],
    temperature: null, max_tokens: null, limit: 2, timeout: null, attempts: null,
  });
  assert.equal(r.summary?.drafted, 1);
  assert.equal(finished, 1);
  assert.equal(r.running, false);
});

test("the drafting runner starts from the core's defaults and sends the provider profile as the judge form does", async () => {
  const fake = installCore({
    draft_catalog: () => ({ apis: [{ name: "chat", path: "/chat/completions", cap_field: "max_tokens", needs_cap: false }], temperature: 0, max_tokens: 1024, timeout: 120, attempts: 5 }),
    draft_run: () => ({ name: "p", model: "m", prompt_source: "shipped:drafting", prompt_sha256: "0".repeat(64), requests: 1, answered_before: 0, answered_now: 1, drafted: 1, unusable: [], failures: [], skipped: [], unanswered: 0 }),
  });
  globalThis.window.__TAURI_INTERNALS__.transformCallback = () => 1;
  const r = new DraftRunner();
  r.numbers.timeout = "30";
  await r.load();
  // A value typed before the defaults came is kept; the blank ones take the core's.
  assert.deepEqual({ ...r.numbers }, { temperature: "0", maxTokens: "1024", timeout: "30", attempts: "5", limit: "" });
  r.model = "m";
  r.name = "p";
  r.profile = { api: "chat", capField: " max_completion_tokens ", deterministic: "none", extra: 'reasoning={"effort":"low"}\n\n top_p=0.5 ' };
  r.numbers.temperature = "0.7";
  r.numbers.maxTokens = "abc";
  assert.deepEqual(r.badNumbers, ["maxTokens"]);
  assert.equal(r.ready, false, "a cap that is not a number waits for a fix");
  // A 0 is a number: sent as typed, for the core to refuse in its words (never raised to 1 here).
  r.numbers.maxTokens = "0";
  r.numbers.attempts = "0";
  assert.equal(r.ready, true);
  await r.run();
  const [sent] = fake.of("draft_run");
  assert.deepEqual(sent.params, {
    name: "p", base_url: "http://127.0.0.1:8080/v1", model: "m", api: "chat", api_key_env: null, template: null,
    cap_field: "max_completion_tokens", no_temperature: true, extra: ['reasoning={"effort":"low"}', "top_p=0.5"],
    temperature: 0.7, max_tokens: 0, limit: null, timeout: 30, attempts: 0,
  });
});
