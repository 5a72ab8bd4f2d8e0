// The split view's state (components/split.svelte.ts) driven in node through fake commands: what it
// sends, what it keeps, and that a refusal shown is the shell's own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flushSync } from "svelte";
import { SplitViewState } from "../../src/components/split.svelte.ts";
import { draftSplit, exportReport, lockedSplit, splitStatus, unreviewedSplit, verifyReport } from "../support/splitFixtures.mjs";

const DEFAULTS = { caps: {}, per_axis: 40, seed: 1, strata: ["source_dataset"] };

/** Fake shell commands answering from `state`; every call is recorded in `calls`. */
function fakeShell({ split = null, refuse = {} } = {}) {
  const calls = [];
  const state = { split };
  const answer = (cmd, args, value) => {
    calls.push({ cmd, args });
    if (refuse[cmd]) return Promise.reject(refuse[cmd]);
    return Promise.resolve(structuredClone(value()));
  };
  const ipc = {
    splitDefaults: () => answer("split_defaults", {}, () => DEFAULTS),
    splitShow: () => answer("split_show", {}, () => state.split),
    projectStatus: () => answer("project_status", {}, () => splitStatus),
    splitDraft: (params) =>
      answer("split_draft", { params }, () => (state.split = { ...draftSplit, version: (state.split?.version ?? 0) + 1, params: { ...params, strata: ["source_dataset"] } })),
    splitLock: (allowUnreviewed) => answer("split_lock", { allow_unreviewed: allowUnreviewed ?? false }, () => (state.split = { ...state.split, status: "locked", locked_at: lockedSplit.locked_at })),
    splitPacketsAtLock: () => answer("split_packets_at_lock", {}, () => [{ packet_id: "p1", annotator: "ann", rows: 3, frozen: 2, returns_merged: 0 }]),
    async splitExport(dir, onprogress) {
      calls.push({ cmd: "split_export", args: { dir } });
      // The shell refuses a blank folder before writing anything, in its words.
      if (!dir.trim()) throw { code: "invalid_argument", message: "type the folder to export the split to" };
      onprogress({ done: 1, total: 2, file: "eval.jsonl" });
      if (refuse.split_export_after) throw refuse.split_export_after;
      onprogress({ done: 2, total: 2, file: "manifest.json" });
      return exportReport(dir);
    },
    splitVerify: (dir) => answer("split_verify", { dir }, () => verifyReport(dir)),
  };
  return { ipc, calls, state, sent: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args) };
}

const view = (shell) => new SplitViewState(() => "/data/proj/study.forcebench", shell.ipc);

test("opening fills the form with the core's defaults, then a split's own parameters and export folder", async () => {
  const none = fakeShell();
  const empty = view(none);
  await empty.open();
  assert.equal(empty.loaded, true);
  assert.equal(empty.split, null);
  assert.deepEqual({ perAxis: empty.form.perAxis, seed: empty.form.seed, relation: empty.form.caps.relation }, { perAxis: "40", seed: "1", relation: "" });
  assert.equal(empty.acceptedTotal, splitStatus.funnel.accepted);
  assert.equal(empty.acceptedNow("relation"), splitStatus.funnel.by_axis.relation.accepted);

  const shell = fakeShell({ split: draftSplit });
  const v = view(shell);
  await v.open();
  assert.equal(v.form.perAxis, "8", "the split's parameters replace the defaults");
  assert.equal(v.form.caps.relation, "12");
  assert.equal(v.exportDir, "/data/proj/study-split-v1");
  assert.equal(v.locked, false);
  assert.equal(v.formDiffers, false);
  assert.equal(v.rows, draftSplit.counts.retained + draftSplit.counts.locality_removed + draftSplit.counts.capped);
  assert.deepEqual(v.chain.line.map((s) => s.key).at(-1), "eval");
  assert.deepEqual(v.sources, [...v.sources].sort());
});

test("a load refusal is kept as the shell sent it", async () => {
  const refusal = { code: "database", message: "database disk image is malformed" };
  const v = view(fakeShell({ refuse: { split_show: refusal } }));
  await v.open();
  assert.equal(v.loaded, true);
  assert.deepEqual({ code: v.loadError.code, message: v.loadError.message }, refusal);
});

test("a form with a problem sends nothing and says so beside the field; a good one drafts", async () => {
  const shell = fakeShell({ split: draftSplit });
  const v = view(shell);
  await v.open();
  v.form.perAxis = "0";
  flushSync();
  assert.deepEqual(v.errors, {}, "nothing is said before the first Draft");
  assert.equal(await v.draft(), false);
  assert.deepEqual(shell.sent("split_draft"), []);
  assert.match(v.errors.per_axis, /at least 1/);

  v.form.perAxis = "9";
  v.form.caps.relation = "";
  flushSync();
  assert.equal(v.formDiffers, true, "the form now asks for something else than the split shown");
  v.exported = exportReport("/x");
  assert.equal(await v.draft(), true);
  assert.deepEqual(shell.sent("split_draft"), [{ params: { caps: {}, per_axis: 9, seed: 1 } }]);
  assert.equal(v.split.version, 2);
  assert.equal(v.exportDir, "/data/proj/study-split-v2");
  assert.equal(v.exported, null, "a new draft forgets the last export");
  assert.equal(v.formDiffers, false);
  assert.deepEqual(v.errors, {});
});

