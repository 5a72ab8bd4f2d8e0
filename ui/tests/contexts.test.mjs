// The funnel's steps before candidacy in headless Chromium with mocked IPC: a project with
// contexts shows them above the candidate funnel (stages, exits, reasons); one without shows
// nothing new.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { adjudicateBackend, funnelStatus } from "./support/fixtures.mjs";

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

const reasons = (values) =>
  Object.fromEntries(
    ["no_visible_boundary", "passage_unavailable", "needs_outside_knowledge", "changes_entity_or_target", "ordinary_addition"].map(
      (r, i) => [r, values[i]],
    ),
  );

// The sample's counts: 10 imported, 2 unscreened, 2 dropped, 6 kept, 1 not drafted, 5 drafted,
// 2 waiting, 2 excluded, 1 promoted.
const contexts = {
  imported: 10, unscreened: 2, dropped: 2, kept: 6, awaiting_draft: 1, drafted: 5, pending: 2, excluded: 2, promoted: 1,
  dropped_by_reason: reasons([1, 1, 0, 0, 0]),
  excluded_by_reason: reasons([0, 0, 0, 1, 1]),
  by_source: {},
};

async function funnel(status) {
  const app = await openApp(browser.context, server.url, adjudicateBackend({ status }));
  await app.page.waitForSelector('[data-testid="nav-funnel"]');
  await app.page.keyboard.press("Alt+6");
  await app.page.waitForSelector('[data-testid="funnel-table"]');
  return app;
}

test("the funnel begins at the contexts when the project has them", async () => {
  const { page, problems } = await funnel({ ...funnelStatus, contexts });
  await page.waitForSelector('[data-testid="before-candidacy"]');
  const value = (key) => page.getAttribute(`[data-testid="context-stage"][data-key="${key}"]`, "data-value");
  assert.deepEqual(
    [await value("imported"), await value("kept"), await value("drafted"), await value("promoted")],
    ["10", "6", "5", "1"],
  );
  assert.equal(await value("dropped"), "2");
  assert.equal(await value("excluded"), "2");
  assert.equal(await value("pending"), "2");
  const cell = (reason, col) => page.textContent(`[data-testid="reason-row"][data-reason="${reason}"] [data-col="${col}"]`);
  assert.equal(await cell("no_visible_boundary", "dropped"), "1");
  assert.equal(await cell("changes_entity_or_target", "excluded"), "1");
  assert.equal(await cell("needs_outside_knowledge", "excluded"), "0");
  // Drawn to scale against the contexts imported.
  const ratio = await page.$eval('[data-testid="context-stage"][data-key="kept"] .fill', (el) => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width);
  assert.ok(Math.abs(ratio - 0.6) < 0.01, `kept bar at ${ratio}`);
  await page.screenshot({ path: join(shotsDir, "funnel-contexts.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a project without contexts shows the funnel as before", async () => {
  const { page, problems } = await funnel(funnelStatus);
  assert.equal(await page.$('[data-testid="before-candidacy"]'), null);
  assert.deepEqual(problems, []);
  await page.close();
});
