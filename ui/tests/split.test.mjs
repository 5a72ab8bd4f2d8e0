// The split view in headless Chromium with mocked IPC: the parameter form (what a draft sends,
// what is refused before anything is sent), the preview tables, the stale-draft warning, the lock
// and its confirmation, export with progress and the files' hashes, and verify.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { backend } from "./support/fixtures.mjs";
import {
  draftSplit,
  EXPORT_FILES,
  exportReport,
  lockedSplit,
  REMOVAL_REASON,
  splitStatus,
  staleSplit,
  verifyMismatch,
  verifyReport,
} from "./support/splitFixtures.mjs";

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
const rowText = (page, table, axis) =>
  page.$eval(`[data-testid="${table}"] tr[data-axis="${axis}"]`, (tr) => tr.innerText.replace(/\s+/g, " ").trim());

/**
 * Opens the app, puts a stateful split backend behind the split commands, and goes to the split
 * view with Alt+7. `split` is what split_show answers first; a draft answers `drafted` (with the
 * parameters sent), a lock turns the split locked. Export sends its progress on the channel one
 * file at a time and holds after `holdAfter` files until `window.__releaseExport()`.
 */
const PAPER_DEFAULTS = { caps: {}, per_axis: 40, seed: 1, strata: ["source_dataset"] };

async function openSplit({ split = draftSplit, drafted = draftSplit, errors = {}, holdAfter = null, defaults = PAPER_DEFAULTS } = {}) {
  const app = await openApp(browser.context, server.url, backend({ status: splitStatus }));
  await app.page.waitForSelector('[data-testid="nav-split"]');
  await app.page.evaluate(
    ({ split, drafted, errors, holdAfter, files, lockedAt, exported, verified, defaults }) => {
      const base = window.__TAURI_INTERNALS__.invoke;
      let current = split;
      let release;
      const held = new Promise((ok) => (release = ok));
      window.__releaseExport = () => release();
      const fail = (cmd) => {
        if (errors[cmd]) throw errors[cmd];
      };
      window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
        if (!cmd.startsWith("split_")) return base(cmd, args);
        const { onProgress, ...plain } = args ?? {};
        window.__ipcCalls.push({ cmd, args: structuredClone(plain) });
        fail(cmd);
        if (cmd === "split_show") return structuredClone(current);
        if (cmd === "split_defaults") return structuredClone(defaults);
        if (cmd === "split_draft") {
          const version = current?.status === "locked" ? current.version + 1 : 1;
          current = { ...drafted, version, status: "draft", locked_at: null, params: { ...args.params, strata: ["source_dataset"] } };
          return structuredClone(current);
        }
        if (cmd === "split_lock") {
          current = { ...current, status: "locked", locked_at: lockedAt };
          return structuredClone(current);
        }
        // A blank folder is refused by the shell (src-tauri/src/split.rs), in its words.
        const blank = (what) => {
          if (!String(args?.dir ?? "").trim()) throw { code: "invalid_argument", message: `type the folder ${what}` };
        };
        if (cmd === "split_export") {
          blank("to export the split to");
          if (!String(onProgress?.toJSON?.()).startsWith("__CHANNEL__:")) throw "onProgress is not a channel";
          for (let i = 1; i <= files.length; i++) {
            await new Promise((ok) => setTimeout(ok, 5));
            onProgress.onmessage({ done: i, total: files.length, file: files[i - 1] });
            if (i === holdAfter) await held;
          }
          fail("split_export_after");
          return { ...exported, dir: args.dir };
        }
        if (cmd === "split_verify") blank("to verify");
        if (cmd === "split_verify") return { ...verified, dir: args.dir };
        throw `command ${cmd} not found`;
      };
    },
    { split, drafted, errors, holdAfter, files: EXPORT_FILES, lockedAt: lockedSplit.locked_at, exported: exportReport(""), verified: verifyReport(""), defaults },
  );
  await app.page.keyboard.press("Alt+7");
  await app.page.waitForSelector('[data-testid="split-head"], [data-testid="split-empty"], [data-testid="split-load-error"]');
  return app;
}

