// The annotate view's model (src/components/annotate.svelte.ts) in node: the commands it sends
// to a fake core, the queue window, the drafts, the span keys, the time ticker and the key map.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flushSync } from "svelte";
import { installCore, settle } from "../support/fakeCore.mjs";
import { session, UNICODE_PASSAGE } from "../support/fixtures.mjs";
import { AnnotateModel } from "../../src/components/annotate.svelte.ts";
import { annotateCommand, describeUndo, moveSpan, sameQueue, spanFrom, TIME_FLUSH_S, windowFrom } from "../../src/lib/annotate.ts";

// Each test opens its own project, so the annotator picked in one is not picked again in the next.
let n = 0;
const project = () => ({ ...session, project_path: `/tmp/unit-annotate-${++n}.forcebench` });

async function opened(who = "Ana", answers = {}) {
  const core = installCore(answers);
  const m = new AnnotateModel(project(), { focused: () => true });
  await m.choose(who);
  await settle();
  return { core, m };
}

test("choosing an annotator opens their first row not finished, with a window of their queue around it", async () => {
  const { core, m } = await opened("Ana");
  assert.deepEqual(core.of("annotate_next_open")[0], { annotator: "Ana", after: null });
  assert.deepEqual(core.of("annotate_queue_page")[0], { query: { annotator: "Ana", offset: 0, limit: 600 } });
  assert.deepEqual(core.of("annotate_row")[0], { id: "fx-zurich", annotator: "Ana" });
  assert.equal(m.row?.id, "fx-zurich");
  assert.equal(m.total, 4);
  assert.equal(m.done, 1, "fx-003 is finished");
  assert.deepEqual(m.railRows.map((r) => r.id), ["fx-zurich", "fx-001", "fx-003", "fx-002"]);
  assert.equal(m.drafts.calibrated_claim, m.row.annotation.calibrated_claim, "the text drafts start from the annotation");
});

test("a lead's project offers the annotators with rows, and picks the one picked before again", async () => {
  installCore();
  const p = project();
  const first = new AnnotateModel(p, { focused: () => true });
  assert.equal(await first.start(), false, "nobody picked yet: the roster is offered");
  assert.deepEqual(first.candidates.map((a) => a.name), ["Ana", "Ben"], "Eve has no rows");
  await first.choose("Ben");
  const again = new AnnotateModel(p, { focused: () => true });
  assert.equal(await again.start(), true);
  assert.equal(again.annotator, "Ben");
  const ws = new AnnotateModel({ ...project(), workspace: { annotator: "Ana", packet: "p.json" } }, { focused: () => true });
  assert.equal(ws.annotator, "Ana", "a workspace's annotator is fixed");
});

test("keys map to commands; modified keys and unknown letters to none", () => {
  const cases = [
    ["a", { do: "pick", field: "decision", value: "accept_force_gap" }],
    ["r", { do: "pick", field: "decision", value: "reject_not_force_gap" }],
    ["d", { do: "pick", field: "decision", value: "needs_discussion" }],
    ["1", { do: "pick", field: "axis", value: "relation" }],
    ["5", { do: "pick", field: "axis", value: "numeric" }],
    ["z", { do: "pick", field: "severity", value: 1 }],
    ["c", { do: "pick", field: "severity", value: 3 }],
    ["n", { do: "step", by: 1 }],
    ["j", { do: "step", by: 1 }],
    ["p", { do: "step", by: -1 }],
    ["k", { do: "step", by: -1 }],
    ["N", { do: "next-open" }],
    ["u", { do: "undo" }],
    ["y", { do: "confirm" }],
    ["s", { do: "span" }],
    ["t", { do: "boundary" }],
    ["o", { do: "notes" }],
    ["?", { do: "guide" }],
    ["g", { do: "guide" }],
  ];
  for (const [key, want] of cases) assert.deepEqual(annotateCommand({ key }), want, key);
  assert.deepEqual(annotateCommand({ key: "z", ctrlKey: true }), { do: "undo" }, "Ctrl+Z undoes");
  assert.deepEqual(annotateCommand({ key: "Z", metaKey: true }), { do: "undo" }, "Cmd+Z undoes");
  assert.equal(annotateCommand({ key: "a", ctrlKey: true }), null, "Ctrl+A is the browser's");
  assert.equal(annotateCommand({ key: "z", ctrlKey: true, altKey: true }), null);
  for (const key of ["q", "w", "Tab", "ArrowDown", "A", " "]) assert.equal(annotateCommand({ key }), null, key);
});

