// The agreement view's state (components/agreement.svelte.ts) driven in node through fake commands:
// the report read, a chosen cell's rows (a later choice wins), a row opened, and export.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AgreementViewState } from "../../src/components/agreement.svelte.ts";
import { agreementReport } from "../support/fixtures.mjs";

/** Fake shell commands; the cell rows of `holdCell` ("row-col") wait in `held` until released.
 *  Every call is recorded. */
function fakeShell({ refuse = {}, report = agreementReport, holdCell = null } = {}) {
  const calls = [];
  const held = [];
  const answer = (cmd, args, value, hold = false) => {
    calls.push({ cmd, args });
    if (refuse[cmd]) return Promise.reject(refuse[cmd]);
    if (!hold) return Promise.resolve(structuredClone(value()));
    return new Promise((ok) => held.push(() => ok(structuredClone(value()))));
  };
  const ipc = {
    agreementReport: () => answer("agreement_report", {}, () => report),
    agreementCellRows: (table, row, col) =>
      answer("agreement_cell_rows", { table, row, col }, () => [{ id: `${table}-${row}-${col}`, annotator_a: "Ana", annotator_b: "Ben" }], `${row}-${col}` === holdCell),
    getCandidate: (id) => answer("get_candidate", { id }, () => ({ id })),
    exportAgreement: (path, format) => {
      calls.push({ cmd: "export_agreement", args: { path, format } });
      // The shell refuses a blank path in its own words (src/agreement/export.rs).
      if (!path.trim()) return Promise.reject({ code: "invalid_argument", message: "type the path of the file to write the report to" });
      if (refuse.export_agreement) return Promise.reject(refuse.export_agreement);
      return Promise.resolve(`/abs${path}`);
    },
  };
  return { ipc, held, sent: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args) };
}

test("the report is read, with its reading in words; a refusal is kept as sent", async () => {
  const v = new AgreementViewState("/data/proj/study.forcebench", fakeShell().ipc);
  assert.equal(v.exportTo, "/data/proj/study-agreement", "the export path starts beside the project");
  await v.reload();
  assert.equal(v.n, agreementReport.n_items);
  assert.match(v.words, /substantial agreement/);
  assert.equal(v.smallGroups, true, "the fixture's groups are under 30 rows");

  const refusal = { code: "database", message: "database disk image is malformed" };
  const r = new AgreementViewState("/p.forcebench", fakeShell({ refuse: { agreement_report: refusal } }).ipc);
  await r.reload();
  assert.equal(r.report, null);
  assert.deepEqual({ code: r.loadError.code, message: r.loadError.message }, refusal);
});

test("choosing a cell names its labels and lists its rows; an empty cell asks nothing", async () => {
  const shell = fakeShell();
  const v = new AgreementViewState("/p.forcebench", shell.ipc);
  await v.reload();
  await v.pick("decision", 0, 1, 2);
  assert.deepEqual(
    { a: v.picked.a, b: v.picked.b, count: v.picked.count },
    { a: "Accept", b: "Reject", count: 2 },
  );
  assert.deepEqual(shell.sent("agreement_cell_rows"), [{ table: "decision", row: 0, col: 1 }]);
  assert.equal(v.cellRows[0].id, "decision-0-1");

  await v.openRow("fx-002");
  assert.equal(v.detail.id, "fx-002");
  await v.pick("accept_vs_not", 1, 0, 0);
  assert.deepEqual(v.cellRows, [], "an empty cell lists no rows");
  assert.equal(shell.sent("agreement_cell_rows").length, 1, "and asks the core nothing");
  assert.equal(v.openId, null, "a new cell closes the open row");
  assert.equal(v.detail, null);
});

test("a later choice wins over an earlier one still loading", async () => {
  const shell = fakeShell({ holdCell: "0-0" });
  const v = new AgreementViewState("/p.forcebench", shell.ipc);
  await v.reload();
  const first = v.pick("decision", 0, 0, 18);
  await v.pick("decision", 1, 1, 12);
  shell.held.forEach((release) => release());
  await first;
  assert.deepEqual([v.picked.row, v.picked.col], [1, 1]);
  assert.equal(v.cellRows[0].id, "decision-1-1", "the rows shown are the last cell's, not the slower earlier one's");
});

test("export sends a blank path too and keeps the shell's refusal; a path without extension gets the format's", async () => {
  const shell = fakeShell();
  const v = new AgreementViewState("/p.forcebench", shell.ipc);
  await v.reload();
  v.exportTo = "  ";
  await v.exportReport("csv");
  assert.deepEqual(shell.sent("export_agreement"), [{ path: "", format: "csv" }]);
  assert.deepEqual({ code: v.exportError.code, message: v.exportError.message }, { code: "invalid_argument", message: "type the path of the file to write the report to" });
  assert.equal(v.exporting, false);

  v.exportTo = " /out/report ";
  await v.exportReport("json");
  assert.deepEqual(shell.sent("export_agreement")[1], { path: "/out/report.json", format: "json" });
  assert.deepEqual(v.exported, { path: "/abs/out/report.json", format: "json" });
  assert.equal(v.exportError, null);
});
