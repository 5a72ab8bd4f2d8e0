// The adjudicate view's model (src/components/adjudicate.svelte.ts) in node: the draft final
// label, the key map, unsaved drafts kept across navigation, saving and moving on, against a
// fake core installed as Tauri's invoke.
import assert from "node:assert/strict";
import { test } from "node:test";
import { installCore, settle } from "../support/fakeCore.mjs";
import { adjRows, session, UNICODE_PASSAGE } from "../support/fixtures.mjs";
import { AdjudicateModel } from "../../src/components/adjudicate.svelte.ts";
import { adjudicateCommand, editedValue, nextField, savedOutcome } from "../../src/lib/adjudicate.ts";

let n = 0;
const project = () => ({ ...session, project_path: `/tmp/unit-adjudicate-${++n}.forcebench` });

async function opened(answers = {}) {
  const core = installCore(answers);
  const m = new AdjudicateModel(project());
  await m.start();
  await settle();
  return { core, m };
}

const press = (m, key, target = "other", mods = {}) => m.keydown({ key, ...mods }, target);

test("opening reads the roster, picks the adjudicator and shows the first open row", async () => {
  const { core, m } = await opened();
  assert.equal(m.adjudicator, "Eve", "the roster's adjudicator");
  assert.deepEqual(core.of("adjudication_page")[0], {
    query: { filter: { axis: null, source: null, pair: null, open_only: false }, offset: 0, limit: 200, around: null, open_after: "" },
  });
  assert.deepEqual(core.of("adjudication_row")[0], { id: "fx-adj-1", hide_names: false });
  assert.equal(m.row?.candidate.id, "fx-adj-1");
  assert.equal(m.focus, "decision", "the first field where A and B differ");
  assert.equal(m.saveState, "idle");
});

test("who may adjudicate is the core's word, not the window's reading of roles", async () => {
  // A roster where the core lets the lead adjudicate and not the person called "adjudicator" (a
  // rule the window cannot guess from the roles): the menu offers exactly whom the core allows.
  const people = [
    { id: 1, name: "Ana", role: "annotator", created_at: "2025-01-01T00:00:00Z", assigned: 4, may_adjudicate: false },
    { id: 5, name: "Eve", role: "adjudicator", created_at: "2025-01-01T00:00:00Z", assigned: 0, may_adjudicate: false },
    { id: 9, name: "Lee", role: "lead", created_at: "2025-01-01T00:00:00Z", assigned: 0, may_adjudicate: true },
  ];
  const { m } = await opened({ list_annotators: () => people });
  assert.deepEqual(m.adjudicators.map((p) => p.name), ["Lee"]);
  assert.equal(m.adjudicator, "Lee");
});

test("the draft label: open while A and B differ; a decision decides which fields it has and where j/k go", async () => {
  const { m } = await opened();
  assert.equal(m.drafts.decision.how, "open");
  assert.equal(m.drafts.calibrated_claim.how, "agreed");
  assert.equal(m.decided, false);
  assert.equal(m.relevant.size, m.fieldRows.length, "undecided: every field");
  press(m, "a");
  assert.deepEqual(m.drafts.decision, { value: "accept_force_gap", how: "chosen" });
  assert.equal(m.decided, true);
  assert.deepEqual([...m.relevant].sort(), ["axis", "calibrated_claim", "decision", "evidence_span", "raised_claim", "repair", "severity"]);
  assert.deepEqual(m.conflicts, ["decision", "evidence_span", "raised_claim", "axis", "severity"]);
  assert.equal(m.changed, true);
  assert.equal(m.saveState, "unsaved");
  press(m, "b");
  assert.deepEqual([...m.relevant].sort(), ["boundary_type", "decision"], "a rejection needs the boundary type only");
  assert.deepEqual(m.conflicts, ["decision", "boundary_type"]);
});

test("a value neither annotator gave overrides both and needs a rationale", async () => {
  const { m } = await opened();
  press(m, "a");
  m.take("raised_claim", "suggestion");
  assert.deepEqual(m.overriding.map((f) => f.field), ["raised_claim"]);
  assert.equal(m.needsRationale, true);
  m.rationale = "the suggestion states the gap";
  assert.equal(m.needsRationale, false);
  m.take("raised_claim", "a");
  assert.deepEqual(m.overriding, [], "A's value overrides nobody");
});

test("needs discussion is never taken as a final decision", async () => {
  const { m } = await opened({
    adjudication_row: () => {
      const r = structuredClone(adjRows["fx-adj-1"]);
      r.fields[0].a = "needs_discussion";
      return r;
    },
  });
  press(m, "a");
  assert.equal(m.choices.decision, undefined);
  assert.equal(m.drafts.decision.how, "open");
});