/** Everything on screen must be words or numbers: no NaN, null, undefined values or Infinity. */
async function assertNoRawValues(page) {
  const body = await page.innerText("body");
  assert.doesNotMatch(body, /\bNaN\b|\bnull\b|\bundefined\b|Infinity|\[object/, body);
}

async function fill(page, testid, value) {
  await page.fill(`[data-testid="${testid}"]`, value);
}

test("before any split the view says what can be drafted, and a draft sends the typed parameters", async () => {
  // Defaults unlike the paper's: the form shows what the core sends, not numbers of its own
  // (broke while the view restated 40 and 1).
  const { page, problems } = await openSplit({ split: null, defaults: { ...PAPER_DEFAULTS, per_axis: 25, seed: 7 } });
  assert.equal(await page.getAttribute('[data-testid="nav-split"]', "aria-selected"), "true");
  assert.match(await text(page, "split-empty"), /No split yet 50 accepted rows can be drafted/);
  // The form starts at the core's defaults, each cap beside the axis's accepted rows.
  assert.equal(await page.inputValue('[data-testid="per-axis"]'), "25");
  assert.equal(await page.inputValue('[data-testid="seed"]'), "7");
  assert.equal(await page.inputValue('[data-testid="cap-relation"]'), "");
  assert.equal(await page.innerText("#cap-relation-note"), "of 15 accepted");
  assert.equal(await page.innerText('[data-testid="draft"]'), "Draft");

  await fill(page, "cap-relation", "12");
  await fill(page, "cap-temporal", " 9 ");
  await fill(page, "per-axis", "8");
  assert.equal(await page.innerText("#cap-temporal-note"), "of 6 accepted · no effect");
  await page.click('[data-testid="draft"]');
  await page.waitForSelector('[data-testid="split-head"]');
  assert.deepEqual(await calls(page, "split_draft"), [{ params: { caps: { relation: 12, temporal: 9 }, per_axis: 8, seed: 7 } }]);
  assert.match(await text(page, "split-head"), /^Split v1 draft drafted 2025-03-04 09:15 UTC/);
  assert.match(await text(page, "split-params"), /caps relation 12, temporal 9 · 8 evaluation rows per axis · seed 7 · stratified by source dataset/);
  assert.equal(await page.innerText('[data-testid="draft"]'), "Draft again");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a cap that is not a number, a per-axis target of 0 or a bad seed is refused before anything is sent", async () => {
  const { page, problems } = await openSplit({ split: null });
  await fill(page, "cap-scope", "twelve");
  await fill(page, "cap-numeric", "0");
  await fill(page, "per-axis", "0");
  await fill(page, "seed", "-3");
  await page.click('[data-testid="draft"]');
  await page.waitForSelector('[data-testid="error-scope"]');
  assert.equal(await text(page, "error-scope"), "The scope cap must be a whole number of rows, at least 1 (leave it blank for no cap).");
  assert.equal(await text(page, "error-numeric"), "The numeric cap must be a whole number of rows, at least 1 (leave it blank for no cap).");
  assert.equal(await text(page, "error-per_axis"), "Evaluation rows per axis must be a whole number, at least 1.");
  assert.match(await text(page, "error-seed"), /^The seed must be a whole number from 0 to/);
  assert.equal(await page.getAttribute('[data-testid="cap-scope"]', "aria-invalid"), "true");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "cap-scope", "the first wrong field has the focus");
  // Decimals are refused too.
  await fill(page, "per-axis", "2.5");
  assert.equal(await text(page, "error-per_axis"), "Evaluation rows per axis must be a whole number, at least 1.");
  assert.deepEqual(await calls(page, "split_draft"), [], "nothing reached the core");

  // Mended fields lose their message as they are typed; then the draft goes.
  await fill(page, "cap-scope", "");
  await fill(page, "cap-numeric", "10");
  await fill(page, "per-axis", "8");
  await fill(page, "seed", "7");
  assert.equal(await page.isVisible('[data-testid="error-scope"]'), false);
  assert.equal(await page.isVisible('[data-testid="error-per_axis"]'), false);
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="split-head"]');
  assert.deepEqual(await calls(page, "split_draft"), [{ params: { caps: { numeric: 10 }, per_axis: 8, seed: 7 } }]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the core's refusal of a draft is shown as it says it", async () => {
  const refusal = {
    code: "invalid_argument",
    message: "no accepted rows to draft a split from: adjudicate rows as accept_force_gap and let them pass QC first",
  };
  const { page } = await openSplit({ split: null, errors: { split_draft: refusal } });
  await page.click('[data-testid="draft"]');
  await page.waitForSelector('[data-testid="draft-error"]');
  assert.equal(await text(page, "draft-error"), `invalid_argument: ${refusal.message}`);
  await page.close();
});

