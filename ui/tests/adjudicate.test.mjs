// The adjudicate view, the locality audit and the funnel in headless Chromium with mocked IPC:
// differing fields are highlighted and both spans marked; taking A or B by keyboard builds the
// Resolution the core expects; an edited value asks for a rationale before anything is sent;
// full agreements are confirmed in bulk only after a confirmation; a nonlocal mark needs a reason
// (and the core's refusal is shown); the funnel shows the status counts.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { adjA, adjB, adjQueue, adjRows, adjudicateBackend, savedRow } from "./support/fixtures.mjs";

let server;
let browser;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
  await mkdir(shotsDir, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const calls = (page, cmd) => page.evaluate((c) => window.__ipcCalls.filter((x) => x.cmd === c).map((x) => x.args), cmd);
const focused = (page) => page.getAttribute('[data-testid="field-row"][data-focused="true"]', "data-field");
const sourceOf = (page, field) => page.getAttribute(`[data-testid="field-row"][data-field="${field}"]`, "data-source");

/** Opens the app and goes to Adjudicate with Alt+5; the first open row (fx-adj-1) shows. */
async function openAdjudicate(overrides = {}) {
  const app = await openApp(browser.context, server.url, adjudicateBackend(overrides));
  await app.page.waitForSelector('[data-testid="nav-adjudicate"]');
  await app.page.keyboard.press("Alt+5");
  await app.page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  return app;
}

test("the queue comes in category order with counts; differing fields are highlighted and both spans marked", async () => {
  const { page, problems } = await openAdjudicate();
  assert.equal(await page.getAttribute('[data-testid="nav-adjudicate"]', "aria-selected"), "true");
  const count = (c) =>
    page.$eval(`[data-testid="count-${c}"]`, (el) => [Number(el.dataset.open), Number(el.dataset.total)]);
  assert.deepEqual(await count("decision_disagreement"), [1, 1]);
  assert.deepEqual(await count("full_agreement"), [2, 3]);
  const items = await page.$$eval('[data-testid="adj-item"]', (els) => els.map((e) => [e.dataset.id, e.dataset.category]));
  assert.deepEqual(items.map((i) => i[0]), ["fx-adj-1", "fx-adj-2", "fx-adj-3", "fx-adj-4", "fx-adj-5"]);
  assert.match(await page.textContent('[data-testid="confirm-bulk"]'), /Confirm 2 full agreements/);

  const differing = await page.$$eval('[data-testid="field-row"][data-differs="true"]', (els) => els.map((e) => e.dataset.field));
  assert.deepEqual(differing, ["decision", "evidence_span", "raised_claim", "axis", "severity", "boundary_type"]);
  // A highlighted cell looks different from one that agrees.
  const bg = (field) =>
    page.$eval(`[data-testid="field-row"][data-field="${field}"] [data-testid="cell-a"]`, (el) => getComputedStyle(el).backgroundColor);
  assert.notEqual(await bg("axis"), await bg("calibrated_claim"));
  // The words that differ between A's and B's raised claims are marked.
  assert.equal(await page.textContent('[data-testid="field-row"][data-field="raised_claim"] [data-testid="cell-a"] .changed'), "Most");
  assert.equal(await page.textContent('[data-testid="field-row"][data-field="raised_claim"] [data-testid="cell-b"] .changed'), "All");
  assert.match(await page.textContent('[data-testid="row-names"]'), /A: Ana · B: Ben/);

  // Both spans in the passage (byte offsets in a non-ASCII passage), each with its own mark.
  const marks = await page.$$eval('[data-testid="span-mark"]', (els) => els.map((e) => [e.textContent, e.dataset.a, e.dataset.b]));
  assert.deepEqual(marks, [
    [JSON.parse(adjA.evidence_span).text, "true", "false"],
    [JSON.parse(adjB.evidence_span).text, "false", "true"],
  ]);
  // The first conflict has the focus; nothing is final yet.
  assert.equal(await focused(page), "decision");
  assert.match(await page.textContent('[data-testid="field-row"][data-field="axis"] [data-testid="final-value"]'), /open/);
  await page.screenshot({ path: join(shotsDir, "adjudicate-row.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("taking A and B by keyboard builds the Resolution; the saved row shows sources, history and QC", async () => {
  const { page, problems } = await openAdjudicate();
  // decision: A; j → span: A; j → raised claim: B; j → axis: A; j → severity: B.
  await page.keyboard.press("a");
  assert.equal(await sourceOf(page, "decision"), "a");
  // A's decision (accept) does not need a boundary type: it is dimmed and j skips it.
  assert.match(await page.getAttribute('[data-testid="field-row"][data-field="boundary_type"]', "class"), /\bdim\b/);
  for (const [key, field] of [["a", "evidence_span"], ["b", "raised_claim"], ["a", "axis"], ["b", "severity"]]) {
    await page.keyboard.press("j");
    assert.equal(await focused(page), field);
    await page.keyboard.press(key);
  }
  await page.keyboard.press("j");
  assert.equal(await focused(page), "decision", "j wraps around and skips the boundary type an accept does not need");
  await page.keyboard.press("k");
  assert.equal(await focused(page), "severity");
  assert.equal(await sourceOf(page, "severity"), "b");
  assert.equal(await sourceOf(page, "calibrated_claim"), "both");
  assert.equal(await page.isVisible('[data-testid="rationale-required"]'), false, "no value overrides both annotators");
  await page.click('[data-testid="check-span_decisive-yes"]');
  await page.click('[data-testid="check-one_local_axis-no"]');
  await page.click('[data-testid="check-one_local_axis-no"]'); // a second click takes the answer back
  await page.click('[data-testid="check-one_local_axis-no"]');
  assert.equal(await page.getAttribute('[data-testid="save-state"]', "data-state"), "unsaved");
  await page.keyboard.press("Control+Enter");
  // Broke: saving stayed on the row; it now moves on to the next open row and says so.
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-2");
  assert.equal(
    await page.textContent('[data-testid="save-advanced"]'),
    "Saved fx-adj-1 (held back by QC). Next open row: fx-adj-2.",
  );
  assert.deepEqual(await calls(page, "resolve_row"), [
    {
      id: "fx-adj-1",
      adjudicator: "Eve",
      hide_names: false,
      resolution: {
        choices: [
          ["decision", { take: "a" }],
          ["evidence_span", { take: "a" }],
          ["raised_claim", { take: "b" }],
          ["axis", { take: "a" }],
          ["severity", { take: "b" }],
        ],
        rationale: null,
        checklist: {
          span_decisive: true,
          calibrated_supported: null,
          raised_underwarranted: null,
          one_local_axis: false,
          no_unrelated_addition: null,
        },
      },
    },
  ]);
  // Back on the saved row ([), what the core recorded: each field's source, who and when; the
  // history; QC with failed errors in red and warnings in amber.
  await page.evaluate(() => {
    window.__backend.byArg.adjudication_row.answers["fx-adj-1"] = window.__backend.answers.resolve_row;
  });
  await page.keyboard.press("[");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  await page.waitForSelector('[data-testid="qc-result"]');
  const recorded = await page.$$eval('[data-testid="field-row"]', (rows) =>
    rows.map((r) => [r.dataset.field, r.querySelector('[data-testid="recorded"]')?.textContent ?? null]),
  );
  assert.deepEqual(Object.fromEntries(recorded).severity, "Eve · 2025-03-04 05:06:07 UTC");
  assert.deepEqual(Object.fromEntries(recorded).boundary_type, null);
  assert.equal(await page.locator('[data-testid="history-event"]').count(), savedRow().history.length);
  const qc = await page.$$eval('[data-testid="qc-result"]', (els) =>
    els.map((e) => [e.dataset.check, e.dataset.severity, getComputedStyle(e).color]),
  );
  assert.deepEqual(qc, [
    ["checklist_one_local_axis", "error", "rgb(179, 38, 30)"],
    ["checklist_no_unrelated_addition", "warning", "rgb(138, 90, 0)"],
    ["locality_large_rewrite", "warning", "rgb(138, 90, 0)"],
  ]);
  assert.match(await page.textContent('[data-testid="qc-summary"]'), /Held back/);
  assert.match(await page.textContent('[data-testid="qc"]'), /3 checks passed/);
  await page.screenshot({ path: join(shotsDir, "adjudicate-saved.png"), fullPage: true });
  // ] moves to the next row of the queue.
  await page.keyboard.press("]");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-2");
  assert.equal(await focused(page), "severity", "the only conflict of a field disagreement");
  assert.deepEqual(problems, []);
  await page.close();
});

test("editing to a value neither annotator gave requires a rationale before anything is sent", async () => {
  const { page, problems } = await openAdjudicate();
  await page.keyboard.press("a");
  await page.keyboard.press("j");
  await page.keyboard.press("a");
  await page.keyboard.press("j");
  assert.equal(await focused(page), "raised_claim");
  await page.keyboard.press("e");
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "edit-input");
  await page.keyboard.press("Control+A");
  const edited = "Every Zürich renter will certainly move within a year.";
  await page.keyboard.type(edited);
  assert.equal(await focused(page), "raised_claim", "typing in the editor fires no shortcut");
  await page.keyboard.press("Enter");
  assert.equal(await sourceOf(page, "raised_claim"), "edited");
  assert.match(await page.textContent('[data-testid="rationale-required"]'), /A rationale is required: the final raised claim is neither A's nor B's/);
  for (const [key, field] of [["a", "axis"], ["b", "severity"]]) {
    await page.keyboard.press("j");
    assert.equal(await focused(page), field);
    await page.keyboard.press(key);
  }
  await page.keyboard.press("Control+Enter");
  assert.match(await page.textContent('[data-testid="save-problem"]'), /rationale is required: raised claim overrides both annotators/);
  assert.deepEqual(await calls(page, "resolve_row"), [], "nothing was sent");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), "rationale");
  const why = "Both raised claims add a quantifier; this one shifts only modality.";
  await page.keyboard.type(why);
  assert.equal(await page.isVisible('[data-testid="rationale-required"]'), false);
  await page.keyboard.press("Control+Enter");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-2");
  const [sent] = await calls(page, "resolve_row");
  assert.deepEqual(sent.resolution.choices, [
    ["decision", { take: "a" }],
    ["evidence_span", { take: "a" }],
    ["raised_claim", { take: "value", value: edited }],
    ["axis", { take: "a" }],
    ["severity", { take: "b" }],
  ]);
  assert.equal(sent.resolution.rationale, why);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an edited span must be verbatim; the core's refusal is shown with its code", async () => {
  const message =
    "row `fx-adj-1` cannot be adjudicated: field `raised_claim`: the final value overrides both annotators, so a rationale is required";
  const { page, problems } = await openAdjudicate({ errors: { resolve_row: { code: "invalid_argument", message } } });
  await page.keyboard.press("a");
  await page.keyboard.press("j");
  await page.keyboard.press("e");
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "edit-input");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("renters will leave");
  await page.keyboard.press("Enter");
  assert.match(await page.textContent('[data-testid="edit-error"]'), /verbatim part of the passage/);
  await page.keyboard.press("Control+A");
  await page.keyboard.type("survey found that 12–18%");
  await page.keyboard.press("Enter");
  assert.equal(await sourceOf(page, "evidence_span"), "edited");
  assert.match(await page.textContent('[data-testid="field-row"][data-field="evidence_span"] [data-testid="final-value"]'), /survey found that 12–18%/);
  for (const [key, field] of [["b", "raised_claim"], ["a", "axis"], ["a", "severity"]]) {
    await page.keyboard.press("j");
    assert.equal(await focused(page), field);
    await page.keyboard.press(key);
  }
  await page.keyboard.press("r");
  await page.keyboard.type("The decisive words are the survey's range.");
  await page.keyboard.press("Control+Enter");
  await page.waitForSelector('[data-testid="save-error"]');
  assert.equal(await page.textContent('[data-testid="save-error"]'), `Not saved. invalid_argument: ${message}`);
  const [sent] = await calls(page, "resolve_row");
  const span = JSON.parse(sent.resolution.choices.find((c) => c[0] === "evidence_span")[1].value);
  const passage = "In Zürich — a 2019 survey found that 12–18% of renters may move within a year, the city said.";
  assert.equal(Buffer.from(passage).subarray(span.start, span.end).toString(), "survey found that 12–18%");
  assert.deepEqual(problems, []);
  await page.close();
});