test("keys map to commands; Enter on a button is the button's; modified keys are none", () => {
  assert.deepEqual(adjudicateCommand({ key: "a" }), { do: "take", which: "a" });
  assert.deepEqual(adjudicateCommand({ key: "b" }), { do: "take", which: "b" });
  assert.deepEqual(adjudicateCommand({ key: "s" }), { do: "take", which: "suggestion" });
  assert.deepEqual(adjudicateCommand({ key: "e" }), { do: "edit" });
  assert.deepEqual(adjudicateCommand({ key: "Enter" }), { do: "edit" });
  assert.equal(adjudicateCommand({ key: "Enter" }, "button"), null);
  assert.deepEqual(adjudicateCommand({ key: "j" }), { do: "move", by: 1, conflicts: true });
  assert.deepEqual(adjudicateCommand({ key: "p" }), { do: "move", by: -1, conflicts: true });
  assert.deepEqual(adjudicateCommand({ key: "ArrowDown" }), { do: "move", by: 1, conflicts: false });
  assert.deepEqual(adjudicateCommand({ key: "]" }), { do: "step", by: 1 });
  assert.deepEqual(adjudicateCommand({ key: "[" }), { do: "step", by: -1 });
  assert.deepEqual(adjudicateCommand({ key: "r" }), { do: "rationale" });
  assert.deepEqual(adjudicateCommand({ key: "3" }), { do: "check", n: 3 });
  assert.deepEqual(adjudicateCommand({ key: "h" }), { do: "hide" });
  assert.equal(adjudicateCommand({ key: "a", ctrlKey: true }), null);
  for (const key of ["x", "0", "A", "Tab", "l"]) assert.equal(adjudicateCommand({ key }), null, key);
});

test("j/k move among the conflicts, arrows among all fields, both wrapping", async () => {
  assert.equal(nextField(["a", "b", "c", "d"], "d", 1, []), "a");
  assert.equal(nextField(["a", "b", "c", "d"], "a", -1, ["c"]), "c");
  const { m } = await opened();
  press(m, "a");
  press(m, "j");
  assert.equal(m.focus, "evidence_span");
  press(m, "j");
  assert.equal(m.focus, "raised_claim", "calibrated claim agrees: skipped");
  press(m, "ArrowUp");
  assert.equal(m.focus, "calibrated_claim");
  press(m, "k");
  press(m, "k");
  assert.equal(m.focus, "decision");
  press(m, "k");
  assert.equal(m.focus, "severity", "back round from the decision");
});

test("an unsaved draft survives row navigation: the view asks, Stay keeps it, Discard drops it", async () => {
  const { core, m } = await opened();
  press(m, "a");
  press(m, "]");
  await settle();
  assert.deepEqual(m.leaving, { to: "fx-adj-2" });
  assert.equal(m.row?.candidate.id, "fx-adj-1", "the view stays");
  assert.equal(core.of("adjudication_row").length, 1, "the next row was not even read");
  assert.equal(press(m, "b"), null, "no key acts on the row while asked");
  press(m, "Escape");
  assert.equal(m.leaving, null);
  assert.deepEqual(m.choices.decision, { take: "a" }, "Stay keeps the draft");
  await m.toggleHide();
  await settle();
  assert.deepEqual(m.choices.decision, { take: "a" }, "the same row read again (names hidden) keeps it too");
  press(m, "]");
  await settle();
  m.discard();
  await settle();
  assert.equal(m.row?.candidate.id, "fx-adj-2");
  assert.deepEqual(m.choices, {});
  assert.equal(m.changed, false);
});

test("a refresh never overwrites a draft", async () => {
  const { core, m } = await opened();
  press(m, "b");
  const reads = core.of("adjudication_row").length;
  await m.refreshFromProject();
  assert.equal(core.of("adjudication_row").length, reads, "the row is not read again under a draft");
  assert.deepEqual(m.choices.decision, { take: "b" });
});

test("keys typed into a field, or anything with the identity, change no label and never the adjudicator", async () => {
  const { core, m } = await opened();
  for (const key of ["a", "b", "s", "1", "]", "h", "l", "e"]) assert.equal(press(m, key, "field"), null, key);
  assert.deepEqual(m.choices, {});
  assert.equal(m.hide, false);
  assert.equal(m.mode, "queue");
  assert.deepEqual(press(m, "Escape", "field"), { focus: "leave-field" });
  for (const key of ["ArrowDown", "ArrowUp", "E", "v", " ", "Enter"]) press(m, key, "button");
  await settle();
  assert.equal(m.adjudicator, "Eve");
  m.chooseAdjudicator("Ana");
  assert.equal(m.adjudicator, "Ana", "only choosing changes it");
  assert.equal(core.of("resolve_row").length, 0);
});

