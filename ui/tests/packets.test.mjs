// The packets view with mocked IPC: merging shows each report, or the refusal in full; in a
// workspace, "Return packet" shows where the file was written; "Open packet" switches the
// window to the workspace (annotate view, annotator fixed).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { backend, session } from "./support/fixtures.mjs";

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

async function openPackets(overrides) {
  const app = await openApp(browser.context, server.url, backend(overrides));
  await app.page.waitForSelector('[data-testid="nav-packets"]');
  await app.page.keyboard.press("Alt+3");
  await app.page.waitForSelector('[data-testid="packets-view"]');
  return app;
}

const workspace = {
  ...session,
  workspace: {
    annotator: "Ana",
    blinding: "strict",
    packet_id: "pk-1",
    packet_path: "/data/ana.json",
    return_path: "/data/ana.returned.json",
    carried: 39,
  },
};

test("merge: one path per line, each report shown", async () => {
  const report = { file: "/in/ana.returned.json", packet_id: "pk-1", annotator: "Ana", merged: true, rows: 6, new_events: 20, changed_rows: 3, finished_rows: 5 };
  const { page, problems } = await openPackets({ answers: { merge_packets: [report, { ...report, file: "/in/ben.returned.json", annotator: "Ben", merged: false }] } });
  await page.fill('[data-testid="merge-paths"]', "/in/ana.returned.json\n  \n/in/ben.returned.json\n");
  await page.click('[data-testid="merge"]');
  await page.waitForSelector('[data-testid="merge-reports"]');
  assert.deepEqual(await calls(page, "merge_packets"), [{ paths: ["/in/ana.returned.json", "/in/ben.returned.json"] }]);
  const text = await page.textContent('[data-testid="merge-reports"]');
  assert.match(text, /\/in\/ana\.returned\.json\s*Ana\s*merged\s*3 of 6\s*20\s*5/);
  assert.match(text, /already merged \(no change\)/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("merge: a return labelled under an older guideline is flagged with both versions; one under the current is not", async () => {
  const base = { packet_id: "pk-1", merged: true, rows: 6, new_events: 20, changed_rows: 3, finished_rows: 5, guideline_version: "1" };
  const reports = [
    { ...base, file: "/in/ana.returned.json", annotator: "Ana", newer_guideline: "2" },
    { ...base, file: "/in/ben.returned.json", annotator: "Ben", packet_id: "pk-2", guideline_version: "2", newer_guideline: null },
  ];
  const { page, problems } = await openPackets({ answers: { merge_packets: reports } });
  await page.fill('[data-testid="merge-paths"]', "/in/ana.returned.json\n/in/ben.returned.json");
  await page.click('[data-testid="merge"]');
  await page.waitForSelector('[data-testid="merge-reports"]');
  const flags = await page.$$eval('[data-testid="merge-newer-guideline"]', (els) =>
    els.map((e) => [e.closest("tr").innerText.split("\t")[0].trim(), e.textContent.replace(/\s+/g, " ").trim()]),
  );
  assert.equal(await page.$$eval('[data-testid="merge-reports"] tbody tr', (trs) => trs.length), 2);
  assert.deepEqual(flags, [["/in/ana.returned.json", "labelled under guideline 1; version 2 came out since"]]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("merge: a refusal is shown in full with its code", async () => {
  const message = "/in/ana.returned.json: checksum check failed: the file was changed after ForceBench wrote it\n  row fb-0001: content hash differs";
  const { page } = await openPackets({ errors: { merge_packets: { code: "invalid_input", message } } });
  await page.fill('[data-testid="merge-paths"]', "/in/ana.returned.json");
  await page.click('[data-testid="merge"]');
  await page.waitForSelector('[data-testid="merge-error"]');
  assert.equal(await page.textContent('[data-testid="merge-error"]'), `invalid_input: ${message}`);
  await page.close();
});

test("in a workspace: return packet says where it was written", async () => {
  const { page, problems } = await openApp(browser.context, server.url, backend({
    session: workspace,
    answers: { return_packet: { path: "/data/ana.returned.json", packet_id: "pk-1", annotator: "Ana", rows: 53, events: 107, changed_rows: 10 } },
  }));
  // A workspace opens on the annotate view, with its annotator fixed (no picker).
  await page.waitForSelector('[data-testid="row-id"]');
  assert.match(await page.textContent('[data-testid="annotator"]'), /Annotating as Ana/);
  // The packet continued Ana's work from the lead's project, and Annotate says so.
  assert.match(await page.textContent('[data-testid="packet-continues"]'), /continues your work: 39 rows came with your labels/);
  assert.equal(await page.isVisible('[data-testid="annotator-picker"]'), false);
  await page.keyboard.press("Alt+3");
  await page.waitForSelector('[data-testid="return-packet"]');
  assert.equal(await page.isVisible('[data-testid="merge"]'), false, "no merging in a workspace");
  assert.equal(await page.getAttribute('[data-testid="return-path"]', "placeholder"), "/data/ana.returned.json");
  await page.click('[data-testid="return-packet"]');
  await page.waitForSelector('[data-testid="return-result"]');
  assert.deepEqual(await calls(page, "return_packet"), [{ out: null }]);
  // Broke: "53 rows, 107 changes" when 10 rows were touched.
  assert.match(
    (await page.textContent('[data-testid="return-result"]')).replace(/\s+/g, " "),
    /Written to \/data\/ana\.returned\.json: you changed 10 of its 53 rows in this workspace \(107 recorded changes in all/,
  );
  assert.match(await page.textContent('[data-testid="packet-carries"]'), /continues your work: 39 of its rows came with the\s+labels/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("open packet switches the window to the workspace; a failure keeps the project", async () => {
  const { page } = await openPackets({
    errors: {},
    answers: { open_packet: workspace },
  });
  await page.fill('[data-testid="open-path"]', " /data/ana.json ");
  await page.click('[data-testid="open-packet"]');
  await page.waitForSelector('[data-testid="annotate-view"]');
  assert.deepEqual(await calls(page, "open_packet"), [{ path: "/data/ana.json" }]);
  assert.ok((await calls(page, "session_info")).length >= 2, "the session is read again");
  await page.close();

  const failing = await openPackets({ errors: { open_packet: { code: "io", message: "No file or folder at /nope.json" } } });
  await failing.page.fill('[data-testid="open-path"]', "/nope.json");
  await failing.page.click('[data-testid="open-packet"]');
  await failing.page.waitForSelector('[data-testid="open-error"]');
  assert.equal(await failing.page.textContent('[data-testid="open-error"]'), "io: No file or folder at /nope.json");
  assert.equal(await failing.page.isVisible('[data-testid="packets-view"]'), true);
  await failing.page.close();
});

const FEEDBACK = {
  format: "forcebench-feedback",
  format_version: 1,
  project: "UI fixture project",
  annotator: "Ana",
  written_at: "2025-03-06T10:00:00Z",
  guideline_version: "2",
  summary: {
    adjudicated_rows: 3,
    differing_rows: 1,
    per_field: { decision: { agree: 3, total: 3 }, severity: { agree: 2, total: 3 } },
    per_axis: { scope: { agree: 1, total: 2 } },
    seconds_per_row: 41.5,
  },
  rows: [{ id: "fx-2", field: "severity", yours: "1", final: "3", rationale: "the other annotator is right: high-impact", guideline_version: "1" }],
  row_text: { "fx-2": { context: "Q?", passage: "Sea level rose 3 mm a year.", calibrated_claim: "It rose about 3 mm.", raised_claim: "It rose exactly 3 mm." } },
};

test("an annotator opens the feedback the lead sent: their differing fields, the final label and the reason", async () => {
  const { page, problems } = await openPackets({ answers: { open_feedback: FEEDBACK } });
  await page.fill('[data-testid="feedback-path"]', "/tmp/Ana.feedback.json");
  await page.click('[data-testid="feedback-open"]');
  await page.waitForSelector('[data-testid="feedback-row"]');
  assert.deepEqual(await page.evaluate(() => window.__ipcCalls.filter((c) => c.cmd === "open_feedback").map((c) => c.args)), [{ path: "/tmp/Ana.feedback.json" }]);
  const t = (id) => page.innerText(`[data-testid="${id}"]`).then((s) => s.replace(/\s+/g, " ").trim());
  assert.equal(await t("feedback-summary"), "Ana: 3 adjudicated rows, 1 where the final label differs from yours; 42 s per row. Guideline in force: version 2.");
  assert.equal(await t("feedback-fields"), "decision 100% (3 of 3) severity 67% (2 of 3)");
  assert.equal(await t("feedback-field"), "severity 1 · subtle 3 · high-impact");
  assert.equal(await t("feedback-rationale"), "“the other annotator is right: high-impact”");
  assert.deepEqual(problems, []);
  await page.close();
});

// Feedback files could be issued only from the command line (`forcebench feedback issue`).
test("the lead issues feedback files into a picked folder: what was written is listed, and a refusal says why", async () => {
  const written = [
    { annotator: "Ana", file: "/home/lee/feedback/Ana.feedback.json", adjudicated_rows: 40, differing_rows: 3 },
    { annotator: "Ben", file: "/home/lee/feedback/Ben.feedback.json", adjudicated_rows: 38, differing_rows: 5 },
  ];
  const { page, problems } = await openPackets({ answers: { "plugin:dialog|open": "/home/lee/feedback", issue_feedback: written } });
  assert.equal(await page.isDisabled('[data-testid="feedback-issue"]'), true, "nothing to write into yet");
  await page.click('[data-testid="feedback-dir-choose"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="feedback-dir"]').value === "/home/lee/feedback");
  const dialog = await page.evaluate(() => window.__ipcCalls.find((c) => c.cmd === "plugin:dialog|open"));
  assert.equal(dialog.args.options.directory, true, "a folder is picked, not a file");
  await page.click('[data-testid="feedback-issue"]');
  await page.waitForSelector('[data-testid="feedback-written"]');
  assert.deepEqual(await calls(page, "issue_feedback"), [{ dir: "/home/lee/feedback", force: false }]);
  const lines = await page.$$eval('[data-testid="feedback-written"] li', (li) => li.map((l) => l.textContent.replace(/\s+/g, " ").trim()));
  assert.deepEqual(lines, [
    "/home/lee/feedback/Ana.feedback.json: Ana, 3 of 40 adjudicated rows differ",
    "/home/lee/feedback/Ben.feedback.json: Ben, 5 of 38 adjudicated rows differ",
  ]);
  // The list belongs to that folder: another folder typed clears it.
  await page.fill('[data-testid="feedback-dir"]', "/home/lee/other");
  await page.waitForSelector('[data-testid="feedback-written"]', { state: "detached" });
  assert.deepEqual(problems, []);
  await page.close();

  const message = "/home/lee/feedback/Ana.feedback.json already exists; pass --force to replace it";
  const refused = await openPackets({ errors: { issue_feedback: { code: "output_exists", message } } });
  await refused.page.fill('[data-testid="feedback-dir"]', "/home/lee/feedback");
  await refused.page.check('[data-testid="feedback-force"]');
  await refused.page.click('[data-testid="feedback-issue"]');
  await refused.page.waitForSelector('[data-testid="feedback-issue-error"]');
  assert.equal(
    await refused.page.textContent('[data-testid="feedback-issue-error"]'),
    `Nothing was written. output_exists: ${message}`,
  );
  assert.deepEqual(await calls(refused.page, "issue_feedback"), [{ dir: "/home/lee/feedback", force: true }]);
  assert.equal(await refused.page.isVisible('[data-testid="feedback-written"]'), false);
  await refused.page.close();

  // An annotator's workspace has nothing to issue: the control is not there.
  const ws = await openPackets({ session: workspace });
  await ws.page.waitForSelector('[data-testid="return-packet"]');
  assert.equal(await ws.page.isVisible('[data-testid="issue-feedback"]'), false);
  await ws.page.close();
});
