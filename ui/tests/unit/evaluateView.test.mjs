// The evaluate view's state (components/evaluate.svelte.ts) driven in node through fake commands:
// what each action sends, what the view keeps, and that refusals are the shell's own.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EvaluateViewState } from "../../src/components/evaluate.svelte.ts";
import { baselineReports, noLockedSplit, reports } from "../support/evaluateFixtures.mjs";
import { JUDGE_CATALOG } from "../support/fixtures.mjs";

/** Fake shell commands; `refuse[cmd]` makes one fail with that payload. Every call is recorded. */
function fakeShell({ stored = reports, refuse = {}, runs = [] } = {}) {
  const calls = [];
  const state = { stored };
  const answer = (cmd, args, value) => {
    calls.push({ cmd, args });
    if (refuse[cmd]) return Promise.reject(refuse[cmd]);
    return Promise.resolve(structuredClone(value()));
  };
  const ipc = {
    evaluationCompare: () => answer("evaluation_compare", {}, () => state.stored),
    evaluationPlotsSvg: () => answer("evaluation_plots_svg", {}, () => ({ scatter: "<svg/>", heatmap: "<svg/>" })),
    judgeTemplates: () => answer("judge_templates", {}, () => JUDGE_CATALOG),
    runBaselines: () => answer("run_baselines", {}, () => (state.stored = baselineReports)),
    importScores: (path, name, map) => answer("import_scores", { path, name, map }, () => ({ ...reports.at(-1), name, label_map: map })),
    judgeExport: (template, out, seed) => answer("judge_export", { template, out, seed }, () => 66),
    judgeImport: (path, name, map) =>
      answer("judge_import", { path, name, map }, () => ({ report: { ...reports.at(-1), name }, parsing: { responses: 2, json: 2, label_in_text: 0, unparsable: [] } })),
    exportPlots: (dir) => answer("export_plots", { dir }, () => [`${dir}/mvr_fs.svg`]),
    evaluatorRemove: (name) => answer("evaluator_remove", { name }, () => ((state.stored = state.stored.filter((r) => r.name !== name)), 1)),
    judgeRuns: () => answer("judge_runs", {}, () => runs),
  };
  return { ipc, state, sent: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args) };
}

const view = (shell) => new EvaluateViewState(() => "/data/proj/study.forcebench", shell.ipc);

test("opening reads the comparison and the catalog, with paths beside the project", async () => {
  const v = view(fakeShell());
  await v.open();
  assert.equal(v.loaded, true);
  assert.equal(v.reports.length, reports.length);
  assert.equal(v.exportDir, "/data/proj/study-plots");
  assert.equal(v.judgeOut, "/data/proj/study-judge-requests.jsonl");
  assert.equal(v.version, reports[0].split_version);
  assert.ok(v.fileTemplates.length > 0 && v.fileTemplates.every((t) => !t.pairwise), "pairwise templates are not for the by-files judge");
  assert.equal(v.judgeMap, JUDGE_CATALOG.templates.find((t) => t.name === "force_aware").map);
});

test("no locked split is the empty state, not an error line", async () => {
  const v = view(fakeShell({ refuse: { evaluation_compare: noLockedSplit } }));
  await v.open();
  assert.equal(v.noSplit, true);
  assert.equal(v.loadError.message, noLockedSplit.message);
  const other = view(fakeShell({ refuse: { evaluation_compare: { code: "database", message: "locked" } } }));
  await other.open();
  assert.equal(other.noSplit, false);
});

test("sorting: MVR ascending by default, FS descending, and aria-sort says which", async () => {
  const v = view(fakeShell());
  await v.open();
  const mvr = v.sorted.map((r) => r.mvr);
  assert.deepEqual(mvr, [...mvr].sort((a, b) => a - b));
  assert.equal(v.ariaSort("mvr"), "ascending");
  v.sortBy("fs");
  const fs = v.sorted.map((r) => r.fs);
  assert.deepEqual(fs, [...fs].sort((a, b) => b - a));
  assert.equal(v.ariaSort("fs"), "descending");
  assert.equal(v.ariaSort("mvr"), "none");
});

test("a template sets its label map; a template file must be typed before anything is sent", async () => {
  const shell = fakeShell();
  const v = view(shell);
  await v.open();
  v.chooseTemplate("generic");
  assert.equal(v.judgeMap, JUDGE_CATALOG.templates.find((t) => t.name === "generic").map);
  v.judgeOut = " /data/requests.jsonl ";
  v.judgeSeed = 7;
  await v.judgeWrite();
  assert.deepEqual(shell.sent("judge_export"), [{ template: "generic", out: "/data/requests.jsonl", seed: 7 }]);
  assert.deepEqual(v.judgeWritten, { n: 66, out: "/data/requests.jsonl" });

  v.chooseTemplate("file");
  assert.equal(v.noTemplateFile, true);
  assert.match(v.aboutTemplate, /\{\{claim\}\} is required/);
  await v.judgeWrite();
  assert.equal(shell.sent("judge_export").length, 1, "a blank template would be the generic one: nothing is sent");
  assert.equal(v.judgeWriteError, null, "and the window words no refusal of its own");
  v.judgeTemplateFile = " /data/mine.txt ";
  assert.equal(v.noTemplateFile, false);
  await v.judgeWrite();
  assert.equal(shell.sent("judge_export")[1].template, "/data/mine.txt");
});