test("the preview shows the stage counts, the per-axis accounting, axis by severity and by source, and the rows left out", async () => {
  const { page, problems } = await openSplit();
  assert.equal(
    await text(page, "stage-chain"),
    "106 candidates → 106 double-annotated → 66 adjudicated → 51 accepted → 48 after the cap → 38 selected → 37 evaluation",
  );
  assert.equal(await text(page, "stage-exits"), "rejected 15 · capped 3 · locality-removed 1 · retained 47");

  // Table 1: accepted, capped, locality-removed, retained, evaluation (7 of the 8 asked for).
  assert.equal(await rowText(page, "table-axis", "relation"), "Relation 15 3 0 12 8");
  assert.equal(await rowText(page, "table-axis", "modality"), "Modality 9 0 1 8 7 of 8");
  assert.equal(await rowText(page, "table-axis", "temporal"), "Temporal 6 0 0 6 6 of 8");
  assert.equal(await rowText(page, "table-axis", "total"), "Total 51 3 1 47 37");

  // Axis x severity: evaluation 1/2/3 then retained 1/2/3, with totals.
  assert.equal(await rowText(page, "table-severity", "relation"), "Relation 2 4 2 3 6 3");
  assert.equal(await rowText(page, "table-severity", "total"), "Total 10 16 11 13 21 13");

  // Axis x source: evaluation rows, with the evaluation and retained totals per source.
  const head = await page.$$eval('[data-testid="table-source"] thead th', (ths) => ths.map((th) => th.textContent.trim()));
  assert.deepEqual(head, ["Axis", "AttributedQA", "ExpertQA", "GaRAGe", "LFQA", "Total"]);
  assert.equal(await rowText(page, "table-source", "relation"), "Relation 2 3 2 1 8");
  assert.equal(await rowText(page, "table-source", "eval"), "Evaluation 9 11 10 7 37");
  assert.equal(await rowText(page, "table-source", "retained"), "Retained 12 14 12 9 47");

  // Table 4 and the rows left out, with why.
  assert.match(await text(page, "table-stages"), /Capped \(surplus on over-represented axes\) 3 Selected for evaluation 38 Removed by the locality audit 1 Retained 47 Evaluation 37/);
  const removed = await page.$eval('[data-testid="locality-removed-row"]', (tr) => tr.innerText.replace(/\s+/g, " ").trim());
  assert.equal(removed, `fb-0044 Modality GaRAGe yes, not replaced ${REMOVAL_REASON}`);
  const capped = await page.$$eval('[data-testid="capped-row"]', (trs) => trs.map((tr) => tr.dataset.id));
  assert.deepEqual(capped, ["fb-0007", "fb-0031", "fb-0058"]);
  assert.match(await text(page, "capped"), /relation capped at 12 rows \(15 accepted\); stratified by source, stable hash/);
  assert.equal(await page.isVisible('[data-testid="split-stale"]'), false);
  assert.equal(await page.isVisible('[data-testid="export-card"]'), false, "a draft cannot be exported");
  await assertNoRawValues(page);
  assert.deepEqual(problems, [], "no console errors and no CSP violations");
  await page.close();
});

test("an axis with more evaluation rows than asked for says a group brought them", async () => {
  const { page } = await openSplit({ split: { ...draftSplit, params: { ...draftSplit.params, per_axis: 7 } } });
  assert.equal(await rowText(page, "table-axis", "relation"), "Relation 15 3 0 12 8 +1 with its group");
  assert.equal(await rowText(page, "table-axis", "modality"), "Modality 9 0 1 8 7");
  assert.equal(await rowText(page, "table-axis", "temporal"), "Temporal 6 0 0 6 6 of 7");
  await page.close();
});

test("a stale draft is flagged and cannot be locked until drafted again", async () => {
  const { page } = await openSplit({ split: staleSplit });
  assert.match(await text(page, "split-stale"), /^2 rows of this draft are no longer accepted since it was drafted \(fb-0012, fb-0019\).*Draft again\.$/);
  assert.equal(await page.isDisabled('[data-testid="lock"]'), true);
  assert.match(await text(page, "lock-stale"), /Draft again first/);
  await page.click('[data-testid="draft"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="split-stale"]'));
  assert.equal(await page.isDisabled('[data-testid="lock"]'), false);
  await page.close();
});

