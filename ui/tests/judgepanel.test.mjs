// The Evaluate view's judge work in headless Chromium with mocked IPC: the run form's provider
// profile (the core's API styles, cap field, deterministic setting, extra fields; the key only by
// its variable) and the shell's refusals of it; a panel file read, run with progress and Cancel,
// and where its report went or why none was written; the grid's completeness per cell, the core's
// reason a cell is kept out of the pools, and its Resume, which puts the stored run back in the
// runner. Screenshots at 960×600 and 1440×900 land in tests/shots/.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { backend } from "./support/fixtures.mjs";
import { plotsFor, reports } from "./support/evaluateFixtures.mjs";

let server;
let browser;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const calls = (page, cmd) => page.evaluate((c) => window.__ipcCalls.filter((x) => x.cmd === c).map((x) => x.args), cmd);
const text = async (page, testid) => (await page.innerText(`[data-testid="${testid}"]`))?.replace(/\s+/g, " ").trim();

const summary = (over) => ({
  name: "claude", control: "none", base_url: "https://api.anthropic.example/v1", model: "claude-x", template: "force_aware",
  template_sha256: "ab".repeat(32), requests: 20, answered_before: 0, answered_now: 20, unanswered: 0, failures: [],
  retries: 0, answer_retries: 0, parser_version: "3", cancelled: false, report: null, stats: null, ...over,
});

/** Evaluate open with `answers` over the defaults, and the streaming commands scripted in the page:
 *  judge_run and battery_run send `steps` on their channel, then wait for judge_cancel when `hold`,
 *  and answer `result` (or throw it when it has a code). */
async function openView({ answers = {}, run = {}, battery = {}, size } = {}) {
  const app = await openApp(browser.context, server.url, backend({ answers: { evaluation_compare: reports, evaluation_plots_svg: plotsFor(reports), ...answers } }));
  if (size) await app.page.setViewportSize(size);
  await app.page.evaluate(
    ({ run, battery }) => {
      const base = window.__TAURI_INTERNALS__.invoke;
      let release = () => {};
      window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
        const script = { judge_run: run, battery_run: battery }[cmd];
        if (!script && cmd !== "judge_cancel") return base(cmd, args);
        const { onProgress, ...plain } = args ?? {};
        window.__ipcCalls.push({ cmd, args: structuredClone(plain) });
        if (cmd === "judge_cancel") {
          release();
          return true;
        }
        for (const s of script.steps ?? []) {
          await new Promise((ok) => setTimeout(ok, 5));
          onProgress.onmessage(s);
        }
        if (script.hold) await new Promise((ok) => (release = ok));
        if (script.result?.code) throw script.result;
        return script.result;
      };
    },
    { run, battery },
  );
  await app.page.keyboard.press("Alt+8");
  await app.page.waitForSelector('[data-testid="judge-run-form"]');
  return app;
}