test("reading again keeps what is typed for the same version, and shows a new version's parameters", async () => {
  const shell = fakeShell({ split: draftSplit });
  const v = view(shell);
  await v.open();
  v.form.seed = "77";
  await v.reread();
  assert.equal(v.form.seed, "77", "same version: the typed seed stays");
  shell.state.split = { ...draftSplit, version: 2, params: { ...draftSplit.params, seed: 5 } };
  await v.reread();
  assert.equal(v.split.version, 2);
  assert.equal(v.form.seed, "5", "another version appeared: its parameters are shown");
});

test("the lock names the packets out, locks, and keeps a refusal with the dialog open", async () => {
  const refusal = { code: "split_stale", message: "2 rows of the draft are no longer accepted" };
  const refused = fakeShell({ split: draftSplit, refuse: { split_lock: refusal } });
  const r = view(refused);
  await r.open();
  await r.askLock();
  assert.equal(r.confirming, true);
  assert.equal(r.packetsOut.length, 1);
  await r.lock();
  assert.equal(r.confirming, true, "a refused lock leaves the dialog open");
  assert.equal(r.locking, false);
  assert.deepEqual({ code: r.lockError.code, message: r.lockError.message }, refusal);
  r.cancelLock();
  assert.equal(r.confirming, false);

  const shell = fakeShell({ split: draftSplit });
  const v = view(shell);
  await v.open();
  await v.askLock();
  await v.lock();
  assert.equal(v.confirming, false);
  assert.equal(v.locked, true);
  assert.equal(v.lockError, null);
});

test("the lock waits for the audit: the rows are the core's, and Lock anyway says so to the core", async () => {
  const refusal = { code: "audit_unfinished", message: "split v1 cannot be locked yet: 1 selected row(s) have a locality warning nobody reviewed: fb-0009" };
  const shell = fakeShell({ split: unreviewedSplit, refuse: { split_lock: refusal } });
  const v = view(shell);
  await v.open();
  assert.deepEqual(v.unfinishedAudit, ["fb-0009"]);
  await v.askLock();
  await v.lock();
  assert.deepEqual(shell.sent("split_lock"), [{ allow_unreviewed: false }], "a plain lock never skips the audit");
  assert.deepEqual({ code: v.lockError.code, message: v.lockError.message }, refusal);

  const anyway = fakeShell({ split: unreviewedSplit });
  const w = view(anyway);
  await w.open();
  await w.askLock();
  await w.lock(true);
  assert.deepEqual(anyway.sent("split_lock"), [{ allow_unreviewed: true }]);
  assert.equal(w.locked, true);
  assert.deepEqual(view(fakeShell({ split: draftSplit })).unfinishedAudit, []);
});

test("export sends a blank folder and shows the shell's refusal, with no progress of its own", async () => {
  const shell = fakeShell({ split: lockedSplit });
  const v = view(shell);
  await v.open();
  v.exportDir = "   ";
  await v.exportSplit();
  assert.deepEqual(shell.sent("split_export"), [{ dir: "" }], "the rule is the shell's: the window sends it");
  assert.deepEqual({ code: v.exportError.code, message: v.exportError.message }, { code: "invalid_argument", message: "type the folder to export the split to" });
  assert.equal(v.progress, null, "nothing started");
  assert.equal(v.exporting, false);

  v.exportDir = " /out/split ";
  await v.exportSplit();
  assert.deepEqual(shell.sent("split_export").at(-1), { dir: "/out/split" });
  assert.equal(v.exportError, null);
  assert.equal(v.exported.dir, "/out/split");
  assert.deepEqual(v.progress, { done: 2, total: 2, file: "manifest.json" });

  v.exportDir = "";
  await v.verify();
  assert.deepEqual(shell.sent("split_verify"), [{ dir: "" }]);
  assert.equal(v.verified.dir, "");
});

test("an export failing mid-way keeps its progress and the shell's words", async () => {
  const failure = { code: "io", message: "/readonly/split: Permission denied (os error 13)" };
  const v = view(fakeShell({ split: lockedSplit, refuse: { split_export_after: failure } }));
  await v.open();
  await v.exportSplit();
  assert.deepEqual({ code: v.exportError.code, message: v.exportError.message }, failure);
  assert.deepEqual(v.progress, { done: 1, total: 2, file: "eval.jsonl" }, "how far it got stays shown");
  assert.equal(v.exported, null);
});