test("full agreements are confirmed in bulk only after a confirmation", async () => {
  const { page, problems } = await openAdjudicate();
  await page.click('[data-testid="confirm-bulk"]');
  await page.waitForSelector('[data-testid="confirm-dialog"]');
  assert.match(await page.textContent('[data-testid="confirm-dialog"]'), /Confirm all 2 open full agreements as Eve\?/);
  await page.click('[data-testid="confirm-no"]');
  assert.equal(await page.isVisible('[data-testid="confirm-dialog"]'), false);
  assert.deepEqual(await calls(page, "confirm_agreements"), []);
  await page.click('[data-testid="confirm-bulk"]');
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "confirm-yes");
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="bulk-result"]');
  assert.deepEqual(await calls(page, "confirm_agreements"), [{ adjudicator: "Eve" }]);
  assert.match(await page.textContent('[data-testid="bulk-result"]'), /Confirmed 2 full agreements as Eve \(logged as bulk-confirmed\)/);
  assert.ok((await calls(page, "adjudication_page")).length >= 2, "the queue is read again");
  assert.deepEqual(problems, []);
  await page.close();
});

// The bulk step that affirms the promotion checks says how many rows it affirms, in
// whose name, and only runs from the dialog.
test("confirm and affirm is offered in the dialog with the count of rows it affirms", async () => {
  const { page, problems } = await openAdjudicate();
  await page.click('[data-testid="confirm-bulk"]');
  await page.waitForSelector('[data-testid="affirm-count"]');
  assert.equal(await page.textContent('[data-testid="affirm-count"]'), "3");
  assert.match(await page.textContent('[data-testid="confirm-dialog"]'), /accepted rows stay out of the split until their promotion checks are affirmed/);
  assert.deepEqual(await calls(page, "affirm_preview"), [{ adjudicator: "Eve" }]);
  assert.deepEqual(await calls(page, "confirm_and_affirm"), []);
  await page.click('[data-testid="confirm-affirm"]');
  await page.waitForSelector('[data-testid="bulk-result"]');
  assert.deepEqual(await calls(page, "confirm_and_affirm"), [{ adjudicator: "Eve" }]);
  assert.deepEqual(await calls(page, "confirm_agreements"), []);
  assert.match(await page.textContent('[data-testid="bulk-result"]'), /affirmed the promotion checks of 3 accepted rows as Eve/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("filters reach the queue command; hiding names hides them everywhere", async () => {
  const { page, problems } = await openAdjudicate();
  const pairs = () => page.$$eval('[data-testid="filter-pair"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(await pairs(), ["", "Ana+Ben", "Ana+Chidi", "Ben+Chidi"]);
  // The axes offered are those of the queue's rows (numeric and modality here).
  const axes = await page.$$eval('[data-testid="filter-axis"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(axes, ["", "modality", "numeric"]);
  await page.selectOption('[data-testid="filter-source"]', "ExpertQA");
  await page.selectOption('[data-testid="filter-pair"]', "Ana+Chidi");
  // One page per change, filtered by the core; no second, unfiltered read for the menus.
  await page.waitForFunction(() => window.__ipcCalls.filter((c) => c.cmd === "adjudication_page").length >= 3);
  const queries = await calls(page, "adjudication_page");
  assert.equal(queries.length, 3);
  assert.deepEqual(queries.at(-1).query.filter, { axis: null, source: "ExpertQA", pair: "Ana+Chidi", open_only: false });
  assert.deepEqual(await calls(page, "adjudication_queue"), [], "the whole queue is never read");
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="adj-item"]').length === 1);
  assert.equal(await page.getAttribute('[data-testid="adj-item"]', "data-id"), "fx-adj-2");
  assert.equal(await page.textContent('[data-testid="queue-range"]'), "1 row (of 5)");
  // The menus still offer every value of the project, not just the filtered rows'.
  assert.deepEqual(await pairs(), ["", "Ana+Ben", "Ana+Chidi", "Ben+Chidi"]);
  assert.equal(await page.textContent('[data-testid="row-id"]'), "fx-adj-2", "the row shown left the filter: the first match opens");
  await page.keyboard.press("Escape"); // leave the select: shortcuts are quiet in a field
  await page.keyboard.press("h");
  await page.waitForFunction(() => document.querySelector('[data-testid="hide-names"]')?.checked === true);
  await page.waitForFunction(() =>
    window.__ipcCalls.some((c) => c.cmd === "adjudication_row" && c.args.hide_names === true),
  );
  assert.equal(await page.isDisabled('[data-testid="filter-pair"]'), true);
  await page.waitForFunction(() => window.__ipcCalls.filter((c) => c.cmd === "adjudication_page").length >= 4);
  const text = await page.textContent('[data-testid="adj-item"][data-id="fx-adj-2"]');
  assert.doesNotMatch(text, /Ana|Chidi/);
  const last = (await calls(page, "adjudication_page")).at(-1).query.filter;
  assert.deepEqual(last, { axis: null, source: "ExpertQA", pair: null, open_only: false }, "the pair filter is dropped");
  assert.deepEqual(problems, []);
  await page.close();
});

test("the locality audit: a mark needs a reason, the core's refusal is shown, removed rows are listed", async () => {
  const refusal = { code: "invalid_argument", message: "row `fx-adj-7` is in a locked split" };
  const { page, problems } = await openAdjudicate();
  await page.keyboard.press("l");
  await page.waitForSelector('[data-testid="locality-view"]');
  const rows = await page.$$eval('[data-testid="audit-row"]', (els) => els.map((e) => [e.dataset.id, e.dataset.removed]));
  assert.deepEqual(rows, [["fx-adj-5", "false"], ["fx-adj-6", "true"], ["fx-adj-7", "false"]]);
  assert.equal(await page.locator('[data-testid="audit-row"][data-id="fx-adj-5"] [data-testid="audit-warning"]').count(), 2);
  assert.match(await page.textContent('[data-testid="removed-list"]'), /fx-adj-6 changes the population studied/);
  assert.match(await page.textContent('[data-testid="audit-stats"]'), /2 in the benchmark · 1 with locality warnings \(1 not reviewed\) · 1 removed/);
  // A warned row can be kept after review: the core records who (the view's adjudicator).
  await page.click('[data-testid="audit-row"][data-id="fx-adj-5"] [data-testid="keep"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "locality_keep"));
  assert.deepEqual(await calls(page, "locality_keep"), [{ id: "fx-adj-5", by: "Eve", note: null }]);
  // m on the focused (first) row opens the reason; Enter with no reason is refused here.
  await page.keyboard.press("m");
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "reason");
  await page.keyboard.press("Enter");
  assert.match(await page.textContent('[data-testid="reason-required"]'), /A reason is required/);
  await page.keyboard.type("   ");
  await page.click('[data-testid="mark-save"]');
  assert.deepEqual(await calls(page, "mark_nonlocal"), [], "a blank reason never reaches the core");
  await page.fill('[data-testid="reason"]', "names another dam and year");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "mark_nonlocal"));
  assert.deepEqual(await calls(page, "mark_nonlocal"), [{ id: "fx-adj-5", reason: "names another dam and year", by: "Eve" }]);
  await page.waitForFunction(() => !document.querySelector('[data-testid="reason"]'));
  // Unmark a removed row.
  await page.click('[data-testid="audit-row"][data-id="fx-adj-6"] [data-testid="unmark"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "unmark_nonlocal"));
  assert.deepEqual(await calls(page, "unmark_nonlocal"), [{ id: "fx-adj-6" }]);
  await page.screenshot({ path: join(shotsDir, "adjudicate-locality.png") });
  // l goes back to the queue.
  await page.keyboard.press("l");
  await page.waitForSelector('[data-testid="compare"]');
  assert.deepEqual(problems, []);
  await page.close();

  // The core refuses (here: a locked split): the message and code are shown on the row.
  const second = await openAdjudicate({ errors: { mark_nonlocal: refusal } });
  await second.page.keyboard.press("l");
  await second.page.click('[data-testid="audit-row"][data-id="fx-adj-7"] [data-testid="mark-nonlocal"]');
  await second.page.fill('[data-testid="reason"]', "changes the answer target");
  await second.page.click('[data-testid="mark-save"]');
  await second.page.waitForSelector('[data-testid="mark-error"]');
  assert.equal(await second.page.textContent('[data-testid="mark-error"]'), `Not changed. invalid_argument: ${refusal.message}`);
  assert.equal(await second.page.isVisible('[data-testid="reason"]'), true, "the reason stays for another try");
  assert.deepEqual(second.problems, []);
  await second.page.close();
});

test("the funnel shows the status counts per axis, the totals and the rejections by boundary type", async () => {
  const app = await openApp(browser.context, server.url, adjudicateBackend());
  const { page, problems } = app;
  await page.waitForSelector('[data-testid="nav-funnel"]');
  await page.keyboard.press("Alt+6");
  await page.waitForSelector('[data-testid="funnel-table"]');
  const cell = (axis, col) => page.textContent(`[data-testid="funnel-row"][data-axis="${axis}"] [data-col="${col}"]`);
  assert.equal(await cell("numeric", "candidates"), "24");
  assert.equal(await cell("numeric", "qc_blocked"), "1");
  assert.equal(await cell("scope", "locality_removed"), "1");
  assert.equal(await cell("total", "accepted"), "27");
  assert.equal(await cell("total", "double_annotated"), "80");
  assert.equal(await cell("total", "retained"), "—", "no split drafted yet");
  assert.equal(await cell("relation", "evaluation"), "—");
  const axes = await page.$$eval('[data-testid="funnel-row"]', (els) => els.map((e) => e.dataset.axis));
  assert.deepEqual(axes, ["relation", "modality", "scope", "temporal", "numeric", "total"]);
  assert.equal(await page.getAttribute('[data-testid="boundary-row"][data-boundary="raised_claim_supported"]', "data-value"), "3");
  assert.equal(await page.getAttribute('[data-testid="funnel-stage"][data-key="adjudicated"]', "data-value"), "40");
  // The bars are drawn to scale (widths set through the CSSOM, which the CSP allows).
  const ratio = await page.$eval('[data-testid="funnel-stage"][data-key="accepted"] .fill', (el) => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width);
  assert.ok(Math.abs(ratio - 27 / 106) < 0.01, `accepted bar at ${ratio}`);
  await page.screenshot({ path: join(shotsDir, "funnel.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke: the checklist had no keys.
test("keys 1 to 5 answer the checklist: yes, then no, then unanswered", async () => {
  const { page } = await openAdjudicate();
  const answer = (key) =>
    page.evaluate((k) => {
      const yes = document.querySelector(`[data-testid="check-${k}-yes"]`)?.getAttribute("aria-pressed");
      const no = document.querySelector(`[data-testid="check-${k}-no"]`)?.getAttribute("aria-pressed");
      return yes === "true" ? "yes" : no === "true" ? "no" : "unanswered";
    }, key);
  assert.equal(await answer("span_decisive"), "unanswered");
  await page.keyboard.press("1");
  assert.equal(await answer("span_decisive"), "yes");
  await page.keyboard.press("1");
  assert.equal(await answer("span_decisive"), "no");
  await page.keyboard.press("1");
  assert.equal(await answer("span_decisive"), "unanswered");
  await page.keyboard.press("5");
  assert.equal(await answer("no_unrelated_addition"), "yes");
  assert.equal(await answer("span_decisive"), "unanswered");
  await page.close();
});

// Broke: QC said "N warnings for the locality audit" counting unanswered checklist items, while
// the locality audit (which lists `locality_` checks only) said 0.
test("the QC summary counts locality warnings apart from the other warnings", async () => {
  const { page } = await openAdjudicate();
  await page.evaluate(() => {
    const saved = structuredClone(window.__backend.answers.resolve_row);
    saved.qc = saved.qc.filter((q) => q.severity !== "error");
    saved.held_back_by_qc = false;
    window.__backend.byArg.adjudication_row.answers["fx-adj-1"] = saved;
  });
  await page.keyboard.press("]");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-2");
  await page.keyboard.press("[");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  await page.waitForSelector('[data-testid="qc-summary"]');
  const summary = (await page.textContent('[data-testid="qc-summary"]')).replace(/\s+/g, " ").trim();
  assert.equal(summary, "Accepted: passes QC (1 locality warning for the locality audit; 1 other warning).");
  await page.close();
});

// Broke: the funnel (like the other report views) showed the project as it was when the view
// opened; it now reads it again when the project's revision moves.
test("the funnel follows a change made elsewhere", async () => {
  const { page, problems } = await openApp(browser.context, server.url, adjudicateBackend());
  await page.waitForSelector('[data-testid="nav-funnel"]');
  await page.keyboard.press("Alt+6");
  await page.waitForSelector('[data-testid="funnel-table"]');
  const accepted = () => page.textContent('[data-testid="funnel-row"][data-axis="total"] [data-col="accepted"]');
  assert.equal(await accepted(), "27");
  await page.evaluate(() => {
    window.__backend.status.funnel.accepted = 28;
    window.__revision = "3:1";
  });
  await page.waitForFunction(
    () => document.querySelector('[data-testid="funnel-row"][data-axis="total"] [data-col="accepted"]')?.textContent === "28",
    null,
    { timeout: 5000 },
  );
  assert.deepEqual(problems, []);
  await page.close();
});

// Live queue: before, the adjudication queue loaded once, so rows adjudicated from the
// command line or in another window still read as open.
test("a change made elsewhere reaches the queue; the row on screen and an unsaved rationale stay", async () => {
  const { page, problems } = await openAdjudicate();
  await page.fill('[data-testid="rationale"]', "my reasons, not saved yet");
  await page.evaluate(() => {
    const q = window.__backend.answers.adjudication_queue;
    const item = q.items.find((i) => i.id === "fx-adj-3");
    item.adjudicated = true;
    item.final_decision = "accept_force_gap";
    q.counts.full_agreement.open = 1;
    window.__revision = "11:0";
  });
  await page.waitForFunction(() => document.querySelector('[data-testid="adj-item"][data-id="fx-adj-3"]')?.dataset.adjudicated === "true", null, { timeout: 5000 });
  assert.equal(await page.textContent('[data-testid="row-id"]'), "fx-adj-1");
  assert.equal(await page.inputValue('[data-testid="rationale"]'), "my reasons, not saved yet", "a draft is never overwritten");
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke while the view restated the core's rules: a changed rule in the core (here a different
// checklist, an accept that needs only a span, and only edited values asking for a rationale)
// left the view asking the old questions and dimming the old fields.
test("the view follows the rules the core sends with the row, not rules of its own", async () => {
  const rules = {
    needed: { accept_force_gap: ["evidence_span"], reject_not_force_gap: ["boundary_type"], needs_discussion: [] },
    needs_rationale: ["edited"],
    checklist: [
      { key: "span_decisive", question: "the span alone settles it" },
      { key: "no_unrelated_addition", question: "nothing unrelated was added" },
    ],
  };
  const rows = Object.fromEntries(Object.entries(adjRows).map(([id, r]) => [id, { ...r, rules }]));
  const { page, problems } = await openAdjudicate({ byArg: { adjudication_row: { arg: "id", answers: rows } } });
  const questions = await page.$$eval('[data-testid^="check-"][data-testid$="-yes"]', (els) => els.map((e) => e.dataset.testid));
  assert.deepEqual(questions, ["check-span_decisive-yes", "check-no_unrelated_addition-yes"]);
  assert.match(await page.textContent('[data-testid="checklist"]'), /The span alone settles it[\s\S]*Nothing unrelated was added/);
  // Key 2 answers the core's second question; key 3 has no question to answer.
  await page.keyboard.press("2");
  assert.equal(await page.getAttribute('[data-testid="check-no_unrelated_addition-yes"]', "aria-pressed"), "true");
  await page.keyboard.press("3");
  // A's accept needs only the span here: the axis is "not needed".
  await page.keyboard.press("a");
  assert.match(await page.getAttribute('[data-testid="field-row"][data-field="axis"]', "class"), /\bdim\b/);
  assert.doesNotMatch(await page.getAttribute('[data-testid="field-row"][data-field="evidence_span"]', "class"), /\bdim\b/);
  assert.deepEqual(problems, []);
  await page.close();
});

// The queue comes a page at a time (200 items). 450 rows: fx-adj-1 open, the next 249
// adjudicated, the rest open. The rail shows a page and its place; ] and [ walk across pages;
// saving asks the core for the next open row, which is on the second page.
test("the queue is read a page at a time; ] and [ cross pages; saving finds the next open row on a later page", async () => {
  const filler = (n) => {
    const id = `fx-p-${String(n).padStart(3, "0")}`;
    const adjudicated = n < 250;
    return {
      ...adjQueue.items[2],
      id,
      category: "full_agreement",
      source_dataset: n % 2 ? "LFQA" : "ExpertQA",
      adjudicated,
      final_decision: adjudicated ? "accept_force_gap" : null,
    };
  };
  const items = [adjQueue.items[0], ...Array.from({ length: 449 }, (_, k) => filler(k + 1))];
  const queue = {
    counts: {
      decision_disagreement: { total: 1, open: 1 },
      needs_discussion: { total: 0, open: 0 },
      field_disagreement: { total: 0, open: 0 },
      full_agreement: { total: 449, open: 200 },
    },
    items,
  };
  const rowOf = (id) => {
    const r = structuredClone(adjRows["fx-adj-2"]);
    r.candidate.id = id;
    r.category = "full_agreement";
    return r;
  };
  const rows = { ...adjRows, ...Object.fromEntries(items.slice(1).map((i) => [i.id, rowOf(i.id)])) };
  const base = adjudicateBackend();
  const { page, problems } = await openAdjudicate({
    answers: { ...base.answers, adjudication_queue: queue },
    byArg: { adjudication_row: { arg: "id", answers: rows } },
  });
  const range = () => page.textContent('[data-testid="queue-range"]');
  const shown = () => page.$$eval('[data-testid="adj-item"]', (els) => els.map((e) => e.dataset.id));
  const rowIs = (id) => page.waitForFunction((x) => document.querySelector('[data-testid="row-id"]')?.textContent === x, id);
  assert.equal((await shown()).length, 200);
  assert.equal(await range(), "1–200 of 450");
  assert.equal(await page.isDisabled('[data-testid="queue-earlier"]'), true);
  const [first] = await calls(page, "adjudication_page");
  assert.equal(first.query.limit, 200);
  assert.equal(first.query.open_after, "", "the first open row is looked for from the top");

  // ] on the last row of the page opens the first row of the next page, [ goes back.
  await page.click('[data-testid="adj-item"][data-id="fx-p-199"]');
  await rowIs("fx-p-199");
  await page.keyboard.press("]");
  await rowIs("fx-p-200");
  assert.equal(await range(), "201–400 of 450");
  assert.equal((await shown())[0], "fx-p-200");
  assert.equal(await page.getAttribute('[data-testid="adj-item"][data-id="fx-p-200"]', "aria-current"), "true");
  await page.keyboard.press("[");
  await rowIs("fx-p-199");
  assert.equal(await range(), "1–200 of 450");
  // The pager's buttons turn the page; the row on screen stays.
  await page.click('[data-testid="queue-later"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-range"]')?.textContent === "201–400 of 450");
  await page.click('[data-testid="queue-later"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-range"]')?.textContent === "401–450 of 450");
  assert.equal(await page.isDisabled('[data-testid="queue-later"]'), true);
  assert.equal(await page.textContent('[data-testid="row-id"]'), "fx-p-199");

  // Save fx-adj-1 (on the first page): the next open row is fx-p-250, on the second page.
  await page.click('[data-testid="queue-earlier"]');
  await page.click('[data-testid="queue-earlier"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-range"]')?.textContent === "1–200 of 450");
  await page.click('[data-testid="adj-item"][data-id="fx-adj-1"]');
  await rowIs("fx-adj-1");
  await page.keyboard.press("a");
  for (const key of ["a", "b", "a", "b"]) {
    await page.keyboard.press("j");
    await page.keyboard.press(key);
  }
  await page.keyboard.press("Control+Enter");
  await rowIs("fx-p-250");
  assert.equal(await page.textContent('[data-testid="save-advanced"]'), "Saved fx-adj-1 (held back by QC). Next open row: fx-p-250.");
  assert.equal(await range(), "201–400 of 450");
  assert.equal(await page.getAttribute('[data-testid="adj-item"][data-id="fx-p-250"]', "aria-current"), "true");
  const asked = (await calls(page, "adjudication_page")).map((c) => c.query.open_after);
  assert.ok(asked.includes("fx-adj-1"), "the core was asked for the next open row after the saved one");
  assert.deepEqual(problems, []);
  await page.close();
});

// (stale status text) "Confirmed 2 full agreements as Eve" stayed above the queue after
// the next row was saved, when the queue it described had moved on.
test("a bulk note does not outlive the next save", async () => {
  const { page, problems } = await openAdjudicate();
  await page.click('[data-testid="confirm-bulk"]');
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === "confirm-yes");
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="bulk-result"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  await page.keyboard.press("a");
  for (const key of ["a", "b", "a", "b"]) {
    await page.keyboard.press("j");
    await page.keyboard.press(key);
  }
  await page.click('[data-testid="check-span_decisive-yes"]');
  await page.keyboard.press("Control+Enter");
  await page.waitForSelector('[data-testid="save-advanced"]');
  assert.equal(await page.isVisible('[data-testid="bulk-result"]'), false, "the bulk note went with the save");
  assert.deepEqual(problems, []);
  await page.close();
});

test("an adjudicated row is reopened for its annotators with a reason, as the view's adjudicator", async () => {
  const { page, problems } = await openAdjudicate();
  await page.evaluate(() => {
    window.__backend.byArg.adjudication_row.answers["fx-adj-1"] = window.__backend.answers.resolve_row;
  });
  await page.keyboard.press("]");
  await page.keyboard.press("[");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-adj-1");
  await page.waitForSelector('[data-testid="reopen-start"]');
  await page.click('[data-testid="reopen-start"]');
  await page.fill('[data-testid="reopen-reason"]', "Ana wants to look at the span again");
  await page.click('[data-testid="reopen-confirm"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "adjudication_reopen"));
  assert.deepEqual(await calls(page, "adjudication_reopen"), [{ id: "fx-adj-1", adjudicator: "Eve", reason: "Ana wants to look at the span again" }]);
  assert.deepEqual(problems, []);
  await page.close();
});