test("the run form offers the core's API styles, says what each is, and sends the profile as judge run's flags", async () => {
  const { page, problems } = await openView({ run: { result: summary({}) } });
  const styles = await page.$$eval('[data-testid="run-api"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(styles, ["chat", "responses", "anthropic"]);
  assert.match(await text(page, "run-api-about"), /chat completions.* base URL \+ \/chat\/completions; the cap goes in max_tokens\./);
  await page.selectOption('[data-testid="run-api"]', "responses");
  assert.match(await text(page, "run-api-about"), /instructions.* base URL \+ \/responses; the cap goes in max_output_tokens\./);
  assert.equal(await page.getAttribute('[data-testid="run-cap-field"]', "placeholder"), "max_output_tokens");
  await page.selectOption('[data-testid="run-api"]', "anthropic");
  await page.fill('[data-testid="run-url"]', "https://api.anthropic.example/v1");
  await page.fill('[data-testid="run-model"]', "claude-x");
  await page.fill('[data-testid="run-name"]', "claude");
  await page.fill('[data-testid="run-key"]', "ANTHROPIC_API_KEY");
  await page.fill('[data-testid="run-cap-field"]', "max_tokens_to_sample");
  await page.selectOption('[data-testid="run-deterministic"]', "none");
  assert.match(await text(page, "run-deterministic-about"), /No temperature is sent/);
  await page.fill('[data-testid="run-extra"]', 'thinking={"type":"disabled"}\n\nservice_tier="standard"');
  // No field takes the key itself: the window names its variable only.
  assert.equal(await page.$$eval("input", (is) => is.filter((i) => /key/i.test(i.id) && i.type === "password").length), 0);
  assert.match(await text(page, "run-key-about"), /never asks for it, shows it or stores it/);
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-done"]');
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual(sent.params, {
    base_url: "https://api.anthropic.example/v1", model: "claude-x", template: "force_aware", name: "claude", map: null,
    api_key_env: "ANTHROPIC_API_KEY", api: "anthropic", cap_field: "max_tokens_to_sample", no_temperature: true,
    extra: ['thinking={"type":"disabled"}', 'service_tier="standard"'],
    concurrency: 4, temperature: 0, max_tokens: 1024, seed: null, limit: null, timeout: 120, attempts: 5, answer_attempts: 3, control: "none",
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a profile the shell refuses is shown in its code and words, and a template file can be run", async () => {
  const refusal = { code: "invalid_argument", message: "--extra `thinking`: give KEY=JSON" };
  const { page, problems } = await openView({ run: { result: refusal } });
  await page.fill('[data-testid="run-model"]', "m");
  await page.fill('[data-testid="run-name"]', "j");
  await page.selectOption('[data-testid="run-template"]', "file");
  assert.equal(await page.isDisabled('[data-testid="run-start"]'), true, "no run until a file is given");
  await page.fill('[data-testid="run-template-file"]', "/labs/prompts/force.txt");
  await page.fill('[data-testid="run-extra"]', "thinking");
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-error"]');
  assert.equal(await text(page, "run-error"), "invalid_argument: --extra `thinking`: give KEY=JSON");
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual([sent.params.template, sent.params.extra], ["/labs/prompts/force.txt", ["thinking"]]);
  assert.deepEqual(problems, []);
  await page.close();
});

const PANEL = {
  path: "/labs/panel.toml",
  models: [
    { model: "open-chat", base_url: "http://127.0.0.1:8080/v1", params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: null, api: "chat", cap_field: null, no_temperature: false, extra: {} } },
    { model: "gpt-r", base_url: "https://api.openai.example/v1", params: { temperature: 0, max_tokens: 1024, seed: null, api_key_env: "OPENAI_API_KEY", api: "responses", cap_field: null, no_temperature: true, extra: { reasoning: { effort: "minimal" } } } },
  ],
};
const step = (cell, index, done) => ({ cell, index, cells: 8, progress: { done, total: 20, failed: 0, retries: 0, answer_retries: 0, last_failure: null } });

test("a panel file is chosen, read by the core and shown model by model with its profile", async () => {
  const { page, problems } = await openView({ answers: { "plugin:dialog|open": "/labs/panel.toml", battery_panel: PANEL } });
  await page.click('[data-testid="battery-choose"]');
  await page.waitForSelector('[data-testid="battery-models"]');
  assert.deepEqual(await calls(page, "battery_panel"), [{ path: "/labs/panel.toml" }]);
  const models = await page.$$eval('[data-testid="battery-models"] li', (ls) => ls.map((l) => l.innerText.replace(/\s+/g, " ").trim()));
  assert.deepEqual(models, [
    "open-chat http://127.0.0.1:8080/v1 chat · max_tokens 1024 · temperature 0 · no key",
    'gpt-r https://api.openai.example/v1 responses · max_output_tokens 1024 · no temperature sent · key from OPENAI_API_KEY · reasoning={"effort":"minimal"}',
  ]);
  assert.equal(await page.isDisabled('[data-testid="battery-run"]'), false);
  // Another path typed: the models shown were the other file's, and Run waits for a new reading.
  await page.fill('[data-testid="battery-panel"]', "/labs/other.toml");
  assert.equal(await page.$('[data-testid="battery-models"]'), null);
  assert.equal(await page.isDisabled('[data-testid="battery-run"]'), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a panel the core refuses is shown with its code, file and line, and cannot be run", async () => {
  const refusal = { code: "invalid_argument", message: "panel file /labs/panel.toml: TOML parse error at line 4, column 1 | unknown field `max_token`" };
  const { page, problems } = await openView({ answers: {} });
  await page.evaluate((r) => (window.__backend.errors.battery_panel = r), refusal);
  await page.fill('[data-testid="battery-panel"]', "/labs/panel.toml");
  await page.click('[data-testid="battery-read"]');
  await page.waitForSelector('[data-testid="battery-panel-error"]');
  assert.equal(await text(page, "battery-panel-error"), `invalid_argument: ${refusal.message}`);
  assert.equal(await page.isDisabled('[data-testid="battery-run"]'), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a panel runs with its progress per cell; Cancel stops it and the core's reason for no report is shown", async () => {
  const report_error = { code: "unfinished", message: "`open-chat@generic` is incomplete: 14 of its 20 requests were never answered (6 answered, 0 answered but unusable); resume it with `forcebench judge run ...`" };
  const runs = [summary({ name: "open-chat@generic", model: "open-chat", answered_now: 6, unanswered: 14, cancelled: true })];
  const { page, problems } = await openView({
    answers: { battery_panel: PANEL },
    battery: { steps: [step("open-chat@generic (none)", 1, 2), step("open-chat@generic (none)", 1, 6)], hold: true, result: { runs, failed: [], cancelled: true, report: null, written: [], report_error } },
  });
  await page.fill('[data-testid="battery-panel"]', "/labs/panel.toml");
  await page.click('[data-testid="battery-read"]');
  await page.waitForSelector('[data-testid="battery-models"]');
  await page.fill('[data-testid="battery-out"]', "/labs/report");
  await page.click('[data-testid="battery-run"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="battery-progress"]')?.textContent.includes("6 of 20"));
  assert.equal(await text(page, "battery-progress"), "Cell 1 of 8, open-chat@generic (none): 6 of 20 answered");
  const [sent] = await calls(page, "battery_run");
  assert.deepEqual(sent.params, {
    panel: "/labs/panel.toml", templates: ["generic", "force_aware", "axis_free", "dummy_axis"], out: "/labs/report", force: false,
    include_incomplete: false, limit: null, no_run: false,
  });
  await page.click('[data-testid="battery-cancel"]');
  await page.waitForSelector('[data-testid="battery-report-error"]');
  assert.equal(await text(page, "battery-report-error"), `No report written. unfinished: ${report_error.message}`);
  assert.match(await text(page, "battery-runs"), /^Stopped\. Cells run: open-chat@generic: 6 of 20 answered, 14 still to send Run panel again resumes every cell where it stopped\.$/);
  assert.equal((await calls(page, "judge_cancel")).length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a finished panel says where its report went, file by file, and a failed cell in the core's words", async () => {
  const written = ["report.json", "table2.csv", "table3.csv"].map((f) => `/labs/report/${f}`);
  const failed = [{ cell: "gpt-r@generic (none)", error: { code: "http", message: "the endpoint answered 401 Unauthorized" } }];
  const { page, problems } = await openView({ answers: { battery_panel: PANEL }, battery: { result: { runs: [], failed, cancelled: false, report: null, written, report_error: null } } });
  await page.fill('[data-testid="battery-panel"]', "/labs/panel.toml");
  await page.click('[data-testid="battery-read"]');
  await page.waitForSelector('[data-testid="battery-models"]');
  await page.fill('[data-testid="battery-out"]', "/labs/report");
  await page.click('[data-testid="battery-report-only"]');
  await page.waitForSelector('[data-testid="battery-written"]');
  assert.equal(await text(page, "battery-written"), "Report written to /labs/report: report.json table2.csv table3.csv");
  assert.equal(await text(page, "battery-failed"), "gpt-r@generic (none) did not finish. http: the endpoint answered 401 Unauthorized");
  const [sent] = await calls(page, "battery_run");
  assert.equal(sent.params.no_run, true);
  assert.deepEqual(problems, []);
  await page.close();
});

/** A grid with one complete cell and one the core keeps out as incomplete. */
function grid() {
  const m = (violations) => ({ n_pairs: 33, mvr: violations / 33, fs: 0.5, violations, missing: 0, unanswered: 0, mvr_ci95: null, fs_ci95: null });
  const reason = "`qwen@force_aware` is incomplete: 46 of its 66 requests were never answered (18 answered, 2 answered but unusable); resume it with `forcebench judge run --base-url http://127.0.0.1:8080/v1 --model qwen --template force_aware --name qwen@force_aware` (answered requests are not sent again), or pass --include-incomplete to pool it with its unanswered pairs left out and counted";
  return {
    models: ["alpha", "qwen"],
    templates: ["force_aware"],
    cells: [
      { model: "alpha", template: "force_aware", evaluator: "alpha@force_aware", metrics: m(8), completeness: { requests: 66, answered: 63, unusable: 3, unanswered: 0 }, left_out: null },
      { model: "qwen", template: "force_aware", evaluator: "qwen@force_aware", metrics: { ...m(3), n_pairs: 9 }, completeness: { requests: 66, answered: 18, unusable: 2, unanswered: 46 }, left_out: reason },
    ],
    pooled: [{ template: "force_aware", prompt: "force_aware", panel: { members: ["alpha@force_aware"], split_version: 2, n_pairs: 33, units: 33, violations: 8, missing: 0, unanswered: 0, mvr: 8 / 33, fs: 0.5, mvr_ci95: [0.1, 0.4], fs_ci95: [0.4, 0.6], per_axis: {}, per_family: {} } }],
    baselines: [],
    footnotes: ["Left out of the pooled figures (incomplete or leaky): qwen@force_aware."],
  };
}

const qwenRun = {
  name: "qwen@force_aware", control: "none", split_version: 2, base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware",
  template_sha256: "ab".repeat(32), label_map: "force", started_at: "2026-01-01T00:00:00Z", finished_at: null, requests: 66, answered: 20,
  template_source: "force_aware", parser_version: "3", answer_attempts: 3, transport_retries: 0, answer_retries: 0, unusable: 2, leaky: null,
  params: { temperature: 0, max_tokens: 512, seed: 7, api_key_env: "QWEN_KEY", api: "responses", cap_field: "max_completion_tokens", no_temperature: false, extra: { reasoning: { effort: "low" } } },
};

test("each grid cell says how complete it is; a cell kept out shows the core's reason and Resume puts its run back in the runner", async () => {
  const { page, problems } = await openView({ answers: { evaluation_grid: grid(), judge_runs: [qwenRun] }, run: { result: summary({ name: "qwen@force_aware", answered_before: 20 }) } });
  await page.waitForSelector('[data-testid="grid-table"]');
  assert.equal(await text(page, "grid-answered-alpha-force_aware"), "66/66 answered, 3 unusable");
  assert.equal(await text(page, "grid-incomplete-qwen-force_aware"), "46 of 66 requests never answered");
  assert.equal(await text(page, "grid-left-out-reason-qwen-force_aware"), `${grid().cells[1].left_out} Resume in the runner`);
  assert.equal(await page.$('[data-testid="grid-resume-alpha-force_aware"]'), null, "a complete cell has nothing to resume");
  await page.click('[data-testid="grid-resume-qwen-force_aware"]');
  await page.waitForSelector('[data-testid="run-filled"]');
  const value = (id) => page.inputValue(`[data-testid="${id}"]`);
  assert.deepEqual(
    [await value("run-url"), await value("run-model"), await value("run-name"), await value("run-key"), await value("run-api"), await value("run-cap-field"), await value("run-extra")],
    ["http://127.0.0.1:8080/v1", "qwen", "qwen@force_aware", "QWEN_KEY", "responses", "max_completion_tokens", 'reasoning={"effort":"low"}'],
  );
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "run-start", "Run is the next thing to press");
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-done"]');
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual(sent.params, {
    base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware", name: "qwen@force_aware", map: "force",
    api_key_env: "QWEN_KEY", api: "responses", cap_field: "max_completion_tokens", no_temperature: false, extra: ['reasoning={"effort":"low"}'],
    concurrency: 4, temperature: 0, max_tokens: 512, seed: 7, limit: null, timeout: 120, attempts: 5, answer_attempts: 3, control: "none",
  });
  assert.deepEqual(problems, []);
  await page.close();
});

// Typed settings are unsaved work: Resume asks before replacing them, and Keep keeps every one.
test("Resume over settings typed and not run asks first; Keep leaves them, Replace puts the stored run in", async () => {
  const { page, problems } = await openView({ answers: { evaluation_grid: grid(), judge_runs: [qwenRun] } });
  await page.waitForSelector('[data-testid="grid-table"]');
  await page.fill('[data-testid="run-model"]', "my-own-model");
  await page.fill('[data-testid="run-extra"]', "top_k=1");
  await page.click('[data-testid="grid-resume-qwen-force_aware"]');
  await page.waitForSelector('[data-testid="run-replace-ask"]');
  assert.match(await text(page, "run-replace-ask"), /settings you typed and have not run\. Replace them with qwen@force_aware's stored run\?/);
  assert.equal(await page.inputValue('[data-testid="run-model"]'), "my-own-model");
  await page.click('[data-testid="run-keep"]');
  assert.equal(await page.$('[data-testid="run-replace-ask"]'), null);
  assert.deepEqual([await page.inputValue('[data-testid="run-model"]'), await page.inputValue('[data-testid="run-extra"]')], ["my-own-model", "top_k=1"]);
  await page.click('[data-testid="grid-resume-qwen-force_aware"]');
  await page.click('[data-testid="run-replace"]');
  await page.waitForSelector('[data-testid="run-filled"]');
  assert.deepEqual([await page.inputValue('[data-testid="run-model"]'), await page.inputValue('[data-testid="run-extra"]')], ["qwen", 'reasoning={"effort":"low"}']);
  assert.deepEqual(await calls(page, "judge_run"), [], "nothing is run by Resume itself");
  assert.deepEqual(problems, []);
  await page.close();
});

test("Resume of an imported evaluator says there is no run to put back", async () => {
  const { page, problems } = await openView({ answers: { evaluation_grid: grid(), judge_runs: [] } });
  await page.waitForSelector('[data-testid="grid-table"]');
  await page.click('[data-testid="grid-resume-qwen-force_aware"]');
  await page.waitForSelector('[data-testid="resume-missing"]');
  assert.match(await text(page, "resume-missing"), /No judge run is stored under qwen@force_aware/);
  assert.equal(await page.$('[data-testid="run-filled"]'), null);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a leaky cell shows the core's reason and offers no Resume: running it again would not mend it", async () => {
  const g = grid();
  const why = "`qwen@force_aware` is leaky: its judge run's template puts {{axis}} in the prompt, a field it is scored against; it is kept out of every table, panel and comparison (run the judge again under another name with a current template)";
  g.cells[1] = { ...g.cells[1], completeness: { requests: 66, answered: 66, unusable: 0, unanswered: 0 }, left_out: why };
  const { page, problems } = await openView({ answers: { evaluation_grid: g, judge_runs: [qwenRun] } });
  await page.waitForSelector('[data-testid="grid-table"]');
  assert.equal(await text(page, "grid-left-out-reason-qwen-force_aware"), why);
  assert.equal(await page.$('[data-testid="grid-resume-qwen-force_aware"]'), null);
  assert.equal(await text(page, "grid-left-out-qwen-force_aware"), "leaky: not pooled");
  assert.equal(await text(page, "grid-answered-qwen-force_aware"), "66/66 answered");
  assert.deepEqual(problems, []);
  await page.close();
});

for (const size of [{ width: 960, height: 600 }, { width: 1440, height: 900 }]) {
  test(`the judge forms and the grid at ${size.width}×${size.height}: nothing wider than the window`, async () => {
    const { page, problems } = await openView({ size, answers: { evaluation_grid: grid(), battery_panel: PANEL } });
    await page.fill('[data-testid="battery-panel"]', "/labs/panel.toml");
    await page.click('[data-testid="battery-read"]');
    await page.waitForSelector('[data-testid="battery-models"]');
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="judge-run"] *, [data-testid="battery"] *, [data-testid="judge-grid"] *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => e.dataset.testid ?? e.tagName),
    );
    assert.deepEqual(wide, []);
    await mkdir(shotsDir, { recursive: true });
    for (const part of ["judge-grid", "judge-run", "battery"]) {
      await (await page.$(`[data-testid="${part}"]`)).screenshot({ path: join(shotsDir, `evaluate-${part}-${size.width}.png`) });
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}