test("a decision key saves the decision once; the same key again records nothing", async () => {
  const { core, m } = await opened();
  assert.deepEqual(m.keydown({ key: "a" }, false), {});
  assert.equal(m.ann?.decision, "accept_force_gap", "shown at once");
  assert.equal(m.saveState, "saving");
  await settle();
  assert.deepEqual(core.of("set_field"), [{ id: "fx-zurich", annotator: "Ana", field: "decision", value: "accept_force_gap" }]);
  assert.equal(m.saveState, "saved");
  assert.equal(m.queue?.rows[0].decision, "accept_force_gap", "the rail shows it");
  m.keydown({ key: "a" }, false);
  m.keydown({ key: "x" }, false);
  await settle();
  assert.equal(core.of("set_field").length, 1, "the decision and severity 2 are already the values");
});

test("keys typed into a field, or with a modifier, change nothing; Escape leaves the field", async () => {
  const { core, m } = await opened();
  for (const key of ["a", "1", "z", "n", "u", "y", "s"]) assert.equal(m.keydown({ key }, true), null, key);
  assert.equal(m.keydown({ key: "a", altKey: true }, false), null);
  assert.deepEqual(m.keydown({ key: "Escape" }, true), { focus: "leave-field" });
  await settle();
  assert.equal(core.of("set_field").length, 0);
  assert.equal(m.row?.id, "fx-zurich");
  assert.equal(m.spanMode, null);
});

test("no key changes whose queue it is: only choosing does", async () => {
  const { core, m } = await opened("Ana");
  for (const key of ["b", "B", "ArrowDown", "ArrowUp", "Enter", " ", "e", "h", "l", "Ben"]) m.keydown({ key }, false);
  await settle();
  assert.equal(m.annotator, "Ana");
  assert.ok(core.of("set_field").every((a) => a.annotator === "Ana"));
  assert.ok(core.of("annotate_queue_page").every((a) => a.query.annotator === "Ana"));
});

test("typed text not saved yet is saved for its own row when the view moves to another row", async () => {
  const { core, m } = await opened();
  m.drafts.notes = "check the date";
  m.typed("notes");
  m.keydown({ key: "n" }, false);
  await settle();
  assert.deepEqual(core.of("set_field")[0], { id: "fx-zurich", annotator: "Ana", field: "notes", value: "check the date" });
  assert.equal(m.row?.id, "fx-001");
  assert.equal(m.drafts.notes, "", "the next row's own notes");
  m.keydown({ key: "p" }, false);
  await settle();
  assert.equal(m.drafts.notes, "check the date", "coming back shows the note saved");
});

test("a refresh never overwrites text being typed", async () => {
  const { core, m } = await opened();
  m.drafts.repair = "my own repair";
  m.typed("repair");
  core.state.annotate.rows["fx-zurich"].annotation.repair = "someone else's";
  await m.refreshFromProject();
  assert.equal(m.drafts.repair, "my own repair");
  m.saveText("repair");
  await settle();
  assert.deepEqual(core.of("set_field").at(-1), { id: "fx-zurich", annotator: "Ana", field: "repair", value: "my own repair" });
});

