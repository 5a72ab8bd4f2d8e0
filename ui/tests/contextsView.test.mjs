// The contexts view (screening and drafting before candidacy) in headless Chromium with mocked
// IPC: keys move, keep and drop with a reason picked by number; a step that changes a saved
// decision or cannot be undone waits for its button and a stray key changes nothing; a draft's
// field is saved as it is left, and typed text is never dropped without asking (another row, the
// view switched); a choice list ignores letters; counts per reason and source, each suggestion's
// record, and a model run with progress and Cancel; the core's refusal shown as it came.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { backend } from "./support/fixtures.mjs";

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

const context = (id, stage, over = {}) => ({
  id,
  group_id: null,
  source_dataset: "ExpertQA",
  source_id: `ex-${id}`,
  context: `Question about ${id}?`,
  passage: `The passage of ${id} may say something, the authors said.`,
  stage,
  screening: null,
  draft_version: null,
  excluded_for: null,
  ...over,
});

const kept = { decision: "keep", reason: null, note: null, by: "the lead", at: "2026-11-27T00:00:00Z" };
const fields = { evidence_span: "may say", calibrated_claim: "It may say something.", raised_claim: "It says something.", repair: null, rationale: null, axis: "modality", severity: "2" };
const drafted = {
  context_id: "c2", version: 3, origin: "model", author: "drafter-1", run: "run-a", fields, created_at: "2026-11-27T00:00:00Z",
  stage: "drafted", excluded_for: null,
  problems: [{ file: "draft c2", line: null, field: "repair", message: "an example problem" }],
};
const counts = {
  imported: 4, unscreened: 1, dropped: 1, kept: 2, awaiting_draft: 1, drafted: 1, pending: 1, excluded: 0, promoted: 0,
  dropped_by_reason: { no_visible_boundary: 0, passage_unavailable: 1, needs_outside_knowledge: 0, changes_entity_or_target: 0, ordinary_addition: 0 },
  excluded_by_reason: { no_visible_boundary: 0, passage_unavailable: 0, needs_outside_knowledge: 0, changes_entity_or_target: 0, ordinary_addition: 0 },
  by_source: { ExpertQA: { imported: 3, kept: 2, dropped: 1, drafted: 1, excluded: 0, promoted: 0 }, LFQA: { imported: 1, kept: 0, dropped: 0, drafted: 0, excluded: 0, promoted: 0 } },
};
const sha = "c0ffee".repeat(10) + "abcd";
const records = [
  { ...drafted, version: 1, origin: "model", author: "drafter-1", run: "run-a", asked: { model: "drafter-1", base_url: "http://127.0.0.1:9/v1", prompt_source: "shipped:drafting", prompt_sha256: sha, sent_at: "2026-11-27T00:00:01Z", answered_at: "2026-11-27T00:00:02Z", http_status: 200, raw_response: '{"choices":[{"message":{"content":"RAW ANSWER"}}]}', content: "RAW ANSWER" } },
  { ...drafted, version: 3, origin: "template_edit", author: "the lead", run: null, asked: null },
];

const answers = (over = {}) => ({
  contexts_list: [
    context("c1", "unscreened"),
    context("c2", "drafted", { draft_version: 3, screening: kept }),
    context("c3", "dropped", { screening: { ...kept, decision: "drop", reason: "passage_unavailable" } }),
    context("c4", "kept", { screening: kept, source_dataset: "LFQA" }),
  ],
  draft_list: [drafted],
  contexts_counts: counts,
  draft_records: records,
  contexts_screen: { context: context("c1", "kept"), changed: true },
  draft_set: { draft: drafted, changed: true },
  draft_promote: { promoted: ["c2"], already_candidates: [] },
  draft_exclude: drafted,
  draft_prompt: "You are helping build a benchmark (the shipped prompt).",
  ...over,
});

const calls = (page, cmd) => page.evaluate((c) => window.__ipcCalls.filter((x) => x.cmd === c).map((x) => x.args), cmd);
const row = (id) => `[data-testid="context-row"][data-id="${id}"]`;
const field = (f) => `[data-testid="draft-field"][data-field="${f}"]`;