test("locking asks first and says what locking means; cancel and Escape lock nothing", async () => {
  const { page, problems } = await openSplit();
  assert.equal(await page.isVisible('[data-testid="lock-dialog"]'), false);
  await page.click('[data-testid="lock"]');
  await page.waitForSelector('[data-testid="lock-dialog"]');
  const said = await text(page, "lock-dialog");
  assert.match(said, /^Lock split v1\?/);
  // Broke: locking gave no warning that rows still awaited adjudication (106 double-annotated, 66 adjudicated).
  assert.match(said, /40 double-annotated rows still await adjudication: they are not in this split/);
  assert.match(said, /Its 51 rows and every row adjudicated so far are frozen: their annotations, final labels, QC results, locality marks and annotators can no longer change/);
  assert.match(said, /37 evaluation and 47 retained rows are fixed as they are now, with the 1 locality removal written into the split/);
  assert.match(said, /You can draft a new version later/);
  assert.match(said, /The export will carry this version's manifest/);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "lock-confirm");

  await page.click('[data-testid="lock-cancel"]');
  assert.equal(await page.isVisible('[data-testid="lock-dialog"]'), false);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "lock", "the focus goes back to Lock");
  await page.click('[data-testid="lock"]');
  await page.waitForSelector('[data-testid="lock-dialog"]');
  await page.keyboard.press("Escape");
  assert.equal(await page.isVisible('[data-testid="lock-dialog"]'), false);
  assert.deepEqual(await calls(page, "split_lock"), [], "nothing is locked without the confirmation");

  await page.click('[data-testid="lock"]');
  await page.click('[data-testid="lock-confirm"]');
  await page.waitForSelector('[data-testid="export-card"]');
  assert.equal((await calls(page, "split_lock")).length, 1);
  assert.equal(await text(page, "split-status"), "locked");
  assert.match(await text(page, "split-head"), /locked 2025-03-04 09:20 UTC/);
  assert.equal(await page.isVisible('[data-testid="lock-card"]'), false);
  assert.equal(await page.inputValue('[data-testid="export-dir"]'), "/tmp/ui-fixture-split-v1");
  assert.equal(await page.innerText('[data-testid="draft"]'), "Draft v2");
  // Export comes first now; drafting again is below it.
  assert.match(await text(page, "split-form-card"), /^Draft a new version/);
  assert.equal(await page.$eval('[data-testid="export-card"]', (e) => e.compareDocumentPosition(document.querySelector('[data-testid="split-form-card"]')) & Node.DOCUMENT_POSITION_FOLLOWING), 4);
  assert.deepEqual(problems, []);
  await page.close();
});

test("export shows its progress file by file, then every file with its sha256; verify confirms", async () => {
  const { page, problems } = await openSplit({ split: lockedSplit, holdAfter: 4 });
  await fill(page, "export-dir", "  /data/forcebench/split-v1 ");
  await page.click('[data-testid="export"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="export-progress"]')?.textContent.includes("4 of 9"));
  assert.equal(await text(page, "export-progress"), "4 of 9 files · annotations.jsonl");
  assert.equal(await page.$eval('[data-testid="export-progress"] progress', (p) => [p.value, p.max].join("/")), "4/9");
  assert.equal(await page.isDisabled('[data-testid="export"]'), true, "one export at a time");
  assert.equal(await page.innerText('[data-testid="export"]'), "Exporting…");

  await page.evaluate(() => window.__releaseExport());
  await page.waitForSelector('[data-testid="export-files"]');
  assert.deepEqual(await calls(page, "split_export"), [{ dir: "/data/forcebench/split-v1" }]);
  assert.equal(await page.isVisible('[data-testid="export-progress"]'), false);
  assert.equal(await text(page, "export-result"), "Exported split v1 to /data/forcebench/split-v1.");
  const files = await page.$$eval('[data-testid="export-files"] tbody tr', (trs) =>
    trs.map((tr) => [tr.dataset.file, tr.dataset.sha256, tr.querySelector(".hash").textContent, tr.querySelector(".hash").title]),
  );
  assert.deepEqual(files.map(([f]) => f), [...EXPORT_FILES].sort());
  const want = exportReport("/data/forcebench/split-v1");
  // Each file's hash: its first 16 digits on screen, all 64 in the title.
  for (const [f, hash, shown, title] of files) {
    assert.equal(hash, want.files[f], f);
    assert.equal(title, hash, f);
    assert.equal(shown, `${hash.slice(0, 16)}…`, f);
  }
  assert.equal(await page.getAttribute('[data-testid="content-sha"]', "title"), want.content_sha256);

  await page.click('[data-testid="verify"]');
  await page.waitForSelector('[data-testid="verify-result"]');
  assert.deepEqual(await calls(page, "split_verify"), [{ dir: "/data/forcebench/split-v1" }]);
  assert.equal(
    await text(page, "verify-result"),
    "Verified: 9 files match their sha256; 37 evaluation and 47 retained rows agree with the manifest.",
  );
  assert.deepEqual(problems, []);
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "split-exported.png") });
  await page.close();
});