test("the span keys choose words and save the span with UTF-8 byte offsets; Escape saves nothing", async () => {
  const { core, m } = await opened();
  assert.equal(m.row?.passage, UNICODE_PASSAGE);
  m.keydown({ key: "s" }, false);
  assert.deepEqual(m.spanMode, { a: 0, b: 0 });
  m.keydown({ key: "ArrowRight" }, false); // start on "Zürich"
  m.keydown({ key: "ArrowRight", shiftKey: true }, false);
  m.keydown({ key: "ArrowRight", shiftKey: true }, false);
  assert.deepEqual(m.spanMode, { a: 1, b: 3 });
  assert.equal(m.passagePieces.find((p) => p.marked)?.tone, "preview");
  m.keydown({ key: "Escape" }, false);
  assert.equal(m.spanMode, null);
  await settle();
  assert.equal(core.of("set_field").length, 0, "cancelled");
  m.keydown({ key: "s" }, false);
  m.keydown({ key: "ArrowRight" }, false);
  m.keydown({ key: "ArrowRight", shiftKey: true }, false);
  assert.deepEqual(m.keydown({ key: "q" }, false), {}, "while choosing a span every key is the span's");
  m.keydown({ key: "Enter" }, false);
  await settle();
  const sent = core.of("set_field")[0];
  assert.equal(sent.field, "evidence_span");
  const text = "Zürich — a"; // the dash is not a word of its own
  const start = Buffer.byteLength(UNICODE_PASSAGE.slice(0, UNICODE_PASSAGE.indexOf(text)));
  assert.deepEqual(JSON.parse(sent.value), { text, start, end: start + Buffer.byteLength(text) });
  m.selectSpan(50, 30);
  await settle();
  assert.equal(JSON.parse(core.of("set_field")[1].value).text, UNICODE_PASSAGE.slice(30, 50).trim(), "a mouse selection either way round");
});

test("time counts while focused, is sent on leaving the row and every 30 s, and is not lost coming back", async () => {
  let focused = true;
  const core = installCore();
  const m = new AnnotateModel(project(), { focused: () => focused });
  await m.choose("Ana");
  await settle();
  m.second();
  m.second();
  focused = false;
  m.second();
  assert.equal(m.seconds, 2, "not counted without the focus");
  focused = true;
  await m.step(1);
  await settle();
  assert.deepEqual(core.of("add_time"), [{ id: "fx-zurich", annotator: "Ana", seconds: 2 }]);
  assert.equal(m.seconds, 0);
  for (let i = 0; i < TIME_FLUSH_S; i++) m.second();
  await settle();
  assert.deepEqual(core.of("add_time")[1], { id: "fx-001", annotator: "Ana", seconds: TIME_FLUSH_S });
  // The core's figure lags behind (a report still on its way): the window's own stays.
  core.state.annotate.rows["fx-zurich"].annotation.seconds_spent = 0;
  await m.step(-1);
  await settle();
  assert.equal(m.baseSeconds, 2);
  m.destroy();
});

test("u undoes this session's changes; with none left it asks once before reaching back", async () => {
  const { core, m } = await opened();
  core.state.annotate.rows["fx-zurich"].annotation.can_undo = true; // an import's change
  await m.refreshFromProject();
  m.keydown({ key: "u" }, false);
  await settle();
  assert.equal(core.of("undo_change").length, 0, "the first u only says so");
  assert.match(m.undone ?? "", /u again undoes an earlier change/);
  m.keydown({ key: "r" }, false);
  await settle();
  m.keydown({ key: "u" }, false);
  await settle();
  assert.equal(core.of("undo_change").length, 1, "this session's change is undone at once");
  assert.equal(m.undone, "Undone: decision back to empty.");
  assert.equal(m.ann?.decision, null);
});

test("an undo is described by the fields it changed", () => {
  const a = { decision: null, evidence_span: null, calibrated_claim: null, raised_claim: null, axis: "numeric", severity: 2, boundary_type: null, repair: null, notes: null, suggested: [] };
  assert.equal(describeUndo({ ...a, axis: "scope" }, a), "Undone: axis back to Numeric.");
  assert.equal(describeUndo(a, { ...a, suggested: ["axis"] }), "Undone: the confirmation of the axis, a suggestion again.");
  assert.equal(describeUndo(a, a), "Nothing to undo.");
});

