// The evaluation view in headless Chromium with mocked IPC: the comparison table (values,
// intervals, sort, per-axis details, missing pairs), the core's plots shown inline under the
// app's CSP, the empty state without a locked split, baselines, import (what it sends) and the
// export of the plots (the files written).
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { backend } from "./support/fixtures.mjs";
import { baselineReports, draftOnly, noLockedSplit, PLOT_FILES, plotsFor, reports } from "./support/evaluateFixtures.mjs";

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
const rowText = (page, name) =>
  page.$eval(`[data-testid="comparison-table"] tr[data-evaluator="${name}"]`, (tr) => tr.innerText.replace(/\s+/g, " ").trim());
const order = (page) => page.$$eval('[data-testid="report-row"]', (trs) => trs.map((tr) => tr.dataset.evaluator));

/**
 * Opens the app and puts a stateful evaluation backend behind the evaluation commands, then goes
 * to the view with Alt+8. `stored` is what compare answers first; `error` makes compare and the
 * plots fail with it (no locked split); baselines add `baselineReports`, an import adds `my-judge`.
 */
async function openEvaluate({ stored = reports, error = null, errors = {} } = {}) {
  const app = await openApp(browser.context, server.url, backend());
  await app.page.waitForSelector('[data-testid="nav-evaluate"]');
  await app.page.evaluate(
    ({ stored, error, errors, all, baselines, plots, files }) => {
      const base = window.__TAURI_INTERNALS__.invoke;
      let current = stored;
      const plotsOf = (list) => plots[list.length === all.length ? "all" : list.length === 0 ? "none" : "baselines"];
      window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
        const ours = ["evaluation_compare", "evaluation_plots_svg", "run_baselines", "import_scores", "export_plots", "judge_export", "judge_import", "evaluator_remove"];
        if (!ours.includes(cmd)) return base(cmd, args);
        window.__ipcCalls.push({ cmd, args: structuredClone(args ?? {}) });
        // Blank paths are refused by the shell (src-tauri/src/evaluation.rs) in its words, before
        // anything else is tried.
        const blank = (arg, words) => {
          if (!String(args?.[arg] ?? "").trim()) throw { code: "invalid_argument", message: words };
        };
        if (cmd === "import_scores") blank("path", "type the path of the scores file (JSONL)");
        if (cmd === "export_plots") blank("dir", "type the folder to write the plots to");
        if (cmd === "judge_export") blank("out", "type the file to write the judge requests to");
        if (cmd === "judge_import") blank("path", "type the path of the judge's responses (JSONL)");
        if (errors[cmd]) throw errors[cmd];
        if (error) throw error;
        if (cmd === "evaluation_compare") return structuredClone(current);
        if (cmd === "evaluation_plots_svg") return plotsOf(current);
        if (cmd === "run_baselines") {
          current = [...baselines, ...current.filter((r) => !r.name.startsWith("baseline:"))].sort((a, b) => a.name.localeCompare(b.name));
          return structuredClone(baselines);
        }
        if (cmd === "import_scores") {
          const judge = { ...all.find((r) => r.name === "my-judge"), name: args.name, label_map: args.map };
          current = [...current.filter((r) => r.name !== args.name), judge].sort((a, b) => a.name.localeCompare(b.name));
          return structuredClone(judge);
        }
        if (cmd === "evaluator_remove") {
          current = current.filter((r) => r.name !== args.name);
          return 1;
        }
        if (cmd === "export_plots") return files.map((f) => `${args.dir}/${f}`);
        // Two requests per pair of the 33; three of the 66 responses carry no verdict.
        if (cmd === "judge_export") return 66;
        if (cmd === "judge_import") {
          const judge = { ...all.find((r) => r.name === "my-judge"), name: args.name, label_map: args.map };
          current = [...current.filter((r) => r.name !== args.name), judge].sort((a, b) => a.name.localeCompare(b.name));
          const parsing = { responses: 66, json: 60, label_in_text: 3, unparsable: ["fx-a:raised", "fx-b:safe", "fx-c:raised"] };
          return structuredClone({ report: judge, parsing });
        }
        throw `command ${cmd} not found`;
      };
    },
    {
      stored,
      error,
      errors,
      all: reports,
      baselines: baselineReports,
      plots: { all: plotsFor(reports), baselines: plotsFor(baselineReports), none: plotsFor([]) },
      files: PLOT_FILES,
    },
  );
  await app.page.keyboard.press("Alt+8");
  await app.page.waitForSelector('[data-testid="comparison"], [data-testid="evaluate-empty"], [data-testid="evaluate-load-error"]');
  return app;
}