test("a verify failure names the file that does not match", async () => {
  const dir = "/tmp/ui-fixture-split-v1";
  const { page } = await openSplit({ split: lockedSplit, errors: { split_verify: verifyMismatch(dir, "eval.csv") } });
  await page.click('[data-testid="verify"]');
  await page.waitForSelector('[data-testid="verify-error"]');
  const said = await text(page, "verify-error");
  assert.match(said, /^Verification failed\. \/tmp\/ui-fixture-split-v1\/eval\.csv: sha256 differs from the manifest's \(expected [0-9a-f]{64}\)$/);
  assert.doesNotMatch(said, /imported/, "the import wording of the core's heading is left out");
  assert.equal(await page.getAttribute('[data-testid="verify-error"]', "role"), "alert");
  await page.close();
});

test("an export that fails says why, and an empty folder shows the shell's own refusal", async () => {
  const failure = { code: "io", message: "/readonly/split: Permission denied (os error 13)" };
  const { page } = await openSplit({ split: lockedSplit, errors: { split_export_after: failure } });
  await fill(page, "export-dir", "   ");
  await page.click('[data-testid="export"]');
  await page.waitForSelector('[data-testid="export-error"]');
  assert.equal(await text(page, "export-error"), "invalid_argument: type the folder to export the split to");
  assert.deepEqual(await calls(page, "split_export"), [{ dir: "" }], "the window sends it: the rule is the shell's");
  assert.equal(await page.isVisible('[data-testid="export-progress"]'), false, "nothing started");
  await page.click('[data-testid="verify"]');
  await page.waitForSelector('[data-testid="verify-error"]');
  assert.equal(await text(page, "verify-error"), "Verification failed. type the folder to verify");
  assert.deepEqual(await calls(page, "split_verify"), [{ dir: "" }]);
  await fill(page, "export-dir", "/readonly/split");
  await page.click('[data-testid="export"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="export-error"]')?.textContent.includes("Permission"));
  assert.equal(await text(page, "export-error"), `io: ${failure.message}`);
  assert.equal(await page.isVisible('[data-testid="export-files"]'), false);
  await page.close();
});

test("screenshot of the split view, for review", async () => {
  const { page } = await openSplit();
  await page.click('[data-testid="lock"]');
  await page.waitForSelector('[data-testid="lock-dialog"]');
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "split.png") });
  await page.$eval(".report-body", (el) => el.scrollTo(0, el.scrollHeight));
  await page.screenshot({ path: join(shotsDir, "split-bottom.png") });
  await page.close();
});

// Broke: "in bulk for 35 (Eve: 0 / 35)" read as a score out of 35: each adjudicator's counts are
// now said in words.
test("the promotion record says per adjudicator how many rows were affirmed one by one and in bulk", async () => {
  const promotion = { one_by_one: 3, in_bulk: 35, by: { Eve: [0, 35], Lee: [3, 0] }, held_back: [] };
  const { page, problems } = await openSplit({ split: { ...draftSplit, promotion } });
  await page.waitForSelector('[data-testid="split-promotion"]');
  const said = (await page.textContent('[data-testid="split-promotion"]')).replace(/\s+/g, " ").trim();
  assert.match(said, /one by one for 3 rows, in bulk for 35\. By adjudicator: Eve, 0 one by one and 35 in bulk; Lee, 3 one by one and 0 in bulk\./);
  assert.doesNotMatch(said, /\d+ \/ \d+/);
  assert.deepEqual(problems, []);
  await page.close();
});