test("saving checks the draft first, then resolves the row and moves to the next open one", async () => {
  const { core, m } = await opened();
  await m.save();
  assert.match(m.problem ?? "", /^Choose a final decision first/);
  assert.equal(core.of("resolve_row").length, 0);
  m.take("decision", "a");
  m.focus = "axis";
  await m.save();
  assert.equal(m.problem, "Settle evidence span, raised claim, axis, severity first: take A, take B or edit.");
  assert.equal(m.focus, "evidence_span");
  for (const f of ["evidence_span", "raised_claim", "axis", "severity"]) m.take(f, "a");
  press(m, "1");
  press(m, "Enter", "other", { ctrlKey: true });
  await settle();
  assert.equal(m.problem, null);
  const [sent] = core.of("resolve_row");
  assert.equal(sent.id, "fx-adj-1");
  assert.equal(sent.adjudicator, "Eve");
  assert.equal(sent.hide_names, false);
  assert.deepEqual(sent.resolution.choices, [
    ["decision", { take: "a" }],
    ["evidence_span", { take: "a" }],
    ["raised_claim", { take: "a" }],
    ["axis", { take: "a" }],
    ["severity", { take: "a" }],
  ]);
  assert.equal(sent.resolution.rationale, null);
  assert.equal(sent.resolution.checklist.span_decisive, true, "key 1 answered the first question yes");
  assert.deepEqual(core.of("adjudication_page").at(-1).query.open_after, "fx-adj-1");
  assert.equal(m.row?.candidate.id, "fx-adj-2");
  assert.equal(m.advanced, "Saved fx-adj-1 (accepted). Next open row: fx-adj-2.");
});

test("checklist keys cycle unanswered, yes, no; a key past the questions is not taken", async () => {
  const { m } = await opened();
  press(m, "2");
  assert.equal(m.checklist.calibrated_supported, true);
  press(m, "2");
  assert.equal(m.checklist.calibrated_supported, false);
  press(m, "2");
  assert.equal(m.checklist.calibrated_supported, null);
  assert.equal(press(m, "9"), null);
  assert.equal(m.changed, false, "back where it started");
});

test("the field editor: a span must be verbatim (stored with UTF-8 byte offsets); Escape cancels", async () => {
  const { m } = await opened();
  await m.startEdit("evidence_span");
  assert.equal(m.editing, "evidence_span");
  m.editText = "not in the passage";
  assert.equal(m.commitEdit(), false);
  assert.equal(m.editError, "The span must be a verbatim part of the passage.");
  m.editText = " Zürich ";
  assert.equal(m.commitEdit(), true);
  const start = Buffer.byteLength(UNICODE_PASSAGE.slice(0, UNICODE_PASSAGE.indexOf("Zürich")));
  assert.deepEqual(JSON.parse(m.choices.evidence_span.value), { text: "Zürich", start, end: start + Buffer.byteLength("Zürich") });
  await m.startEdit("repair");
  assert.equal(m.editKey({ key: "Escape" }), true);
  assert.equal(m.editing, null);
  assert.equal(m.choices.repair, undefined);
  assert.deepEqual(editedValue("repair", "  ", "", null), { value: null });
  assert.deepEqual(editedValue("axis", "", "", null), { error: "Choose a value." });
});

test("l switches to the locality audit and back, not from a field", async () => {
  const { m } = await opened();
  assert.equal(press(m, "l", "field"), null);
  assert.equal(m.mode, "queue");
  press(m, "l");
  assert.equal(m.mode, "locality");
  assert.equal(press(m, "a"), null, "the row's keys rest in the audit");
  press(m, "l");
  await settle();
  assert.equal(m.mode, "queue");
});

test("a saved row is said accepted, rejected, or held back by QC, as the core says", () => {
  // The window no longer decides which failed checks hold a row back: it reads the core's
  // `held_back_by_qc`, even where the checks it has would say otherwise.
  const row = (decision, held, qc = []) => ({ adjudication: { decision }, held_back_by_qc: held, qc });
  const failedError = [{ passed: false, severity: "error" }];
  assert.equal(savedOutcome(row("reject_not_force_gap", false)), "rejected");
  assert.equal(savedOutcome(row("accept_force_gap", false)), "accepted");
  assert.equal(savedOutcome(row("accept_force_gap", true)), "held back by QC");
  assert.equal(savedOutcome(row("accept_force_gap", false, failedError)), "accepted");
  assert.equal(savedOutcome(row("accept_force_gap", true, [])), "held back by QC");
});
