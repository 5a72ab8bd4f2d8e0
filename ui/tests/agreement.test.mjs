// The agreement view in headless Chromium with mocked IPC: the headline kappa with its reading
// and companions, heatmap cells that list the rows behind them (by mouse and keyboard) and open
// a row in full, undefined reports said in sentences (never NaN or null), and export with the
// typed path and format.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { agreementReport, backend, cellRows, details, emptyReport, singleCategoryReport } from "./support/fixtures.mjs";

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
const cell = (table, row, col) => `[data-testid="cell"][data-table="${table}"][data-row="${row}"][data-col="${col}"]`;

/** Opens the app and goes to the agreement view with Alt+4. */
async function openAgreement(report, more = {}) {
  const app = await openApp(
    browser.context,
    server.url,
    backend({ ...more, answers: { agreement_report: report, agreement_cell_rows: cellRows, ...more.answers } }),
  );
  await app.page.waitForSelector('[data-testid="nav-agreement"]');
  await app.page.keyboard.press("Alt+4");
  await app.page.waitForSelector('[data-testid="agreement-headline"], [data-testid="agreement-error"]');
  return app;
}

/** Everything on screen must be words or numbers: no NaN, null, undefined values or Infinity. */
async function assertNoRawValues(page) {
  const body = await page.innerText("body");
  assert.doesNotMatch(body, /\bNaN\b|\bnull\b|Infinity|\[object/, body);
}

test("the headline: kappa, its reading in plain words and every companion statistic", async () => {
  const { page, problems } = await openAgreement(agreementReport);
  assert.equal(await page.getAttribute('[data-testid="nav-agreement"]', "aria-selected"), "true");
  assert.equal(await text(page, "kappa"), "0.75");
  assert.equal(
    await text(page, "kappa-reading"),
    "κ = 0.75 (95% CI 0.57–0.93): substantial agreement; the interval spans moderate to almost perfect.",
  );
  assert.match(await text(page, "agreement-n"), /^40 rows with two finished annotations/);
  const stats = {
    "stat-se": "0.092",
    "stat-ci": "0.57–0.93",
    "stat-bootstrap": "0.58–0.90",
    "stat-po": "85%",
    "stat-pe": "39.9%",
    "stat-ac1": "0.79",
    "stat-alpha": "0.75",
    "stat-fleiss": "0.75",
  };
  for (const [id, want] of Object.entries(stats)) assert.equal(await text(page, id), want, id);
  // Field agreement and breakdowns.
  assert.match(await text(page, "field-axis"), /Axis Cohen's κ, rows both accepted 0\.86 almost perfect 18/);
  assert.match(await text(page, "field-severity"), /0\.61 substantial 18/);
  assert.match(await text(page, "field-span"), /64\.5% · 0\.87 31/);
  assert.match(await text(page, "field-calibrated"), /29 kept by both · 8 changed by one · 3 changed by both 40/);
  assert.match(await text(page, "by-source"), /LFQA 14 85\.7% — one category only/);
  assert.match(await text(page, "by-axis"), /scope 13 84\.6% −0\.08 poor/);
  assert.match(await text(page, "by-pair"), /Ana \+ Ben 21 90\.5% 0\.84 almost perfect/);
  assert.equal(await page.isVisible('[data-testid="agreement-note"]'), false, "nothing is undefined here");
  assert.equal(await page.isVisible('[data-testid="kappa-prevalence"]'), false, "chance agreement is not high here");
  assert.match(await text(page, "small-groups"), /one row more or less moves κ a lot/);
  await assertNoRawValues(page);
  assert.deepEqual(problems, [], "no console errors and no CSP violations (the heatmap tint is a CSS variable)");
  await page.close();
});

test("when most rows share one decision, the reading says why kappa is low beside high agreement", async () => {
  const skewed = { ...agreementReport, percent_agreement: 0.842, chance_agreement: 0.715, cohen_kappa: 0.444, kappa_ci95: [0.242, 0.646], pabak: 0.762, gwet_ac1: 0.8153 };
  const { page, problems } = await openAgreement(skewed);
  assert.equal(await text(page, "kappa-reading"), "κ = 0.44 (95% CI 0.24–0.65): moderate agreement; the interval spans fair to substantial.");
  assert.equal(
    await text(page, "kappa-prevalence"),
    "Most rows share one decision, so chance agreement is high (71.5%) and κ reads lower than the 84.2% raw agreement; PABAK (0.76) and Gwet's AC1 (0.82) are less affected by this.",
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("a heatmap cell says what it holds, lists the rows behind it, and a row opens in full", async () => {
  const { page, problems } = await openAgreement(agreementReport);
  const label = await page.getAttribute(cell("decision", 0, 2), "aria-label");
  assert.equal(label, "Decision: annotator A Accept, annotator B Needs discussion (differ): 1 row, 2.5% of 40");
  assert.equal(await page.textContent(`${cell("decision", 0, 0)} .n`), "18");
  // Agreeing cells are tinted more strongly the larger their share.
  const tint = (sel) => page.$eval(sel, (b) => getComputedStyle(b).getPropertyValue("--tint").trim());
  assert.ok(Number(await tint(cell("decision", 0, 0))) > Number(await tint(cell("decision", 2, 2))));
  assert.equal(await tint(cell("decision", 2, 0)), "0");

  await page.click(cell("decision", 0, 2));
  await page.waitForSelector('[data-testid="cell-row"]');
  assert.deepEqual(await calls(page, "agreement_cell_rows"), [{ table: "decision", row: 0, col: 2 }]);
  assert.equal(await page.getAttribute(cell("decision", 0, 2), "aria-pressed"), "true");
  assert.equal(await text(page, "cell-title"), "A: Accept · B: Needs discussion · 1 row");
  const listed = await page.$$eval('[data-testid="cell-row"]', (bs) => bs.map((b) => b.textContent.replace(/\s+/g, " ").trim()));
  assert.deepEqual(listed, ["fx-002 Ana: Accept · Ben: Needs discussion", "fx-003 Ana: Accept · Chidi: Needs discussion"]);

  await page.click('[data-testid="cell-row"][data-id="fx-002"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="detail-id"]')?.textContent === "fx-002");
  assert.equal(await text(page, "detail-passage"), details["fx-002"].passage);
  assert.equal(await page.getAttribute('[data-testid="cell-row"][data-id="fx-002"]', "aria-current"), "true");

  // The keyboard: arrows move between cells of a matrix, Enter opens a cell.
  await page.focus(cell("axis_when_both_accept", 0, 0));
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), await page.getAttribute(cell("axis_when_both_accept", 1, 1), "aria-label"));
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector('[data-testid="cell-title"]')?.textContent.includes("Modality"));
  assert.deepEqual((await calls(page, "agreement_cell_rows")).at(-1), { table: "axis_when_both_accept", row: 1, col: 1 });
  assert.equal(await page.isVisible('[data-testid="cell-detail"]'), false, "a new cell closes the row opened before");
  assert.deepEqual(problems, []);
  await page.close();
});

test("an empty cell lists nothing and asks the core for nothing", async () => {
  const { page } = await openAgreement(agreementReport);
  await page.click(cell("decision", 2, 0));
  await page.waitForSelector('[data-testid="cell-empty"]');
  assert.deepEqual(await calls(page, "agreement_cell_rows"), []);
  await page.close();
});

test("undefined cases are said in sentences: one category only", async () => {
  const { page, problems } = await openAgreement(singleCategoryReport);
  assert.equal(await text(page, "kappa"), "—");
  assert.equal(await page.isVisible('[data-testid="kappa-reading"]'), false);
  assert.deepEqual(await page.$$eval('[data-testid="agreement-note"]', (ps) => ps.map((p) => p.textContent)), [
    "Every label is “Accept”: with a single category chance agreement is 1 and kappa is undefined.",
  ]);
  assert.match(await text(page, "accept-kappa"), /^κ — undefined: one category only · agreement 100%$/);
  assert.match(await page.innerText('[data-testid="agreement-headline"] .stats'), /95% CI \(bootstrap\)\s+— κ is undefined/);
  assert.equal(await text(page, "stat-po"), "100%");
  assert.match(await text(page, "field-span"), /— no row where both marked a span 0/);
  assert.match(await text(page, "field-severity"), /— undefined: one severity only 5/);
  assert.match(await text(page, "axis-note"), /Every label is “Scope”/);
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("undefined cases are said in sentences: no row annotated twice yet", async () => {
  const { page, problems } = await openAgreement(emptyReport);
  assert.match(await text(page, "agreement-n"), /^0 rows/);
  assert.equal(await text(page, "agreement-note"), "No item was labelled by both annotators, so agreement is undefined.");
  assert.match(await text(page, "agreement-empty"), /once both annotators of a row have finished it/);
  assert.equal(await page.$('[data-testid="cell"]'), null, "no empty matrices");
  assert.equal(await page.$('[data-testid="agreement-headline"] .stats'), null, "no grid of dashes: the sentence says it");
  assert.equal(await page.isVisible('[data-testid="export-csv"]'), true, "an empty report can still be exported");
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("export writes the typed path in the chosen format and names the file", async () => {
  const { page, problems } = await openAgreement(agreementReport, { answers: { export_agreement: "/data/out/report.csv" } });
  assert.equal(await page.inputValue('[data-testid="export-path"]'), "/tmp/ui-fixture-agreement", "beside the project by default");
  await page.fill('[data-testid="export-path"]', "/data/out/report.csv");
  await page.click('[data-testid="export-csv"]');
  await page.waitForSelector('[data-testid="export-result"]');
  assert.deepEqual(await calls(page, "export_agreement"), [{ path: "/data/out/report.csv", format: "csv" }]);
  assert.equal(await text(page, "export-result"), "Wrote the CSV report to /data/out/report.csv.");
  // Without an extension, the format's is added.
  await page.fill('[data-testid="export-path"]', " /data/out/report ");
  await page.click('[data-testid="export-json"]');
  await page.waitForFunction(() => window.__ipcCalls.filter((c) => c.cmd === "export_agreement").length === 2);
  assert.deepEqual((await calls(page, "export_agreement"))[1], { path: "/data/out/report.json", format: "json" });
  assert.deepEqual(problems, []);
  await page.close();

  const failing = await openAgreement(agreementReport, {
    errors: { export_agreement: { code: "io", message: "No file or folder at /nope/report.csv" } },
  });
  await failing.page.fill('[data-testid="export-path"]', "/nope/report.csv");
  await failing.page.click('[data-testid="export-csv"]');
  await failing.page.waitForSelector('[data-testid="export-error"]');
  assert.equal(await text(failing.page, "export-error"), "io: No file or folder at /nope/report.csv");
  assert.equal(await failing.page.isVisible('[data-testid="export-result"]'), false);
  // A blank path is sent too, and the shell's refusal shown as it words it.
  await failing.page.fill('[data-testid="export-path"]', "  ");
  await failing.page.click('[data-testid="export-json"]');
  await failing.page.waitForFunction(() => document.querySelector('[data-testid="export-error"]')?.textContent.includes("type the path"));
  assert.deepEqual((await calls(failing.page, "export_agreement"))[1], { path: "", format: "json" });
  assert.equal(await text(failing.page, "export-error"), "invalid_argument: type the path of the file to write the report to");
  await failing.page.close();
});

test("a report that cannot be computed says why", async () => {
  const { page } = await openAgreement(agreementReport, {
    errors: { agreement_report: { code: "database", message: "database disk image is malformed" } },
  });
  assert.equal(await text(page, "agreement-error"), "database: database disk image is malformed");
  await page.close();
});

test("screenshot of the agreement view, for review", async () => {
  const { page } = await openAgreement(agreementReport);
  await page.click(cell("decision", 0, 1));
  await page.click('[data-testid="cell-row"][data-id="fx-002"]');
  await page.waitForSelector('[data-testid="detail-id"]');
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "agreement.png") });
  await page.close();
});

test("agreement per guideline version and week, and each annotator against the final labels", async () => {
  const report = {
    ...agreementReport,
    by_guideline_version: [
      { key: "1", n_items: 24, percent_agreement: 0.75, cohen_kappa: 0.58, kappa_ci95: [0.3, 0.86] },
      { key: "2", n_items: 16, percent_agreement: 0.94, cohen_kappa: 0.88, kappa_ci95: [0.7, 1] },
    ],
    by_week: [{ key: "2025-W10", n_items: 40, percent_agreement: 0.82, cohen_kappa: 0.7, kappa_ci95: [0.5, 0.9] }],
    by_annotator: [
      {
        annotator: "Ana",
        adjudicated_rows: 20,
        per_field: { decision: { agree: 18, total: 20, share: 0.9, ci95: [0.7, 0.97] }, axis: { agree: 14, total: 16, share: 0.875, ci95: [0.64, 0.97] } },
        seconds_per_row: 41.6,
        sent_to_discussion: 0.05,
        under_two_seconds: 2,
      },
    ],
  };
  const { page, problems } = await openAgreement(report);
  assert.match(await text(page, "by-version"), /1 24 75%.*0\.58.*2 16 94%.*0\.88/);
  assert.match(await text(page, "by-week"), /2025-W10 40/);
  // Each group's kappa with its interval, as agreement --json carries it (kappa_ci95).
  const rowsOf = (testid) =>
    page.$$eval(`[data-testid="${testid}"] tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => c.innerText.replace(/\s+/g, " ").trim())));
  assert.deepEqual(await rowsOf("by-version"), [
    ["1", "24", "75%", "0.58 moderate", "0.30–0.86"],
    ["2", "16", "94%", "0.88 almost perfect", "0.70–1.00"],
  ]);
  assert.deepEqual(await rowsOf("by-week"), [["2025-W10", "40", "82%", "0.70 substantial", "0.50–0.90"]]);
  assert.equal(await page.$eval('[data-testid="by-version"] thead', (t) => t.innerText.replace(/\s+/g, " ").trim()), "Group Rows Agree κ 95% CI");
  await mkdir(shotsDir, { recursive: true });
  await (await page.$(".breakdowns")).screenshot({ path: join(shotsDir, "agreement-breakdowns.png") });
  assert.equal(
    await page.innerText('[data-testid="annotator-quality"][data-annotator="Ana"]').then((t) => t.replace(/\s+/g, " ").trim()),
    "Ana 20 90% 87.5% 42 5% 2",
  );
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("every coefficient carries its interval, accept vs not its paradox indices, and a panel plans the rows", async () => {
  const gwet = (lo, hi, se) => ({ se, ci95: [lo, hi], method: "gwet" });
  const report = {
    ...agreementReport,
    kappa_interval: { se: 0.092, ci95: [0.52, 0.88], method: "fisher_z" },
    advice: ["with 40 rows and kappa 0.75, kappa ± 1.96 SE covers less often than 95% in the coverage simulation; read the interval 0.52 to 0.88 (made on Fisher's z scale) instead"],
    pabak_interval: { se: 0.08, ci95: [0.61, 0.9], method: "wilson" },
    gwet_ac1_interval: gwet(0.64, 0.94, 0.07),
    // The intervals to read are what the view shows (the plain ones stay in the JSON).
    gwet_ac1_read_interval: { se: 0.07, ci95: [0.61, 0.92], method: "fisher_z" },
    krippendorff_alpha_interval: gwet(0.56, 0.94, 0.09),
    krippendorff_alpha_read_interval: { se: 0.09, ci95: [0.53, 0.91], method: "fisher_z" },
    fleiss_kappa_interval: gwet(0.57, 0.93, 0.09),
    fleiss_kappa_read_interval: { se: 0.09, ci95: [0.54, 0.9], method: "fisher_z" },
    accept_vs_not: {
      ...agreementReport.accept_vs_not,
      kappa_interval: { se: 0.1, ci95: [0.3, 0.75], method: "fisher_z" },
      prevalence_index: 0.675,
      bias_index: -0.025,
      gwet_ac1: 0.9,
      gwet_ac1_interval: gwet(0.81, 0.98, 0.04),
      gwet_ac1_read_interval: { se: 0.04, ci95: [0.79, 0.96], method: "fisher_z" },
      pabak: 0.85,
      pabak_interval: { se: 0.06, ci95: [0.69, 0.93], method: "wilson" },
      advice: ["prevalence index 0.68: one label fills most of the agreeing rows, so chance agreement is high and kappa (0.55) is held down although the annotators agree on 92% of rows; read Gwet's AC1 (0.90) and PABAK (0.85) beside it"],
    },
    axis_krippendorff_alpha: 0.86,
    axis_krippendorff_alpha_interval: gwet(0.72, 0.99, 0.07),
    axis_krippendorff_alpha_read_interval: { se: 0.07, ci95: [0.68, 0.95], method: "fisher_z" },
    severity_weighted_kappa_interval: { se: 0.1, ci95: [0.41, 0.81], method: "fleiss_cohen_everitt" },
    severity_weighted_kappa_read_interval: { se: 0.1, ci95: [0.38, 0.79], method: "fisher_z" },
    severity_krippendorff_alpha: 0.6,
    severity_krippendorff_alpha_interval: gwet(0.38, 0.82, 0.11),
    severity_krippendorff_alpha_read_interval: { se: 0.11, ci95: [0.35, 0.79], method: "fisher_z" },
    span: { ...agreementReport.span, exact_match_interval: { se: 0.08, ci95: [0.47, 0.79], method: "wilson" }, mean_token_f1_interval: { se: null, ci95: [0.8, 0.93], method: "bootstrap_percentile" } },
    by_guideline_version: [
      { key: "1", n_items: 24, percent_agreement: 0.75, cohen_kappa: 0.58, kappa_ci95: [0.3, 0.86], kappa_interval: { se: 0.2, ci95: [0.1, 0.9], method: "fisher_z" }, plain_interval_under_covers: true },
    ],
    plan: [
      { half_width: 0.05, rows_at_observed: 554, more_rows: 1177 },
      { half_width: 0.1, rows_at_observed: 139, more_rows: 274 },
      { half_width: 0.15, rows_at_observed: 62, more_rows: null },
    ],
  };
  const { page, problems } = await openAgreement(report);
  assert.equal(await text(page, "stat-ci-read"), "0.52–0.88");
  assert.match(await text(page, "kappa-reading"), /^κ = 0\.75 \(95% CI 0\.52–0\.88\)/, "the reading quotes the interval to read");
  assert.equal(await text(page, "stat-ac1-ci"), "0.61–0.92");
  assert.equal(await text(page, "stat-pabak-ci"), "0.61–0.90");
  assert.equal(await text(page, "stat-alpha-ci"), "0.53–0.91");
  assert.equal(await text(page, "stat-fleiss-ci"), "0.54–0.90");
  assert.match(await text(page, "agreement-advice"), /covers less often than 95%.*0\.52 to 0\.88/);
  assert.equal(await text(page, "accept-kappa-ci"), "0.30–0.75");
  assert.match(await text(page, "accept-indices"), /prevalence index 0\.68 · bias index −0\.03 · AC1 0\.90 0\.79–0\.96 · PABAK 0\.85 0\.69–0\.93/);
  assert.match(await text(page, "accept-advice"), /held down.*AC1.*PABAK/);
  assert.equal(await text(page, "field-axis-alpha"), "Krippendorff's α 0.86 0.68–0.95");
  assert.equal(await text(page, "field-severity-ci"), "0.38–0.79");
  assert.equal(await text(page, "field-severity-alpha"), "ordinal Krippendorff's α 0.60 0.35–0.79");
  assert.equal(await text(page, "field-span-ci"), "exact 0.47–0.79 · F1 0.80–0.93");
  assert.match(await text(page, "by-version"), /0\.58 moderate 0\.10–0\.90 small n/);
  const plan = await page.$$eval('[data-testid="plan-row"]', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  // Broke: "Rows in all 1587" beside "More from now 1344" did not add up, and only the docs said
  // why: the view names both methods, and the second column adds up by itself.
  assert.deepEqual(plan, ["± 0.05 554 1,177 (1,217 in all)", "± 0.10 139 274 (314 in all)", "± 0.15 62 —"]);
  const methods = (await text(page, "plan-methods")).replace(/\s+/g, " ");
  assert.match(methods, /Planned from κ: the rows a whole study needs/);
  assert.match(methods, /From the interval now: the interval of the 40 rows so far narrows with the square root of the rows/);
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "agreement-intervals.png"), fullPage: true });
  await assertNoRawValues(page);
  assert.deepEqual(problems, []);
  await page.close();
});

const uptake = (over) => ({ compared: 4, accepted: 3, edited: 1, acceptance_rate: 0.75, edit_rate: 0.25, ...over });

// The suggestions followed through end the report: counts beside shares, and the annotations
// made with suggestions hidden counted, not dropped from sight.
test("the suggestions followed through: kept and edited counts beside their shares, hidden ones counted", async () => {
  const report = {
    ...agreementReport,
    suggestion_uptake: {
      annotations: 4,
      hidden: 2,
      by_field: { axis: uptake({}), severity: uptake({ accepted: 4, edited: 0, acceptance_rate: 1, edit_rate: 0 }) },
      by_drafter: { "drafter-1": { axis: uptake({ compared: 3, accepted: 2, edited: 1, acceptance_rate: 2 / 3, edit_rate: 1 / 3 }) } },
      by_family: { model: { axis: uptake({ compared: 3, accepted: 2, edited: 1, acceptance_rate: 2 / 3, edit_rate: 1 / 3 }) } },
    },
  };
  const { page, problems } = await openAgreement(report);
  await page.waitForSelector('[data-testid="agreement-uptake"]');
  assert.equal(
    await text(page, "uptake-heading"),
    "4 finished annotations compared field by field with the suggestion they started from; 2 made with suggestions hidden left out (their annotators never saw one).",
  );
  const rows = await page.$$eval('[data-testid="uptake-row"]', (trs) => trs.map((tr) => tr.innerText.replace(/\s+/g, " ").trim()));
  assert.deepEqual(rows, [
    "all axis 3 (75%) 1 (25%) 4",
    "severity 4 (100%) 0 (0%) 4",
    "drafter drafter-1 axis 2 (66.7%) 1 (33.3%) 3",
    "family model axis 2 (66.7%) 1 (33.3%) 3",
  ]);
  await assertNoRawValues(page);
  // To look at: the part at the smallest window the app supports.
  await mkdir(shotsDir, { recursive: true });
  await page.setViewportSize({ width: 960, height: 600 });
  await page.locator('[data-testid="agreement-uptake"]').screenshot({ path: join(shotsDir, "agreement-uptake-960x600.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a report with nothing to compare says so, and a report without the part shows none", async () => {
  const empty = { ...agreementReport, suggestion_uptake: { annotations: 0, hidden: 3, by_field: {}, by_drafter: {}, by_family: {} } };
  const { page, problems } = await openAgreement(empty);
  await page.waitForSelector('[data-testid="uptake-empty"]');
  assert.match(await text(page, "uptake-heading"), /^0 finished annotations .*; 3 made with suggestions hidden left out/);
  await page.close();
  const none = await openAgreement({ ...agreementReport, suggestion_uptake: null });
  assert.equal(await none.page.$('[data-testid="agreement-uptake"]'), null);
  assert.deepEqual([...problems, ...none.problems], []);
  await none.page.close();
});