async function open(over = {}, errors = {}, more = {}) {
  const app = await openApp(browser.context, server.url, backend({ answers: answers(over), errors, ...more }));
  await app.page.waitForSelector('[data-testid="nav-contexts"]');
  await app.page.keyboard.press("Alt+0");
  await app.page.waitForSelector('[data-testid="context-row"]');
  return app;
}

test("keys keep and drop with a numbered reason; a key typed in the note stays there", async () => {
  const { page, problems } = await open();
  const stages = await page.$$eval('[data-testid="context-row"]', (els) => els.map((e) => `${e.dataset.id}:${e.dataset.stage}`));
  assert.deepEqual(stages, ["c1:unscreened", "c2:drafted", "c3:dropped", "c4:kept"]);
  await page.keyboard.press("k");
  await page.waitForSelector('[data-testid="contexts-done"]');
  assert.deepEqual(await calls(page, "contexts_screen"), [{ id: "c1", keep: true, reason: null, note: null, by: "the lead" }]);
  await page.keyboard.press("d");
  await page.waitForSelector('[data-testid="reason-picker"][data-for="drop"]');
  await page.keyboard.press("2");
  await page.waitForFunction(() => window.__ipcCalls.filter((x) => x.cmd === "contexts_screen").length === 2);
  assert.deepEqual((await calls(page, "contexts_screen"))[1], { id: "c1", keep: false, reason: "passage_unavailable", note: null, by: "the lead" });
  // Typed into the note, "k" is a letter, not a keep.
  await page.click('[data-testid="note"]');
  await page.keyboard.type("k");
  assert.equal(await page.inputValue('[data-testid="note"]'), "k");
  assert.equal((await calls(page, "contexts_screen")).length, 2);
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke before: p promoted at once, x then a number excluded at once, and d then a number
// dropped a kept context: one or two stray keys changed a saved decision for good.
test("promotion, exclusion and a changed screening wait for their button; stray keys change nothing", async () => {
  const { page, problems } = await open();
  await page.click(row("c2"));
  await page.waitForSelector('[data-testid="draft-form"]');
  await page.keyboard.press("p");
  await page.waitForSelector('[data-testid="confirm"][data-kind="promote"]');
  assert.match(await page.textContent('[data-testid="confirm-question"]'), /Promote c2 into the candidate pool\? 1 draft/);
  for (const k of ["k", "d", "x", "1", "j", "p"]) await page.keyboard.press(k);
  assert.deepEqual(await calls(page, "draft_promote"), []);
  assert.deepEqual(await calls(page, "contexts_screen"), []);
  assert.equal(await page.getAttribute('[data-testid="context-row"].on', "data-id"), "c2", "no key moved the row");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__ipcCalls.some((x) => x.cmd === "draft_promote"));
  assert.deepEqual(await calls(page, "draft_promote"), [{ ids: ["c2"], all: false, by: "the lead" }]);

  await page.keyboard.press("x");
  await page.keyboard.press("5");
  await page.waitForSelector('[data-testid="confirm"][data-kind="exclude"]');
  assert.deepEqual(await calls(page, "draft_exclude"), []);
  await page.click('[data-testid="confirm-yes"]');
  await page.waitForFunction(() => window.__ipcCalls.some((x) => x.cmd === "draft_exclude"));
  assert.deepEqual(await calls(page, "draft_exclude"), [{ id: "c2", reason: "ordinary_addition", note: null, by: "the lead" }]);

  // c4 is kept: dropping it changes a saved decision, so it asks; Escape leaves it kept.
  await page.click(row("c4"));
  await page.keyboard.press("d");
  await page.keyboard.press("1");
  await page.waitForSelector('[data-testid="confirm"][data-kind="screen"]');
  assert.match(await page.textContent('[data-testid="confirm-question"]'), /c4 is kept\. Drop it instead \(No visible boundary\)\?/);
  await page.keyboard.press("Escape");
  assert.equal(await page.$('[data-testid="confirm"]'), null);
  assert.deepEqual(await calls(page, "contexts_screen"), []);
  // Keeping the dropped c3 asks too.
  await page.click(row("c3"));
  await page.keyboard.press("k");
  await page.waitForSelector('[data-testid="confirm"][data-kind="screen"]');
  assert.deepEqual(await calls(page, "contexts_screen"), []);
  await page.click('[data-testid="confirm-yes"]');
  await page.waitForFunction(() => window.__ipcCalls.some((x) => x.cmd === "contexts_screen"));
  assert.deepEqual(await calls(page, "contexts_screen"), [{ id: "c3", keep: true, reason: null, note: null, by: "the lead" }]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("promoting every waiting draft shows the count first, and the problems promotion would refuse", async () => {
  const { page, problems } = await open();
  await page.keyboard.press("Shift+P");
  await page.waitForSelector('[data-testid="confirm"][data-kind="promote-all"]');
  assert.match(await page.textContent('[data-testid="confirm-question"]'), /1 draft, 1 of them with problems listed/);
  assert.equal((await page.textContent('[data-testid="confirm-yes"]')).trim(), "Promote 1");
  assert.deepEqual(await calls(page, "draft_promote"), []);
  await page.click('[data-testid="confirm-yes"]');
  await page.waitForSelector('[data-testid="contexts-done"]');
  assert.deepEqual(await calls(page, "draft_promote"), [{ ids: [], all: true, by: "the lead" }]);
  assert.equal(await page.textContent('[data-testid="contexts-done"]'), "1 draft promoted into the candidate pool: c2");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a field is saved as it is left; the axis list ignores letters and arrows", async () => {
  const { page, problems } = await open();
  await page.click(row("c2"));
  await page.waitForSelector('[data-testid="draft-form"]');
  assert.equal(await page.inputValue(field("axis")), "modality");
  assert.match(await page.textContent('[data-testid="draft-problems"]'), /repair: an example problem/);
  await page.fill(field("repair"), "It may say something, they said.");
  assert.equal(await page.$$eval('[data-testid="unsaved-mark"]', (e) => e.length), 1);
  await page.click('[data-testid="context-passage"]');
  await page.waitForFunction(() => window.__ipcCalls.some((x) => x.cmd === "draft_set"));
  assert.deepEqual(await calls(page, "draft_set"), [{ id: "c2", field: "repair", value: "It may say something, they said.", by: "the lead" }]);
  // A stray letter or arrow on the closed axis list does not change the saved axis.
  await page.focus(field("axis"));
  for (const k of ["s", "r", "ArrowDown", "n"]) await page.keyboard.press(k);
  assert.equal(await page.inputValue(field("axis")), "modality");
  assert.equal((await calls(page, "draft_set")).length, 1);
  await page.selectOption(field("axis"), "scope");
  await page.waitForFunction(() => window.__ipcCalls.filter((x) => x.cmd === "draft_set").length === 2);
  assert.deepEqual((await calls(page, "draft_set"))[1], { id: "c2", field: "axis", value: "scope", by: "the lead" });
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke before: text typed in a draft field was lost when the view was left before the field
// was, and when a save was refused the next row showed with the text gone.
test("typed draft text is saved when the view is left, and kept with a question when it cannot be", async () => {
  const { page, problems } = await open();
  await page.click(row("c2"));
  await page.waitForSelector('[data-testid="draft-form"]');
  await page.click(field("rationale"));
  await page.keyboard.type("The passage hedges.");
  await page.keyboard.press("Alt+1");
  await page.waitForFunction(() => window.__ipcCalls.some((x) => x.cmd === "draft_set"));
  assert.deepEqual(await calls(page, "draft_set"), [{ id: "c2", field: "rationale", value: "The passage hedges.", by: "the lead" }]);
  await page.close();

  const refusal = { code: "wrong_row_state", message: "context `c2`'s draft was promoted into the candidate pool; it is a candidate now" };
  const second = await open({}, { draft_set: refusal });
  const p2 = second.page;
  await p2.click(row("c2"));
  await p2.waitForSelector('[data-testid="draft-form"]');
  await p2.fill(field("repair"), "Kept text");
  await p2.click(row("c4"));
  await p2.waitForSelector('[data-testid="leave-ask"]');
  assert.equal(await p2.textContent('[data-testid="contexts-error"]'), `Not changed. wrong_row_state: ${refusal.message}`);
  assert.equal(await p2.getAttribute('[data-testid="context-row"].on', "data-id"), "c2", "the row stays while asked");
  assert.equal(await p2.inputValue(field("repair")), "Kept text");
  // Another view and back: the text is still there.
  await p2.keyboard.press("Escape");
  await p2.keyboard.press("Alt+1");
  await p2.keyboard.press("Alt+0");
  await p2.waitForSelector('[data-testid="context-row"]');
  await p2.click(row("c2"));
  await p2.waitForSelector('[data-testid="draft-form"]');
  assert.equal(await p2.inputValue(field("repair")), "Kept text");
  await p2.click(row("c4"));
  await p2.waitForSelector('[data-testid="leave-ask"]');
  await p2.click('[data-testid="leave-discard"]');
  await p2.waitForFunction(() => document.querySelector('[data-testid="context-row"].on')?.dataset.id === "c4");
  assert.deepEqual(second.problems, []);
  assert.deepEqual(problems, []);
  await p2.close();
});

test("closing the window saves draft text typed a moment before; text the core refused makes it ask", async () => {
  const { page, problems } = await open({}, {}, { delayMs: { draft_set: 200 } });
  await page.click(row("c2"));
  await page.waitForSelector('[data-testid="draft-form"]');
  await page.click(field("repair"));
  await page.keyboard.type("Typed just now");
  await page.evaluate(() => window.__closeWindow());
  assert.deepEqual(await calls(page, "draft_set"), [{ id: "c2", field: "repair", value: "Typed just now", by: "the lead" }]);
  assert.deepEqual(await page.evaluate(() => window.__destroyed), { unanswered: 0 }, "closed once the save was answered");
  await page.close();

  const refusal = { code: "wrong_row_state", message: "context `c2`'s draft was excluded before candidacy" };
  const second = await open({}, { draft_set: refusal });
  const p2 = second.page;
  await p2.click(row("c2"));
  await p2.waitForSelector('[data-testid="draft-form"]');
  await p2.click(field("repair"));
  await p2.keyboard.type("Not saved");
  // From another view too: the text is work the window would lose.
  await p2.keyboard.press("Alt+1");
  await p2.waitForSelector('[data-testid="contexts-view"]', { state: "detached" });
  await p2.evaluate(() => window.__closeWindow());
  await p2.waitForSelector('[data-testid="close-dialog"]');
  assert.equal(await p2.evaluate(() => window.__destroyed), null, "the window stayed open");
  assert.match(await p2.textContent('[data-testid="close-dialog"]'), /would lose draft text of c2, not saved yet/);
  assert.deepEqual([...problems, ...second.problems], []);
  await p2.close();
});

test("the counts per reason and per source, and each suggestion's record with its raw answer", async () => {
  const { page, problems } = await open();
  await page.waitForSelector('[data-testid="context-counts"]');
  const cells = (sel) => page.$eval(sel, (tr) => [...tr.querySelectorAll("td")].map((t) => t.textContent.trim()));
  assert.deepEqual(await cells('[data-testid="counts-by-reason"] tr[data-reason="passage_unavailable"]'), ["Passage unavailable", "1", "0"]);
  assert.deepEqual(await cells('[data-testid="counts-by-source"] tr[data-source="LFQA"]'), ["LFQA", "1", "0", "0", "0"]);
  await page.click(row("c2"));
  await page.waitForSelector('[data-testid="draft-records"]');
  assert.deepEqual(await calls(page, "draft_records"), [{ id: "c2" }]);
  assert.equal(await page.$$eval('[data-testid="draft-record"]', (e) => e.length), 2);
  assert.match(await page.textContent('[data-testid="record-model"]'), /model drafter-1 at http:\/\/127\.0\.0\.1:9\/v1/);
  assert.equal(await page.getAttribute('[data-testid="record-sha"]', "title"), sha);
  await page.click('[data-testid="record-raw-toggle"]');
  assert.equal(await page.textContent('[data-testid="record-raw"]'), records[0].asked.raw_response);
  await page.screenshot({ path: join(shotsDir, "contexts.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a model drafts from the view with its progress, and Cancel keeps what was answered", async () => {
  const summary = { name: "run-w", model: "qwen", prompt_source: "shipped:drafting", prompt_sha256: sha, requests: 3, answered_before: 0, answered_now: 1, drafted: 1, unusable: [], failures: [], skipped: [], unanswered: 2 };
  const { page, problems } = await open();
  await page.evaluate((summary) => {
    const base = window.__TAURI_INTERNALS__.invoke;
    let release;
    const cancelled = new Promise((ok) => (release = ok));
    window.__TAURI_INTERNALS__.invoke = async (cmd, args) => {
      if (!["draft_run", "draft_cancel"].includes(cmd)) return base(cmd, args);
      const { onProgress, ...plain } = args ?? {};
      window.__ipcCalls.push({ cmd, args: structuredClone(plain) });
      if (cmd === "draft_cancel") {
        release();
        return true;
      }
      for (const s of [{ done: 0, total: 3 }, { done: 1, total: 3 }]) {
        await new Promise((ok) => setTimeout(ok, 5));
        onProgress.onmessage(s);
      }
      await cancelled;
      return summary;
    };
  }, summary);
  await page.click('[data-testid="draft-runner"] summary');
  assert.equal(await page.isDisabled('[data-testid="draft-run-start"]'), true, "nothing to run without a model and a name");
  await page.fill('[data-testid="draft-run-model"]', "qwen");
  await page.fill('[data-testid="draft-run-name"]', "run-w");
  await page.fill('[data-testid="draft-run-key"]', "MY_KEY");
  // A stray letter on the API style list does not switch it.
  await page.focus('[data-testid="draft-run-api"]');
  await page.keyboard.press("r");
  assert.equal(await page.inputValue('[data-testid="draft-run-api"]'), "chat");
  await page.click('[data-testid="draft-run-start"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="draft-run-progress"]')?.textContent.includes("1 of 3"));
  const [sent] = await calls(page, "draft_run");
  // The numeric fields start from the core's defaults (draft_catalog) and are sent as shown.
  assert.deepEqual(sent.params, {
    name: "run-w", base_url: "http://127.0.0.1:8080/v1", model: "qwen", api: "chat", api_key_env: "MY_KEY", template: null,
    cap_field: null, no_temperature: false, extra: [],
    temperature: 0, max_tokens: 1024, limit: null, timeout: 120, attempts: 5,
  });
  await page.click('[data-testid="draft-run-cancel"]');
  await page.waitForSelector('[data-testid="draft-run-done"]');
  assert.deepEqual(await calls(page, "draft_cancel"), [{}]);
  assert.match(await page.textContent('[data-testid="draft-run-done"]'), /1 now; 1 draft made\.\s+2 still wait: run the same name again to go on\./);
  // The view read the contexts again after the run.
  assert.ok((await calls(page, "contexts_list")).length >= 2);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the drafting form offers the judge form's provider profile and the run's numbers, and shows the core's refusal", async () => {
  const refusal = { code: "invalid_argument", message: "--extra `reasoning`: give KEY=JSON" };
  const { page, problems } = await open({}, { draft_run: refusal });
  await page.click('[data-testid="draft-runner"] summary');
  await page.waitForFunction(() => document.querySelector('[data-testid="draft-run-timeout"]')?.value === "120");
  assert.deepEqual(
    await Promise.all(["temperature", "max-tokens", "timeout", "attempts"].map((f) => page.inputValue(`[data-testid="draft-run-${f}"]`))),
    ["0", "1024", "120", "5"],
    "the core's defaults",
  );
  await page.fill('[data-testid="draft-run-model"]', "qwen");
  await page.fill('[data-testid="draft-run-name"]', "run-p");
  // The styles are the core's, each explained with its path and cap field.
  await page.selectOption('[data-testid="draft-run-api"]', "responses");
  assert.match(await page.textContent('[data-testid="draft-run-api-about"]'), /\/responses; the cap goes in max_output_tokens/);
  // A stray letter on either choice list changes nothing.
  for (const list of ["draft-run-api", "draft-run-deterministic"]) {
    const before = await page.inputValue(`[data-testid="${list}"]`);
    await page.focus(`[data-testid="${list}"]`);
    await page.keyboard.press("a");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.inputValue(`[data-testid="${list}"]`), before, list);
  }
  await page.selectOption('[data-testid="draft-run-deterministic"]', "none");
  assert.equal(await page.isDisabled('[data-testid="draft-run-temperature"]'), true, "no temperature is sent in a named mode");
  await page.fill('[data-testid="draft-run-cap-field"]', "max_completion_tokens");
  await page.fill('[data-testid="draft-run-extra"]', 'reasoning={"effort":"minimal"}\nseed=7');
  // A cap that is not a number holds the run until it is fixed, and says so.
  await page.fill('[data-testid="draft-run-max-tokens"]', "lots");
  assert.equal(await page.isDisabled('[data-testid="draft-run-start"]'), true);
  assert.match(await page.textContent('[data-testid="draft-run-hint"]'), /whole numbers/);
  await page.fill('[data-testid="draft-run-max-tokens"]', "300");
  await page.fill('[data-testid="draft-run-attempts"]', "2");
  await page.click('[data-testid="draft-run-start"]');
  await page.waitForSelector('[data-testid="draft-run-error"]');
  const [sent] = await calls(page, "draft_run");
  assert.deepEqual(sent.params, {
    name: "run-p", base_url: "http://127.0.0.1:8080/v1", model: "qwen", api: "responses", api_key_env: null, template: null,
    cap_field: "max_completion_tokens", no_temperature: true, extra: ['reasoning={"effort":"minimal"}', "seed=7"],
    temperature: 0, max_tokens: 300, limit: null, timeout: 120, attempts: 2,
  });
  assert.equal(await page.textContent('[data-testid="draft-run-error"]'), `The run stopped. invalid_argument: ${refusal.message}`);
  assert.equal(await page.$('[data-testid="draft-run-done"]'), null, "nothing is said done");
  // The settings stay for the resume: the form still holds what was sent, also once the view
  // was left and opened again.
  assert.equal(await page.inputValue('[data-testid="draft-run-cap-field"]'), "max_completion_tokens");
  await page.click('[data-testid="nav-candidates"]');
  await page.waitForSelector('[data-testid="draft-runner"]', { state: "detached" });
  await page.keyboard.press("Alt+0");
  await page.click('[data-testid="draft-runner"] summary');
  assert.deepEqual(
    await Promise.all(["cap-field", "extra", "max-tokens", "attempts", "name", "api", "deterministic"].map((f) => page.inputValue(`[data-testid="draft-run-${f}"]`))),
    ["max_completion_tokens", 'reasoning={"effort":"minimal"}\nseed=7', "300", "2", "run-p", "responses", "none"],
  );
  await page.screenshot({ path: join(shotsDir, "contexts-draft-runner.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the core's refusal is shown with its code, and nothing is said done", async () => {
  const refusal = { code: "lead_only", message: "drafting candidates is the lead's step; this is an annotator's workspace" };
  const { page, problems } = await open({}, { contexts_screen: refusal });
  await page.keyboard.press("k");
  await page.waitForSelector('[data-testid="contexts-error"]');
  assert.equal(await page.textContent('[data-testid="contexts-error"]'), `Not changed. lead_only: ${refusal.message}`);
  assert.equal(await page.$('[data-testid="contexts-done"]'), null);
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [w, h] of [
  [960, 600],
  [1440, 900],
]) {
  test(`the view at ${w}×${h}: nothing overflows sideways`, async () => {
    const { page, problems } = await open();
    await page.setViewportSize({ width: w, height: h });
    await page.click(row("c2"));
    await page.waitForSelector('[data-testid="draft-records"]');
    await page.click('[data-testid="draft-runner"] summary');
    const over = await page.$eval('[data-testid="contexts-view"]', (v) => {
      const detail = v.querySelector(".detail");
      return { view: v.scrollWidth - v.clientWidth, detail: detail.scrollWidth - detail.clientWidth };
    });
    assert.deepEqual(over, { view: 0, detail: 0 });
    await page.screenshot({ path: join(shotsDir, `contexts-${w}x${h}.png`) });
    assert.deepEqual(problems, []);
    await page.close();
  });
}