test("the window holds the current row's block and one block on each side; an unchanged window is kept", () => {
  assert.equal(windowFrom(0), 0);
  assert.equal(windowFrom(199), 0);
  assert.equal(windowFrom(200), 0);
  assert.equal(windowFrom(400), 200);
  assert.equal(windowFrom(1234), 1000);
  const page = { total: 2, finished: 0, offset: 0, rows: [{ id: "x", position: 1, decision: null, finished: false, started: false }] };
  assert.ok(sameQueue(structuredClone(page), page));
  assert.ok(!sameQueue({ ...page, finished: 1 }, page));
  assert.ok(!sameQueue(page, null));
});

test("steps past the window read the window around the new row first", async () => {
  const ids = Array.from({ length: 700 }, (_, i) => `r${i}`);
  const core = installCore();
  const row = core.state.annotate.rows["fx-001"];
  for (const id of ids) core.state.annotate.rows[id] = { ...structuredClone(row), annotation: { ...row.annotation, candidate_id: id } };
  core.state.annotate.queues.Ana = ids;
  const m = new AnnotateModel(project(), { focused: () => true });
  await m.choose("Ana");
  await settle();
  assert.equal(m.railRows.length, 600);
  assert.equal(m.later, 100);
  for (let i = 0; i < 400; i++) await m.step(1);
  await settle();
  assert.equal(m.row?.id, "r400");
  assert.equal(m.queue?.offset, 200, "the window moved to keep r400 in its middle block");
  assert.equal(m.earlier, 200);
  assert.ok(core.of("annotate_queue_page").some((a) => a.query.offset === 200));
});

test("y confirms the suggestions shown, and says which", async () => {
  const { core, m } = await opened();
  core.state.annotate.rows["fx-zurich"].annotation.suggested = ["axis", "severity"];
  await m.refreshFromProject();
  assert.equal(m.suggestedNames, "axis and severity");
  m.keydown({ key: "y" }, false);
  await settle();
  assert.deepEqual(core.of("confirm_suggestions"), [{ id: "fx-zurich", annotator: "Ana" }]);
  assert.equal(m.confirmedNote, "Confirmed axis and severity.");
  m.keydown({ key: "y" }, false);
  assert.equal(m.confirmedNote, "Nothing left to confirm.");
});

test("a failed save shows the core's error and the state says so", async () => {
  const { m } = await opened("Ana", { set_field: () => Promise.reject({ code: "locked_split", message: "frozen" }) });
  m.keydown({ key: "r" }, false);
  await settle();
  assert.equal(m.saveState, "error");
  assert.equal(m.saveError?.code, "locked_split");
  flushSync();
});

test("span arithmetic: starts on the saved span's words; arrows move the start, Shift moves the end, never past the words", () => {
  const words = [{ from: 0, to: 2 }, { from: 3, to: 5 }, { from: 6, to: 9 }];
  assert.deepEqual(spanFrom(words, null), { a: 0, b: 0 });
  assert.deepEqual(spanFrom(words, { from: 3, to: 9 }), { a: 1, b: 2 });
  assert.deepEqual(moveSpan({ a: 0, b: 0 }, { key: "ArrowRight" }, 3), { a: 1, b: 1 });
  assert.deepEqual(moveSpan({ a: 1, b: 1 }, { key: "ArrowRight", shiftKey: true }, 3), { a: 1, b: 2 });
  assert.deepEqual(moveSpan({ a: 1, b: 2 }, { key: "ArrowRight", shiftKey: true }, 3), { a: 1, b: 2 }, "not past the last word");
  assert.deepEqual(moveSpan({ a: 1, b: 2 }, { key: "ArrowLeft", shiftKey: true }, 3), { a: 1, b: 1 });
  assert.deepEqual(moveSpan({ a: 1, b: 1 }, { key: "ArrowLeft", shiftKey: true }, 3), { a: 1, b: 1 }, "the end never before the start");
  assert.deepEqual(moveSpan({ a: 2, b: 2 }, { key: "Home" }, 3), { a: 0, b: 0 });
  assert.equal(moveSpan({ a: 0, b: 1 }, { key: "Enter" }, 3), "save");
  assert.equal(moveSpan({ a: 0, b: 1 }, { key: "Escape" }, 3), "cancel");
  assert.equal(moveSpan({ a: 0, b: 1 }, { key: "Backspace" }, 3), "clear");
});
