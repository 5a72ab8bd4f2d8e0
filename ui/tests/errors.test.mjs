// Failures from the Rust side reach the person with their code and message.
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
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("a project that cannot be opened shows the error code and message", async () => {
  const failure = {
    code: "not_a_project",
    message: "/home/ra/notes.txt: not a ForceBench project (it is not an SQLite database); nothing was changed",
  };
  const { page } = await openApp(
    browser.context,
    server.url,
    backend({ errors: { project_status: failure, list_candidates: failure } }),
  );
  await page.waitForSelector('[data-testid="project-error"]');
  assert.equal(await page.textContent('[data-testid="error-code"]'), failure.code);
  assert.equal(await page.textContent('[data-testid="error-message"]'), failure.message);
  assert.equal(await page.$$eval('[data-testid="candidate-row"]', (r) => r.length), 0);
  await mkdir(shotsDir, { recursive: true });
  await page.screenshot({ path: join(shotsDir, "project-error.png") });
  await page.close();
});

test("a failed get_candidate is shown in the detail pane, the list stays usable", async () => {
  const { page } = await openApp(
    browser.context,
    server.url,
    backend({ errors: { get_candidate: { code: "database", message: "database error: disk I/O error" } } }),
  );
  await page.waitForSelector('[data-testid="detail-error"]');
  assert.match(await page.textContent('[data-testid="detail-error"]'), /database[\s\S]*disk I\/O error/);
  assert.equal(await page.$$eval('[data-testid="candidate-row"]', (r) => r.length), 4);
  await page.close();
});

test("a plain-string rejection from Tauri becomes an error with code `ipc`", async () => {
  const { page } = await openApp(
    browser.context,
    server.url,
    backend({ errors: { project_status: "command project_status not allowed by ACL" } }),
  );
  await page.waitForSelector('[data-testid="project-error"]');
  assert.equal(await page.textContent('[data-testid="error-code"]'), "ipc");
  assert.match(await page.textContent('[data-testid="error-message"]'), /not allowed by ACL/);
  await page.close();
});
