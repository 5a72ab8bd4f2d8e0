// The setup view with mocked IPC: an import's refusal is shown row by row from the structured
// problems (before, the app had no import at all), and a report shows the counts.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { backend } from "./support/fixtures.mjs";

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

async function openSetup(overrides) {
  const app = await openApp(browser.context, server.url, backend(overrides));
  await app.page.waitForSelector('[data-testid="nav-setup"]');
  await app.page.keyboard.press("Alt+9");
  await app.page.waitForSelector('[data-testid="setup-view"]');
  return app;
}

test("an import refused for two rows shows each problem as a row with its line and field", async () => {
  const problems = [
    { file: "/in/c.csv", line: 3, field: "claim", message: "required field is missing" },
    { file: "/in/c.csv", line: 7, field: "severity", message: "`9` is not a severity" },
  ];
  const { page } = await openSetup({ errors: { import_candidates: { code: "invalid_input", message: "2 problems", problems, conflicts: [] } } });
  await page.fill('[data-testid="import-path"]', "/in/c.csv");
  await page.click('[data-testid="import-run"]');
  await page.waitForSelector('[data-testid="import-problems"]');
  const rows = await page.$$eval('[data-testid="import-problems"] tbody tr', (trs) => trs.map((t) => t.textContent));
  assert.deepEqual(rows, ["3claimrequired field is missing", "7severity`9` is not a severity"]);
  // The refusal names no file; once the path is edited it describes nothing typed.
  await page.fill('[data-testid="import-path"]', "/in/fixed.csv");
  assert.equal(await page.$('[data-testid="import-error"]'), null, "the refusal went with the path it was about");
  await page.close();
});

test("an accepted import shows rows read, inserted and unchanged", async () => {
  const report = { file: "/in/c.csv", format: "csv", file_sha256: "x", rows_read: 5, inserted: 4, unchanged: 1 };
  const { page } = await openSetup({ answers: { import_candidates: report } });
  await page.fill('[data-testid="import-path"]', "/in/c.csv");
  await page.click('[data-testid="import-run"]');
  await page.waitForSelector('[data-testid="import-report"]');
  assert.match(await page.textContent('[data-testid="import-report"]'), /5 rows read, 4 inserted, 1 unchanged/);
  await page.close();
});

test("the lead chooses how suggestions are shown; the choice is saved through set_suggestion_mode", async () => {
  // Old view: the suggestion mode could not be chosen at all.
  const { page, problems } = await openSetup({ answers: { suggestion_mode: "prefilled", set_suggestion_mode: "hidden" } });
  await page.waitForFunction(() => document.querySelector('[data-testid="suggestion-mode"]')?.value === "prefilled");
  await page.selectOption('[data-testid="suggestion-mode"]', "hidden");
  await page.waitForSelector('[data-testid="suggestion-mode-note"]');
  const sent = await page.evaluate(() => window.__ipcCalls.filter((c) => c.cmd === "set_suggestion_mode").map((c) => c.args));
  assert.deepEqual(sent, [{ mode: "hidden" }]);
  assert.equal(
    await page.textContent('[data-testid="suggestion-mode-note"]'),
    "Suggestions are now hidden; packets issued from now on carry this.",
  );
  assert.deepEqual(problems, []);
  await page.close();
});

// Native file dialogs (tauri-plugin-dialog): before, every path was typed by hand.
test("Choose… opens the native file dialog with the candidates filter and fills the path it returns", async () => {
  const { page } = await openSetup({ answers: { "plugin:dialog|open": "/home/lee/picked.csv" } });
  await page.click('[data-testid="import-choose"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="import-path"]').value === "/home/lee/picked.csv");
  const call = await page.evaluate(() => window.__ipcCalls.find((c) => c.cmd === "plugin:dialog|open"));
  assert.equal(call.args.options.directory, false);
  assert.deepEqual(call.args.options.filters[0].extensions, ["csv", "jsonl", "ndjson"]);
  await page.close();
});

test("a cancelled dialog leaves the typed path, and a dialog that cannot open says to type the path", async () => {
  const { page } = await openSetup({ answers: { "plugin:dialog|open": null } });
  await page.fill('[data-testid="issue-dir"]', "/typed/packets");
  await page.click('[data-testid="issue-choose"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "plugin:dialog|open"));
  assert.equal(await page.inputValue('[data-testid="issue-dir"]'), "/typed/packets");
  const call = await page.evaluate(() => window.__ipcCalls.find((c) => c.cmd === "plugin:dialog|open"));
  assert.equal(call.args.options.directory, true);
  await page.close();

  const broken = await openSetup({ errors: { "plugin:dialog|open": "dialog.open not allowed" } });
  await broken.page.click('[data-testid="import-choose"]');
  await broken.page.waitForSelector('[data-testid="import-choose-unavailable"]');
  assert.equal(await broken.page.inputValue('[data-testid="import-path"]'), "");
  await broken.page.close();
});
