// The panel battery's state (components/battery.svelte.ts) in node through fake commands: a panel
// is read by the core before Run is offered, a changed path takes the reading away, what a run
// sends, its progress per cell, Cancel, and the core's refusals kept as they came.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BatteryState, PAPER_PROMPTS, stepText } from "../../src/components/battery.svelte.ts";

const PANEL = {
  path: "/labs/panel.toml",
  models: [
    { model: "open-chat", base_url: "http://127.0.0.1:8080/v1", params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: null, api: "chat", cap_field: null, no_temperature: false, extra: {} } },
    { model: "gpt-r", base_url: "https://api.example/v1", params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: "OPENAI_API_KEY", api: "responses", cap_field: null, no_temperature: true, extra: { reasoning: { effort: "minimal" } } } },
  ],
};
const progress = (done, total) => ({ done, total, failed: 0, retries: 0, answer_retries: 0, last_failure: null });

function fakeShell({ panel = PANEL, refuse = {}, outcome = {}, steps = [] } = {}) {
  const calls = [];
  let release = () => {};
  const ipc = {
    batteryPanel: async (path) => {
      calls.push({ cmd: "battery_panel", path });
      if (refuse.battery_panel) throw refuse.battery_panel;
      return structuredClone({ ...panel, path });
    },
    batteryRun: async (params, onstep) => {
      calls.push({ cmd: "battery_run", params });
      for (const s of steps) onstep(s);
      if (refuse.battery_run) throw refuse.battery_run;
      if (outcome.hold) await new Promise((ok) => (release = ok));
      return { runs: [], failed: [], cancelled: false, report: null, written: [], report_error: null, ...outcome.value };
    },
    judgeCancel: async () => {
      calls.push({ cmd: "judge_cancel" });
      release();
      return true;
    },
  };
  return { ipc, sent: (cmd) => calls.filter((c) => c.cmd === cmd) };
}

const state = (shell) => new BatteryState(() => "/labs/study.forcebench", shell.ipc);

test("the report folder starts beside the project, with the paper's four prompts", () => {
  const b = state(fakeShell());
  assert.equal(b.out, "/labs/study-battery");
  assert.equal(b.templates, PAPER_PROMPTS);
  assert.equal(b.ready, false, "nothing to run before a panel is read");
});

test("Run is offered only for the panel the core read, and a changed path takes the reading away", async () => {
  const shell = fakeShell();
  const b = state(shell);
  await b.choose("/labs/panel.toml");
  assert.deepEqual(shell.sent("battery_panel").map((c) => c.path), ["/labs/panel.toml"]);
  assert.deepEqual(b.panel.models.map((m) => m.model), ["open-chat", "gpt-r"]);
  assert.equal(b.ready, true);
  b.setPath("/labs/other.toml");
  assert.equal(b.panel, null, "the models shown were another file's");
  assert.equal(b.ready, false);
  await b.run();
  assert.deepEqual(shell.sent("battery_run"), [], "nothing runs without a panel read");
});

test("a panel the core refuses keeps its code and words, and Run stays off", async () => {
  const refusal = { code: "invalid_argument", message: "panel file /labs/panel.toml: TOML parse error at line 4, column 1 | unknown field `max_token`" };
  const b = state(fakeShell({ refuse: { battery_panel: refusal } }));
  await b.choose("/labs/panel.toml");
  assert.deepEqual([b.panelError.code, b.panelError.message], [refusal.code, refusal.message]);
  assert.equal(b.ready, false);
});

test("a run sends the panel, the prompts as listed, the folder and the two choices; Report only sends nothing", async () => {
  const shell = fakeShell({ steps: [{ cell: "open-chat@generic (none)", index: 1, cells: 4, progress: progress(3, 20) }] });
  const b = state(shell);
  await b.choose(" /labs/panel.toml ");
  b.templates = " generic, ,/labs/prompts/force.txt ";
  b.out = " /labs/report ";
  b.force = true;
  b.includeIncomplete = true;
  await b.run();
  await b.run(true);
  const [first, second] = shell.sent("battery_run").map((c) => c.params);
  assert.deepEqual(first, {
    panel: "/labs/panel.toml", templates: ["generic", "/labs/prompts/force.txt"], out: "/labs/report", force: true,
    include_incomplete: true, limit: null, no_run: false,
  });
  assert.equal(second.no_run, true);
  assert.equal(stepText(b.step), "Cell 1 of 4, open-chat@generic (none): 3 of 20 answered");
});

test("Cancel asks the core to stop and the outcome keeps the core's reason for no report", async () => {
  const report_error = { code: "unfinished", message: "`gpt-r@generic` is incomplete: 12 of its 40 requests were never answered" };
  const shell = fakeShell({ outcome: { hold: true, value: { cancelled: true, report_error } } });
  const b = state(shell);
  await b.choose("/labs/panel.toml");
  const running = b.run();
  assert.equal(b.running, true);
  await b.cancel();
  await running;
  assert.equal(shell.sent("judge_cancel").length, 1);
  assert.equal(b.running, false);
  assert.deepEqual(b.outcome.report_error, report_error);
  assert.equal(b.outcome.cancelled, true);
});

test("a refused battery is kept as the shell said it", async () => {
  const refusal = { code: "output_exists", message: "/labs/report/table2.csv exists; tick Replace to overwrite it" };
  const b = state(fakeShell({ refuse: { battery_run: refusal } }));
  await b.choose("/labs/panel.toml");
  await b.run();
  assert.deepEqual([b.error.code, b.error.message], [refusal.code, refusal.message]);
  assert.equal(b.running, false);
});