test("import, baselines and judge read score again; refusals keep the shell's words", async () => {
  const refusal = { code: "invalid_argument", message: "type the path of the scores file (JSONL)" };
  const shell = fakeShell({ refuse: { import_scores: refusal } });
  const v = view(shell);
  await v.open();
  v.importPath = "   ";
  await v.importScores();
  assert.deepEqual(shell.sent("import_scores"), [{ path: "", name: "", map: "generic" }], "a blank path is sent: the rule is the shell's");
  assert.deepEqual({ code: v.importError.code, message: v.importError.message }, refusal);
  assert.equal(v.importing, false);

  await v.baselines();
  assert.equal(v.runError, null);
  assert.deepEqual(v.reports.map((r) => r.name), baselineReports.map((r) => r.name), "the comparison is read again");

  v.judgePath = " /data/responses.jsonl ";
  v.judgeName = " gpt-judge ";
  await v.judgeReadBack();
  assert.deepEqual(shell.sent("judge_import"), [{ path: "/data/responses.jsonl", name: "gpt-judge", map: v.judgeMap }]);
  assert.equal(v.judgeRead.report.name, "gpt-judge");

  v.exportDir = " /out/plots ";
  await v.exportPlots();
  assert.deepEqual(v.exported, ["/out/plots/mvr_fs.svg"]);
});

test("removing an evaluator closes its row and reads the comparison again", async () => {
  const shell = fakeShell();
  const v = view(shell);
  await v.open();
  const name = reports[0].name;
  v.opened[name] = true;
  v.removing = name;
  await v.remove(name);
  assert.deepEqual(shell.sent("evaluator_remove"), [{ name }]);
  assert.equal(v.removing, null);
  assert.equal(v.opened[name], false);
  assert.ok(!v.reports.some((r) => r.name === name));

  const refused = fakeShell({ refuse: { evaluator_remove: { code: "read_only_project", message: "read only" } } });
  const r = view(refused);
  await r.open();
  r.removing = name;
  await r.remove(name);
  assert.equal(r.removeError.code, "read_only_project");
  assert.equal(r.removing, name, "a refused removal keeps the question open");
});

/** A stored judge run as `judge_runs` lists it. */
const record = (over) => ({
  name: "qwen@force_aware", control: "none", split_version: 2, base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware",
  template_sha256: "ab".repeat(32), label_map: "force", started_at: "2026-01-01T00:00:00Z", finished_at: null, requests: 66, answered: 20,
  template_source: "force_aware", parser_version: "3", answer_attempts: 3, transport_retries: 0, answer_retries: 0, unusable: 0, leaky: null,
  params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: null, api: "chat", cap_field: null, no_temperature: false, extra: {} },
  ...over,
});

test("Resume puts the evaluator's own judge run on the newest split in the runner, each time it is asked", async () => {
  const runs = [
    record({ split_version: 1, base_url: "http://old/v1" }),
    record({ control: "swapped_evidence", base_url: "http://control/v1" }),
    record({ name: "other@force_aware" }),
    record({}),
  ];
  const shell = fakeShell({ runs });
  const v = view(shell);
  await v.open();
  await v.resume("qwen@force_aware");
  assert.equal(v.prefill.record.base_url, "http://127.0.0.1:8080/v1");
  assert.deepEqual([v.prefill.record.control, v.prefill.record.split_version], ["none", 2]);
  const first = v.prefill.nonce;
  await v.resume("qwen@force_aware");
  assert.notEqual(v.prefill.nonce, first, "asking again fills the form again");
  assert.equal(v.resumeMissing, null);
});

test("Resume of an imported evaluator says it has no run, and a refused judge_runs keeps the shell's words", async () => {
  const v = view(fakeShell({ runs: [record({})] }));
  await v.open();
  await v.resume("imported-judge");
  assert.equal(v.resumeMissing, "imported-judge");
  assert.equal(v.prefill, null);
  const refusal = { code: "no_project", message: "no project is open" };
  const w = view(fakeShell({ refuse: { judge_runs: refusal } }));
  await w.open();
  await w.resume("qwen@force_aware");
  assert.deepEqual([w.resumeError.code, w.resumeError.message], [refusal.code, refusal.message]);
});
