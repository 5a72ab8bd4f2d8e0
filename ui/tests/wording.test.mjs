// Wording a lab member reads right the first time, in headless Chromium with mocked IPC: the QC
// report lists its warnings in words; the bulk-confirmation dialog keeps its sentence whole; the
// judge grid says why a cell cannot be picked; Setup brings each result into view; issuing says
// which packets continue their annotator's work.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { adjudicateBackend, backend } from "./support/fixtures.mjs";
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

const text = async (page, sel) => (await page.innerText(sel)).replace(/\s+/g, " ").trim();

async function adjudicate(over) {
  const app = await openApp(browser.context, server.url, adjudicateBackend(over));
  await app.page.waitForSelector('[data-testid="nav-adjudicate"]');
  await app.page.keyboard.press("Alt+5");
  await app.page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  return app;
}

// Broke: "27 pass (7 with warnings)" listed none of the warnings, and a date warning read
// "calibrated {`2023`, `september`}, raised {}".
test("the QC report lists every row with a failed check, held back first, with what failed in words", async () => {
  const warn = (id, detail) => ({ id, blocked: false, failed: [{ check: "locality_changed_dates", severity: "warning", passed: false, detail }] });
  const run_qc = {
    rows_checked: 4,
    passed: 3,
    blocked: 1,
    warned: 2,
    rows: [
      warn("fx-adj-2", "the raised claim leaves out the date of the calibrated claim (`2023`, `september`)"),
      { id: "fx-adj-3", blocked: true, failed: [{ check: "span_verbatim", severity: "error", passed: false, detail: "the span is not in the passage" }] },
      warn("fx-adj-4", "the raised claim adds a date the calibrated claim does not have (`2020`)"),
    ],
  };
  const base = adjudicateBackend();
  const { page, problems } = await adjudicate({ answers: { ...base.answers, run_qc } });
  await page.click('[data-testid="run-qc"]');
  await page.waitForSelector('[data-testid="qc-report"]');
  assert.match(await text(page, '[data-testid="qc-report"]'), /^QC checked 4 accepted rows: 3 pass, 2 of them with warnings to read; 1 held back by a failed check\./);
  const rows = await page.$$eval('[data-testid="qc-row"]', (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()));
  assert.deepEqual(rows, [
    "fx-adj-3 held back: the span is not in the passage",
    "fx-adj-2 warning: the raised claim leaves out the date of the calibrated claim (`2023`, `september`)",
    "fx-adj-4 warning: the raised claim adds a date the calibrated claim does not have (`2020`)",
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke: the dialog's text was loose in a wrapping flex row, so each run between two tags wrapped
// on its own and the sentence broke mid-line.
test("the bulk-confirmation dialog keeps its sentence in one block, buttons after it", async () => {
  const { page, problems } = await adjudicate();
  await page.setViewportSize({ width: 960, height: 600 });
  await page.click('[data-testid="confirm-bulk"]');
  await page.waitForSelector('[data-testid="affirm-count"]');
  const layout = await page.evaluate(() => {
    const dialog = document.querySelector('[data-testid="confirm-dialog"]');
    const loose = [...dialog.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== "");
    const p = document.querySelector('[data-testid="confirm-text"]').getBoundingClientRect();
    const yes = document.querySelector('[data-testid="confirm-yes"]').getBoundingClientRect();
    const inner = dialog.getBoundingClientRect();
    return { loose: loose.length, textWidth: p.width, dialogWidth: inner.width, buttonsBelow: yes.top >= p.bottom - 1 };
  });
  assert.equal(layout.loose, 0, "no loose text beside the block");
  assert.ok(layout.textWidth > layout.dialogWidth * 0.9, `the sentence runs the dialog's width: ${JSON.stringify(layout)}`);
  assert.ok(layout.buttonsBelow, "the buttons come after the sentence");
  assert.match(await text(page, '[data-testid="confirm-text"]'), /^Confirm all 2 open full agreements as Eve\? .* \(including rows bulk-confirmed earlier\)\.$/);
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke: a cell with no scores showed a dash that could not be picked, and nothing said why.
test("the judge grid says why a dash cannot be picked, and what a cell with every answer missing means", async () => {
  const m = (violations, missing = 0) => ({ n_pairs: 33, mvr: violations / 33, fs: 0, violations, missing, unanswered: 0, mvr_ci95: null, fs_ci95: null });
  const grid = {
    models: ["alpha", "beta"],
    templates: ["generic"],
    cells: [
      {
        model: "alpha",
        template: "generic",
        evaluator: "alpha@generic",
        metrics: m(33, 33),
        completeness: { requests: 66, answered: 0, unusable: 66, unanswered: 0 },
        left_out: null,
      },
      { model: "beta", template: "generic", evaluator: "beta@generic", metrics: null, completeness: null, left_out: null },
    ],
    pooled: [],
    baselines: [],
    footnotes: [],
  };
  const { page, problems } = await openApp(browser.context, server.url, backend({ answers: { evaluation_grid: grid, evaluation_compare: reports, evaluation_plots_svg: plotsFor(reports) } }));
  await page.keyboard.press("Alt+8");
  await page.waitForSelector('[data-testid="grid-table"]');
  assert.equal(await page.getAttribute('[data-testid="grid-unscored-beta-generic"]', "title"), "No scores stored for beta under generic yet: nothing to pick or compare");
  assert.match(await text(page, '[data-testid="grid-unscored-note"]'), /A dash: no scores for that model and prompt are stored yet .* so the cell cannot be picked/);
  assert.match(await text(page, '[data-testid="grid-all-missing-note"]'), /every pair has an answer with no readable verdict after the retries counts each pair as a violation \(MVR 1\.00\)/);
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke: after a refused import (a long table of problems), the next step's result appeared below
// the window's edge, and nothing showed that it had come.
test("at 960x600 Setup brings each result into view, and issuing says which packets continue their annotator's work", async () => {
  const many = Array.from({ length: 30 }, (_, i) => ({ file: "/in/c.csv", line: i + 2, field: "axis", message: "unknown axis `vibes`" }));
  const issued = [
    { annotator: "Ana", packet_id: "p1", file: "/out/ana-p1.packet.json", rows: 53, carried: 39 },
    { annotator: "Ben", packet_id: "p2", file: "/out/ben-p2.packet.json", rows: 53, carried: 0 },
  ];
  const { page, problems } = await openApp(
    browser.context,
    server.url,
    backend({ errors: { import_candidates: { code: "invalid_input", message: "30 problems", problems: many, conflicts: [] } }, answers: { issue_packets: issued } }),
  );
  await page.setViewportSize({ width: 960, height: 600 });
  await page.waitForSelector('[data-testid="nav-setup"]');
  await page.keyboard.press("Alt+9");
  await page.fill('[data-testid="import-path"]', "/in/c.csv");
  await page.click('[data-testid="import-run"]');
  await page.waitForSelector('[data-testid="import-problems"]');
  const visible = (id) =>
    page.$eval(`[data-testid="${id}"]`, (el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 40 && r.bottom <= innerHeight;
    });
  assert.ok(await visible("import-error"), "the refusal is in view");
  // The issue form, brought into view with the keyboard as a keyboard user would reach it.
  await page.fill('[data-testid="issue-dir"]', "/out");
  await page.focus('[data-testid="issue-run"]');
  await page.$eval('[data-testid="issue-run"]', (b) => b.scrollIntoView({ block: "end" }));
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="issue-files"]');
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="issue-files"]').getBoundingClientRect();
    return r.bottom <= innerHeight;
  });
  assert.ok(await visible("issue-files"), "the packets issued are in view");
  const lines = await page.$$eval('[data-testid="issue-files"] li', (els) => els.map((e) => e.textContent.replace(/\s+/g, " ").trim()));
  assert.deepEqual(lines, [
    "/out/ana-p1.packet.json (Ana, 53 rows; 39 of them carry Ana's own labels from this project, which the packet continues)",
    "/out/ben-p2.packet.json (Ben, 53 rows)",
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});