/** Everything on screen must be words or numbers: no NaN, null, undefined values or Infinity. */
async function assertNoRawValues(page) {
  const body = await page.innerText("body");
  assert.doesNotMatch(body, /\bNaN\b|\bnull\b|\bundefined\b|Infinity|\[object/, body);
}

test("the comparison table shows every evaluator's MVR and FS with intervals, best MVR first", async () => {
  const { page, problems } = await openEvaluate();
  assert.equal(await page.getAttribute('[data-testid="nav-evaluate"]', "aria-selected"), "true");
  assert.equal(await page.getAttribute('[data-testid="nav-evaluate"]', "title"), "Evaluate (Alt+8)");
  assert.match(await text(page, "comparison"), /^Comparison 6 evaluators · split v2, 33 pairs/);
  assert.deepEqual(await order(page), [
    "baseline:token_overlap",
    "my-judge",
    "baseline:axis_lexical",
    "baseline:rule_force",
    "baseline:entity_overlap",
    "baseline:citation_presence",
  ]);
  assert.equal(await rowText(page, "baseline:token_overlap"), "▸ token_overlap baseline 33 0.121 0.021–0.221 0.100 0.050–0.150 4 0");
  assert.equal(await rowText(page, "baseline:citation_presence"), "▸ citation_presence baseline 33 1.000 0.900–1.000 0.000 -0.050–0.050 33 0");
  assert.equal(await rowText(page, "my-judge"), "▸ my-judge force 33 0.242 0.142–0.342 0.455 0.405–0.505 8 2");

  // FS sorts highest first; the name sorts alphabetically.
  await page.click('[data-testid="sort-fs"]');
  assert.deepEqual((await order(page)).slice(0, 3), ["my-judge", "baseline:axis_lexical", "baseline:token_overlap"]);
  assert.equal(await page.getAttribute('[data-testid="sort-fs"]', "class").then((c) => c.includes("on")), true);
  await page.click('[data-testid="sort-name"]');
  assert.deepEqual(await order(page), reports.map((r) => r.name));
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a row opens its per-axis figures and the pairs with no usable output", async () => {
  const { page, problems } = await openEvaluate();
  await page.click('tr[data-evaluator="baseline:token_overlap"] .expand');
  const details = '[data-testid="details-baseline:token_overlap"]';
  await page.waitForSelector(details);
  const axisRow = (axis) => page.$eval(`${details} tr[data-axis="${axis}"]`, (tr) => tr.innerText.replace(/\s+/g, " ").trim());
  assert.equal(await axisRow("numeric"), "Numeric 5 0.400 0.050 2 0");
  assert.equal(await axisRow("modality"), "Modality 7 0.000 0.200 0 0");
  assert.equal(await page.getAttribute('tr[data-evaluator="baseline:token_overlap"] .expand', "aria-expanded"), "true");

  await page.click('tr[data-evaluator="my-judge"] .expand');
  assert.equal(
    await text(page, "missing-my-judge"),
    "fx-a: no raised output fx-b: safe label `maybe` is not in the label map",
  );
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the plots are the core's SVG, shown inline under the app's CSP", async () => {
  const { page, problems } = await openEvaluate();
  for (const [testid, title] of [["plot-scatter", "MVR vs FS"], ["plot-heatmap", "MVR per axis (lower is better)"]]) {
    await page.waitForSelector(`[data-testid="${testid}"] svg`);
    const texts = await page.$$eval(`[data-testid="${testid}"] svg text`, (ts) => ts.map((t) => t.textContent));
    assert.equal(texts[0], title);
    assert.ok(texts.includes("token_overlap") && texts.includes("my-judge"), texts.join(","));
    // Scaled to the card, never wider than the view.
    const box = await page.$eval(`[data-testid="${testid}"] svg`, (s) => s.getBoundingClientRect().width);
    assert.ok(box > 200 && box <= 640, String(box));
  }
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "evaluate.png"), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test("without a locked split the view says to lock one, and its actions are off", async () => {
  for (const error of [noLockedSplit, draftOnly]) {
    const { page, problems } = await openEvaluate({ error });
    assert.match(await text(page, "evaluate-empty"), /^Lock a split first Evaluators are scored on the evaluation pairs of a locked split/);
    assert.equal(await text(page, "evaluate-empty-reason"), error.message);
    for (const b of ["run-baselines", "import-scores", "export-plots", "judge-write", "judge-read"]) {
      assert.equal(await page.isDisabled(`[data-testid="${b}"]`), true, b);
    }
    assert.equal(await page.$('[data-testid="comparison-table"]'), null);
    await assertNoRawValues(page);
    assert.deepEqual(problems, []);
    await page.close();
  }
});

test("with nothing scored yet, Run baselines fills the table and the plots", async () => {
  const { page, problems } = await openEvaluate({ stored: [] });
  assert.match(await text(page, "comparison-none"), /No evaluator scored yet/);
  assert.equal(await page.$('[data-testid="plot-scatter"]'), null);
  await page.click('[data-testid="run-baselines"]');
  await page.waitForSelector('[data-testid="comparison-table"]');
  assert.equal(await page.$$eval('[data-testid="report-row"]', (r) => r.length), 5);
  assert.equal((await order(page))[0], "baseline:token_overlap");
  await page.waitForSelector('[data-testid="plot-heatmap"] svg');
  assert.equal((await calls(page, "run_baselines")).length, 1);
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("import sends the typed path, name and label map, and says what was scored", async () => {
  const { page, problems } = await openEvaluate({ stored: baselineReports });
  await page.fill('[data-testid="import-path"]', "  /data/judge.jsonl ");
  await page.fill('[data-testid="import-name"]', "my-judge");
  await page.selectOption('[data-testid="import-map"]', "force");
  await page.click('[data-testid="import-scores"]');
  await page.waitForSelector('[data-testid="import-done"]');
  assert.deepEqual(await calls(page, "import_scores"), [{ path: "/data/judge.jsonl", name: "my-judge", map: "force" }]);
  assert.equal(await text(page, "import-done"), "Scored my-judge on 33 pairs: MVR 0.242, FS 0.455, 2 pairs with no usable output.");
  await page.waitForSelector('tr[data-evaluator="my-judge"]');
  assert.equal(await rowText(page, "my-judge"), "▸ my-judge force 33 0.242 0.142–0.342 0.455 0.405–0.505 8 2");
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the judge: requests written with the chosen template, its answers read back and scored", async () => {
  const { page, problems } = await openEvaluate({ stored: baselineReports });
  // Defaults: the force-aware template, read with the force map, requests beside the project.
  assert.equal(await page.inputValue('[data-testid="judge-template"]'), "force_aware");
  assert.equal(await page.inputValue('[data-testid="judge-map"]'), "force");
  assert.match(await page.inputValue('[data-testid="judge-out"]'), /^\/.+\/[^/]+-judge-requests\.jsonl$/);
  assert.equal(await text(page, "judge-template-about"), "Lists the five force axes; the judge decides whether the claim exceeds the passage and names the primary axis itself.");
  // The generic template's answers are support labels: the map follows the template.
  await page.selectOption('[data-testid="judge-template"]', "generic");
  assert.equal(await page.inputValue('[data-testid="judge-map"]'), "generic");
  await page.fill('[data-testid="judge-out"]', " /data/requests.jsonl ");
  await page.fill('[data-testid="judge-seed"]', "7");
  await page.click('[data-testid="judge-write"]');
  await page.waitForSelector('[data-testid="judge-written"]');
  assert.deepEqual(await calls(page, "judge_export"), [{ template: "generic", out: "/data/requests.jsonl", seed: 7 }]);
  assert.match(await text(page, "judge-written"), /^Wrote 66 requests to requests\.jsonl\. Save each answer as a JSONL line of request_id and response/);

  // A template file must be named: the command would take a blank one for the generic template,
  // so the button waits for a file (and says nothing of its own).
  await page.selectOption('[data-testid="judge-template"]', "file");
  assert.equal(await page.isDisabled('[data-testid="judge-write"]'), true);
  assert.equal(await page.$('[data-testid="judge-write-error"]'), null);
  assert.equal((await calls(page, "judge_export")).length, 1);
  await page.fill('[data-testid="judge-template-file"]', "/data/mine.txt");
  await page.click('[data-testid="judge-write"]');
  await page.waitForSelector('[data-testid="judge-written"]');
  assert.equal((await calls(page, "judge_export"))[1].template, "/data/mine.txt");

  await page.fill('[data-testid="judge-path"]', "/data/responses.jsonl");
  await page.fill('[data-testid="judge-name"]', " gpt-judge ");
  await page.selectOption('[data-testid="judge-map"]', "force");
  await page.click('[data-testid="judge-read"]');
  await page.waitForSelector('[data-testid="judge-read-done"]');
  assert.deepEqual(await calls(page, "judge_import"), [{ path: "/data/responses.jsonl", name: "gpt-judge", map: "force" }]);
  assert.equal(
    await text(page, "judge-read-done"),
    "Scored gpt-judge on 33 pairs: MVR 0.242, FS 0.455. Read 66 responses: 60 as JSON, 3 by a label in the text, 3 with no verdict. fx-a:raised fx-b:safe fx-c:raised",
  );
  await page.waitForSelector('tr[data-evaluator="gpt-judge"]');
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a refused judge read shows the core's words", async () => {
  const refusal = { code: "invalid_input", message: "/data/r.jsonl: 1 problem found; nothing was imported\n  /data/r.jsonl:1: field `request_id`: `x` is not `<id>:safe` or `<id>:raised`" };
  const { page } = await openEvaluate({ errors: { judge_import: refusal } });
  await page.fill('[data-testid="judge-path"]', "/data/r.jsonl");
  await page.fill('[data-testid="judge-name"]', "j");
  await page.click('[data-testid="judge-read"]');
  await page.waitForSelector('[data-testid="judge-read-error"]');
  assert.equal(await page.innerText('[data-testid="judge-read-error"]'), `invalid_input: ${refusal.message}`);
  assert.equal(await page.$('[data-testid="judge-read-done"]'), null);
  await page.close();
});

test("a refused import shows the core's words", async () => {
  const refusal = { code: "io", message: "/data/nope.jsonl: No such file or directory" };
  const { page } = await openEvaluate({ errors: { import_scores: refusal } });
  await page.fill('[data-testid="import-path"]', "/data/nope.jsonl");
  await page.fill('[data-testid="import-name"]', "x");
  await page.click('[data-testid="import-scores"]');
  assert.equal(await text(page, "import-error"), `io: ${refusal.message}`);
  await page.close();
});

test("export writes the plots into the typed folder and lists the files", async () => {
  const { page, problems } = await openEvaluate();
  assert.equal(await page.inputValue('[data-testid="plots-dir"]'), "/tmp/ui-fixture-plots");
  await page.fill('[data-testid="plots-dir"]', "/tmp/out/plots");
  await page.click('[data-testid="export-plots"]');
  await page.waitForSelector('[data-testid="export-done"]');
  assert.deepEqual(await calls(page, "export_plots"), [{ dir: "/tmp/out/plots" }]);
  assert.equal(await text(page, "export-done"), `Wrote 4 files: ${PLOT_FILES.join(" ")}`);
  assert.equal(await page.getAttribute('[data-testid="export-done"] li:last-child', "title"), "/tmp/out/plots/mvr_by_axis.png");
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Opens Evaluate with a judge backend: judge_run sends `steps` on its channel, then waits for
 *  judge_cancel (or answers at once when `hold` is false). */
async function openRunner({ steps, hold = true, summary, trust = { code: "no_judge_run", message: "no judge run named `local-judge` (none)" } }) {
  const app = await openEvaluate();
  await app.page.evaluate(
    ({ steps, hold, summary, trust }) => {
      const base = window.__TAURI_INTERNALS__.invoke;
      let release;
      const cancelled = new Promise((ok) => (release = ok));
      window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
        if (!["judge_run", "judge_cancel", "judge_trust"].includes(cmd)) return base(cmd, args);
        const { onProgress, ...plain } = args ?? {};
        window.__ipcCalls.push({ cmd, args: structuredClone(plain) });
        if (cmd === "judge_cancel") {
          release();
          return true;
        }
        if (cmd === "judge_trust") {
          if (trust.code) throw trust;
          return trust;
        }
        for (const s of steps) {
          await new Promise((ok) => setTimeout(ok, 5));
          onProgress.onmessage(s);
        }
        if (hold) await cancelled;
        return summary;
      };
    },
    { steps, hold, summary, trust },
  );
  return app;
}

const runSummary = (over) => ({
  name: "local-judge", control: "none", base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware",
  template_sha256: "ab".repeat(32), requests: 20, answered_before: 0, answered_now: 2, unanswered: 18, failures: [],
  retries: 1, cancelled: true, report: null, stats: null, ...over,
});

// Broke before: a request given up on showed only at the end, in the green summary.
test("a failing request shows as it happens, in the error style, and again after the run", async () => {
  const why = "connection failed: Connection refused (os error 111) (after 5 attempts)";
  const { page, problems } = await openRunner({
    steps: [
      { done: 0, total: 20, failed: 0, retries: 0, answer_retries: 0, last_failure: null },
      { done: 0, total: 20, failed: 1, retries: 4, answer_retries: 0, last_failure: ["fx-a:safe", why] },
    ],
    summary: runSummary({ answered_now: 0, failures: [["fx-a:safe", why]] }),
  });
  await page.fill('[data-testid="run-model"]', "qwen");
  await page.fill('[data-testid="run-name"]', "local-judge");
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-failing"]');
  assert.equal(await text(page, "run-failing"), `Not answered: fx-a:safe: ${why}`);
  assert.equal(await page.getAttribute('[data-testid="run-failing"]', "class"), "refusal-box");
  await page.click('[data-testid="run-cancel"]');
  await page.waitForSelector('[data-testid="run-failures"]');
  assert.equal(await page.$('[data-testid="run-failing"]'), null);
  assert.equal(await text(page, "run-failures"), `1 request(s) not answered in this run: fx-a:safe: ${why}`);
  assert.doesNotMatch(await text(page, "run-done"), /connection failed/, "the failure is not in the success box");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a judge runs from the view with its progress, and Cancel keeps what was answered", async () => {
  const { page, problems } = await openRunner({
    steps: [{ done: 0, total: 20, failed: 0, retries: 0 }, { done: 1, total: 20, failed: 0, retries: 1 }, { done: 2, total: 20, failed: 0, retries: 1 }],
    summary: runSummary({}),
  });
  await page.fill('[data-testid="run-model"]', "qwen");
  await page.fill('[data-testid="run-name"]', "local-judge");
  await page.click('[data-testid="run-start"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="run-progress"]')?.textContent.includes("2 of 20 answered"));
  assert.equal(await text(page, "run-progress"), "2 of 20 answered · 1 retried");
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual(sent.params, {
    base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware", name: "local-judge", map: null,
    api_key_env: null, api: "chat", cap_field: null, no_temperature: false, extra: [], concurrency: 4, temperature: 0, max_tokens: 1024, seed: null, limit: null, timeout: 120, attempts: 5, answer_attempts: 3,
    control: "none",
  });
  await page.click('[data-testid="run-cancel"]');
  await page.waitForSelector('[data-testid="run-done"]');
  assert.equal(await text(page, "run-done"), "Stopped: 2 of 20 requests answered (0 before this run). 18 still to send: Run again resumes.");
  assert.equal((await calls(page, "judge_cancel")).length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the order control offers only the pairwise templates the core lists", async () => {
  const { page, problems } = await openRunner({ steps: [], hold: false, summary: runSummary({ cancelled: false, unanswered: 0 }) });
  const options = () => page.$$eval('[data-testid="run-template"] option', (os) => os.map((o) => o.value));
  // The core's templates fitting the control, then a template file of the lab's own.
  assert.deepEqual(await options(), ["generic", "force_aware", "axis_free", "dummy_axis", "file"]);
  await page.selectOption('[data-testid="run-control"]', "order");
  assert.deepEqual(await options(), ["pairwise", "file"]);
  assert.match(await text(page, "run-control-about"), /asked twice with their order swapped/);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Fills the runner's required fields. */
async function fillRunner(page) {
  await page.fill('[data-testid="run-model"]', "qwen");
  await page.fill('[data-testid="run-name"]', "local-judge");
}

test("a run's options reach the command: map, temperature, max tokens, seed, limit, timeout and attempts", async () => {
  const { page, problems } = await openRunner({ steps: [], hold: false, summary: runSummary({ cancelled: false, unanswered: 0 }) });
  await fillRunner(page);
  // The defaults are the core's, shown in the form.
  await page.click('[data-testid="run-options"] summary');
  assert.equal(await page.inputValue('[data-testid="run-temperature"]'), "0");
  assert.equal(await page.inputValue('[data-testid="run-timeout"]'), "120");
  assert.equal(await page.inputValue('[data-testid="run-attempts"]'), "5");
  assert.equal(await page.inputValue('[data-testid="run-concurrency"]'), "4");
  const maps = await page.$$eval('[data-testid="run-map"] option', (os) => os.map((o) => `${o.value}:${o.textContent}`));
  assert.deepEqual(maps, [":own: force", "generic:generic", "force:force", "audit:audit"]);

  await page.selectOption('[data-testid="run-map"]', "audit");
  await page.fill('[data-testid="run-concurrency"]', "8");
  await page.fill('[data-testid="run-temperature"]', "0.7");
  await page.fill('[data-testid="run-max_tokens"]', "300");
  await page.fill('[data-testid="run-seed"]', "9");
  await page.fill('[data-testid="run-limit"]', "3");
  await page.fill('[data-testid="run-timeout"]', " 30 ");
  await page.fill('[data-testid="run-attempts"]', "2");
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-done"]');
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual(sent.params, {
    base_url: "http://127.0.0.1:8080/v1", model: "qwen", template: "force_aware", name: "local-judge", map: "audit",
    api_key_env: null, api: "chat", cap_field: null, no_temperature: false, extra: [], concurrency: 8, temperature: 0.7, max_tokens: 300, seed: 9, limit: 3, timeout: 30, attempts: 2, answer_attempts: 3,
    control: "none",
  });
  // The order control reads picks: no label map is sent.
  await page.selectOption('[data-testid="run-control"]', "order");
  assert.equal(await page.isDisabled('[data-testid="run-map"]'), true);
  await page.click('[data-testid="run-start"]');
  await page.waitForFunction(() => window.__ipcCalls.filter((c) => c.cmd === "judge_run").length === 2);
  const [, second] = await calls(page, "judge_run");
  assert.deepEqual([second.params.template, second.params.control, second.params.map], ["pairwise", "order", null]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("bad option values are refused by their fields and nothing is sent", async () => {
  const { page, problems } = await openRunner({ steps: [], hold: false, summary: runSummary({ cancelled: false, unanswered: 0 }) });
  await fillRunner(page);
  await page.click('[data-testid="run-options"] summary');
  const bad = { concurrency: "0", temperature: "2.5", max_tokens: "-1", seed: "1.5", limit: "0", timeout: "abc", attempts: "0", answer_attempts: "0" };
  for (const [k, v] of Object.entries(bad)) await page.fill(`[data-testid="run-${k}"]`, v);
  // Closed again: the refused Run opens it, to show where the problem is.
  await page.click('[data-testid="run-options"] summary');
  await page.click('[data-testid="run-start"]');
  assert.equal(await page.getAttribute('[data-testid="run-options"]', "open"), "");
  const said = {};
  for (const k of Object.keys(bad)) {
    said[k] = await text(page, `run-${k}-error`);
    assert.equal(await page.getAttribute(`[data-testid="run-${k}"]`, "aria-invalid"), "true", k);
  }
  assert.deepEqual(said, {
    concurrency: "A whole number from 1 to 64.",
    temperature: "A number from 0 to 2.",
    max_tokens: "A whole number ≥ 0.",
    seed: "A whole number ≥ 0.",
    limit: "A whole number ≥ 1.",
    timeout: "A whole number ≥ 1.",
    attempts: "A whole number ≥ 1.",
    answer_attempts: "A whole number ≥ 1.",
  });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "run-concurrency");
  assert.deepEqual(await calls(page, "judge_run"), []);
  await mkdir(shotsDir, { recursive: true });
  await (await page.$('[data-testid="judge-run"]')).screenshot({ path: join(shotsDir, "evaluate-judge-options.png") });
  // Corrected, the run goes; blank optional fields send nothing.
  const good = { concurrency: "2", temperature: "1", max_tokens: "", seed: "", limit: "", timeout: "60", attempts: "3", answer_attempts: "2" };
  for (const [k, v] of Object.entries(good)) await page.fill(`[data-testid="run-${k}"]`, v);
  assert.equal(await page.$('[data-testid="run-temperature-error"]'), null);
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-done"]');
  const [sent] = await calls(page, "judge_run");
  assert.deepEqual(
    [sent.params.concurrency, sent.params.temperature, sent.params.max_tokens, sent.params.seed, sent.params.limit, sent.params.timeout, sent.params.attempts],
    [2, 1, null, null, null, 60, 3],
  );
  assert.deepEqual(problems, []);
  await page.close();
});

const kappa = (n, k, ci) => ({ n_items: n, percent_agreement: 0.8, chance_agreement: 0.5, cohen_kappa: k, kappa_se: 0.1, kappa_ci95: ci, pabak: 0.6, gwet_ac1: 0.6 });

test("the trust panel shows the judge's MVR and FS, kappa per axis with its interval, the swap and the order", async () => {
  const trust = {
    name: "my-judge",
    human_agreement: {
      claims: 40, left_out: 2, overall: kappa(40, 0.512, [0.301, 0.723]),
      per_axis: { relation: kappa(12, 0.6, [0.25, 0.95]), numeric: kappa(8, -0.1, [-0.6, 0.4]) },
    },
    axis_match: { overall: { hits: 15, n: 20, rate: 0.75, ci95: [0.531, 0.888] }, per_axis: {}, no_axis_named: 1 },
    swapped_evidence: { pairs: 20, safe_own: 0.9, safe_swapped: 0.3, support_drop: 0.6, still_supported: 0.25 },
    order: { pairs: 20, position_bias: 0.15, picks_calibrated: 0.7 },
  };
  const { page, problems } = await openRunner({ steps: [], hold: false, summary: runSummary({ name: "my-judge", cancelled: false, unanswered: 0 }), trust });
  await page.fill('[data-testid="run-model"]', "qwen");
  await page.fill('[data-testid="run-name"]', "my-judge");
  await page.click('[data-testid="run-start"]');
  await page.waitForSelector('[data-testid="run-trust"]');
  // my-judge's scores as the comparison table has them.
  assert.equal(await text(page, "trust-scores"), "As an evaluator: MVR 0.242 0.142–0.342, FS 0.455 0.405–0.505");
  assert.match(await text(page, "run-trust"), /Agreement with the adjudicated labels: κ 0\.512 0\.301–0\.723 on 40 claims/);
  const rows = await page.$$eval('[data-testid="trust-axes"] tbody tr', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  assert.deepEqual(rows, ["Relation 12 0.600 0.250–0.950", "Modality 0 — ", "Scope 0 — ", "Temporal 0 — ", "Numeric 8 -0.100 -0.600–0.400"].map((r) => r.trim()));
  assert.match(await text(page, "run-trust"), /Evidence swap: support drop 0\.600; 25% still supported Order: position bias 15%; calibrated claim picked 70%/);
  assert.equal(await text(page, "trust-axis-match"), "Primary axis named on the gaps it found: the adjudicated axis 15 of 20 times (75%) 0.531–0.888; 1 named none");
  assert.equal(await page.$('[data-testid="run-trust-error"]'), null);
  await mkdir(shotsDir, { recursive: true });
  await (await page.$('[data-testid="judge-run"]')).screenshot({ path: join(shotsDir, "evaluate-trust.png") });
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a judge with no run yet shows no trust report, and any other trust failure is shown", async () => {
  const quiet = await openRunner({ steps: [], hold: false, summary: runSummary({ cancelled: false, unanswered: 0 }) });
  await fillRunner(quiet.page);
  await quiet.page.click('[data-testid="run-start"]');
  await quiet.page.waitForSelector('[data-testid="run-done"]');
  await quiet.page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "judge_trust"));
  assert.equal(await quiet.page.$('[data-testid="run-trust"]'), null);
  assert.equal(await quiet.page.$('[data-testid="run-trust-error"]'), null);
  assert.equal(await quiet.page.$('[data-testid="run-error"]'), null);
  await quiet.page.close();

  const failure = { code: "database", message: "database is locked" };
  const loud = await openRunner({ steps: [], hold: false, summary: runSummary({ cancelled: false, unanswered: 0 }), trust: failure });
  await fillRunner(loud.page);
  await loud.page.click('[data-testid="run-start"]');
  await loud.page.waitForSelector('[data-testid="run-trust-error"]');
  assert.equal(await text(loud.page, "run-trust-error"), "database: database is locked");
  await loud.page.close();
});

test("the templates and label maps offered are the core's", async () => {
  const { page, problems } = await openEvaluate();
  const values = (testid) => page.$$eval(`[data-testid="${testid}"] option`, (os) => os.map((o) => o.value));
  // Writing one request per claim takes the one-claim templates; pairwise is for the order control.
  assert.deepEqual(await values("judge-template"), ["generic", "force_aware", "axis_free", "dummy_axis", "file"]);
  assert.deepEqual(await values("judge-map"), ["generic", "force", "audit"]);
  assert.deepEqual(await values("import-map"), ["generic", "force", "audit"]);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Two models under two prompts, as `evaluation_grid` answers for evaluators stored by `judge battery`. */
function gridFixture() {
  const m = (violations, n = 33) => ({ n_pairs: n, mvr: violations / n, fs: 0.5, violations, missing: 0, unanswered: 0, mvr_ci95: null, fs_ci95: null });
  const complete = { requests: 66, answered: 66, unusable: 0, unanswered: 0 };
  const cell = (model, template, v) => ({ model, template, evaluator: `${model}@${template}`, metrics: m(v), completeness: complete, left_out: null });
  const pooled = (template, violations) => ({
    template,
    prompt: template,
    panel: { members: [], split_version: 2, n_pairs: 33, units: 66, violations, missing: 0, unanswered: 0, mvr: violations / 66, fs: 0.5, mvr_ci95: [0.3, 0.6], fs_ci95: [0.4, 0.6], per_axis: {}, per_family: {} },
  });
  return {
    models: ["alpha", "beta"],
    templates: ["generic", "force_aware"],
    cells: [cell("alpha", "generic", 16), cell("alpha", "force_aware", 8), cell("beta", "generic", 15), cell("beta", "force_aware", 9)],
    pooled: [pooled("generic", 31), pooled("force_aware", 17)],
    baselines: [],
    footnotes: [],
  };
}

test("the judge grid shows each model under each prompt, pools the prompts, and compares two picks pair by pair", async () => {
  const paired = {
    a: ["alpha@generic", "beta@generic"], b: ["alpha@force_aware", "beta@force_aware"], split_version: 2, n_pairs: 33, units: 66,
    mvr_a: 31 / 66, mvr_b: 17 / 66, fs_a: 0.3, fs_b: 0.7, only_a_violates: 16, only_b_violates: 2, both_violate: 15, neither_violates: 33,
    delta_mvr: 14 / 66, delta_mvr_ci95: [0.1, 0.32], delta_fs: -0.4, delta_fs_ci95: [-0.5, -0.3], mcnemar_p: 0.000656,
  };
  const app = await openApp(browser.context, server.url, backend({ answers: { evaluation_grid: gridFixture(), evaluation_paired: paired, evaluation_compare: reports, evaluation_plots_svg: plotsFor(reports) } }));
  const { page, problems } = app;
  await page.keyboard.press("Alt+8");
  await page.waitForSelector('[data-testid="grid-table"]');
  const rows = await page.$$eval('[data-testid="grid-table"] tbody tr', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  // Every scored cell says how many of its requests were answered.
  assert.deepEqual(rows, [
    "alpha 0.485 66/66 answered 0.242 66/66 answered",
    "beta 0.455 66/66 answered 0.273 66/66 answered",
    "All models 0.470 31/66 0.300–0.600 0.258 17/66 0.300–0.600",
  ]);
  await page.click('[data-testid="grid-pooled-generic"]');
  assert.match(await text(page, "grid-pick-one"), /Comparing all models · generic with… pick a second cell\./);
  await page.click('[data-testid="grid-pooled-force_aware"]');
  await page.waitForSelector('[data-testid="paired"]');
  const sent = await page.evaluate(() => window.__ipcCalls.filter((c) => c.cmd === "evaluation_paired").map((c) => c.args));
  assert.deepEqual(sent, [{ a: ["alpha@generic", "beta@generic"], b: ["alpha@force_aware", "beta@force_aware"] }], "panels in the grid's model order");
  assert.equal(await text(page, "paired-dmvr"), "0.212");
  assert.equal(await text(page, "paired-mcnemar"), "Only A violates on 16 units, only B on 2 (both 15, neither 33); McNemar's exact test p = 0.0007.");
  assert.equal(await page.getAttribute('[data-testid="grid-pooled-generic"]', "aria-pressed"), "true");
  await mkdir(shotsDir, { recursive: true });
  await (await page.$('[data-testid="judge-grid"]')).screenshot({ path: join(shotsDir, "evaluate-grid.png") });
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("two single judges picked in the grid also show their agreement with the adjudicated labels, paired", async () => {
  const paired = {
    a: ["alpha@generic"], b: ["alpha@force_aware"], split_version: 2, n_pairs: 33, units: 33,
    mvr_a: 16 / 33, mvr_b: 8 / 33, fs_a: 0.3, fs_b: 0.7, only_a_violates: 9, only_b_violates: 1, both_violate: 7, neither_violates: 16,
    delta_mvr: 8 / 33, delta_mvr_ci95: [0.1, 0.4], delta_fs: -0.4, delta_fs_ci95: [-0.5, -0.3], mcnemar_p: 0.0215,
  };
  const diff = (a, b, lo, hi) => ({ a, b, difference: a - b, bootstrap_ci95: [lo, hi], jackknife_se: 0.05, jackknife_ci95: [lo - 0.01, hi + 0.01] });
  const agreement = {
    a: "alpha@generic", b: "alpha@force_aware", split_version: 2, rows: 33, claims: 65, left_out: 1,
    kappa: diff(0.52, 0.71, -0.31, -0.08), gwet_ac1: diff(0.55, 0.73, -0.29, -0.07), bootstrap_reps: 1000, notes: [],
  };
  const app = await openApp(browser.context, server.url, backend({ answers: { evaluation_grid: gridFixture(), evaluation_paired: paired, evaluation_agreement_paired: agreement, evaluation_compare: reports, evaluation_plots_svg: plotsFor(reports) } }));
  const { page, problems } = app;
  await page.keyboard.press("Alt+8");
  await page.waitForSelector('[data-testid="grid-table"]');
  await page.click('[data-testid="grid-cell-alpha-generic"]');
  await page.click('[data-testid="grid-cell-alpha-force_aware"]');
  await page.waitForSelector('[data-testid="agreement-paired"]');
  const sent = await page.evaluate(() => window.__ipcCalls.filter((c) => c.cmd === "evaluation_agreement_paired").map((c) => c.args));
  assert.deepEqual(sent, [{ a: "alpha@generic", b: "alpha@force_aware" }]);
  assert.equal(await text(page, "agreement-paired-kappa"), "κ 0.520 0.710 -0.190 -0.310–-0.080");
  assert.match(await text(page, "agreement-paired"), /65 claims both judged \(1 left out\)/);
  // Pooled prompts (panels) are not one judge: no agreement rows, and no call for them.
  await page.click('[data-testid="grid-cell-alpha-generic"]');
  await page.click('[data-testid="grid-pooled-generic"]');
  await page.click('[data-testid="grid-pooled-force_aware"]');
  await page.waitForSelector('[data-testid="paired"]');
  assert.equal(await page.$('[data-testid="agreement-paired"]'), null);
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an evaluator is removed only after a second, explicit click", async () => {
  const { page, problems } = await openEvaluate();
  await page.evaluate(() => {
    const base = window.__TAURI_INTERNALS__.invoke;
    window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
      if (cmd !== "evaluator_remove") return base(cmd, args);
      window.__ipcCalls.push({ cmd, args: structuredClone(args ?? {}) });
      return 1;
    };
  });
  await page.click('[data-testid="comparison-table"] tr[data-evaluator="my-judge"] button.expand');
  await page.click('[data-testid="remove-my-judge"]');
  await page.click('[data-testid="remove-keep-my-judge"]');
  assert.deepEqual(await calls(page, "evaluator_remove"), [], "Keep removes nothing");
  await page.click('[data-testid="remove-my-judge"]');
  await page.click('[data-testid="remove-confirm-my-judge"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "evaluator_remove"));
  assert.deepEqual(await calls(page, "evaluator_remove"), [{ name: "my-judge" }]);
  assert.deepEqual(problems, []);
  await page.close();
});

// (stale status text) "Scored my-judge on 33 pairs" stayed on screen after my-judge was
// removed, describing an evaluator the table no longer had.
test("removing an evaluator takes away the note that said it was scored", async () => {
  const { page, problems } = await openEvaluate({ stored: baselineReports });
  await page.fill('[data-testid="import-path"]', "/data/judge.jsonl");
  await page.fill('[data-testid="import-name"]', "my-judge");
  await page.click('[data-testid="import-scores"]');
  await page.waitForSelector('[data-testid="import-done"]');
  await page.click('[data-testid="comparison-table"] tr[data-evaluator="my-judge"] button.expand');
  await page.click('[data-testid="remove-my-judge"]');
  await page.click('[data-testid="remove-confirm-my-judge"]');
  await page.waitForSelector('tr[data-evaluator="my-judge"]', { state: "detached" });
  assert.equal(await page.isVisible('[data-testid="import-done"]'), false, "no note about a removed evaluator");
  assert.deepEqual(problems, []);
  await page.close();
});
