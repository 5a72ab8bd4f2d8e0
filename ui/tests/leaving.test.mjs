// Every way out of a view with unsaved work, in headless Chromium with mocked IPC: the view keys
// and the tab bar keep an adjudication draft for the way back; the window closing saves text
// still waiting for its pause before it goes, and asks before dropping an adjudication draft.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { adjudicateBackend, backend } from "./support/fixtures.mjs";

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
const rowId = (page) => page.textContent('[data-testid="row-id"]');
const waitRow = (page, id) =>
  page.waitForFunction((want) => document.querySelector('[data-testid="row-id"]')?.textContent === want, id);
const waitState = (page, state) =>
  page.waitForFunction((s) => document.querySelector('[data-testid="save-state"]')?.dataset.state === s, state);
const sources = (page) =>
  page.$$eval('[data-testid="field-row"]', (els) => els.map((e) => [e.dataset.field, e.dataset.source]).filter(([, s]) => s));
const pressed = (page) => page.$$eval('[data-testid="checklist"] [aria-pressed="true"]', (els) => els.map((e) => e.dataset.testid));

async function draftOnSecondRow() {
  const app = await openApp(browser.context, server.url, adjudicateBackend());
  const { page } = app;
  await page.waitForSelector('[data-testid="nav-adjudicate"]');
  await page.keyboard.press("Alt+5");
  await waitRow(page, "fx-adj-1");
  await page.keyboard.press("]");
  await waitRow(page, "fx-adj-2");
  await page.keyboard.press("b");
  await page.click('[data-testid="check-span_decisive-yes"]');
  await page.keyboard.press("r");
  await page.keyboard.type("B read the year right");
  await page.keyboard.press("Escape");
  await waitState(page, "unsaved");
  return app;
}

// Broke: take B, answer the checklist, write a rationale, Alt+4 then Alt+5 (or the Funnel tab and
// back): the row was "Open" again, the first open row was shown, and the answers were gone.
test("going to another view and back keeps an unsaved adjudication as it was left", async () => {
  const { page, problems } = await draftOnSecondRow();
  const draft = { sources: await sources(page), pressed: await pressed(page) };
  assert.ok(draft.sources.length > 0 && draft.pressed.length > 0, JSON.stringify(draft));
  for (const [out, back] of [
    [() => page.keyboard.press("Alt+4"), () => page.keyboard.press("Alt+5")],
    [() => page.click('[data-testid="nav-funnel"]'), () => page.click('[data-testid="nav-adjudicate"]')],
  ]) {
    await out();
    await page.waitForSelector('[data-testid="adjudicate-view"]', { state: "detached" });
    await back();
    await waitRow(page, "fx-adj-2");
    await waitState(page, "unsaved");
    assert.deepEqual(await sources(page), draft.sources, "the choices are back");
    assert.deepEqual(await pressed(page), draft.pressed, "the checklist answers are back");
    assert.equal(await page.$eval('[data-testid="rationale"]', (t) => t.value), "B read the year right");
    assert.match(await page.textContent('[data-testid="save-advanced"]'), /draft of fx-adj-2 is as you left it/);
  }
  assert.deepEqual(await calls(page, "resolve_row"), [], "nothing was saved behind the adjudicator's back");
  assert.deepEqual(problems, []);
  await page.close();
});

// Broke: `o`, a note typed, the window closed within the 700 ms pause: no prompt, note not saved.
test("closing the window saves a note typed a moment before, then closes", async () => {
  const { page, problems } = await openApp(browser.context, server.url, backend({ delayMs: { set_field: 300 } }));
  await page.waitForSelector('[data-testid="nav-annotate"]');
  await page.keyboard.press("Alt+2");
  await page.waitForFunction(() => document.activeElement?.dataset?.name === "Ana");
  await page.keyboard.press("Enter");
  await waitRow(page, "fx-zurich");
  await page.keyboard.press("o");
  await page.keyboard.type("Check the year");
  await page.evaluate(() => window.__closeWindow());
  const notes = (await calls(page, "set_field")).filter((c) => c.field === "notes");
  assert.deepEqual(notes.map((c) => c.value), ["Check the year"], "the note was sent");
  assert.deepEqual(await page.evaluate(() => window.__destroyed), { unanswered: 0 }, "the window closed after the save was answered");
  assert.equal(await page.$('[data-testid="close-dialog"]'), null, "nothing to ask: the text was saved");
  assert.deepEqual(problems, []);
  await page.close();
});

test("closing the window with an unsaved adjudication asks; Stay keeps it, Close without saving closes", async () => {
  const { page, problems } = await draftOnSecondRow();
  await page.evaluate(() => window.__closeWindow());
  assert.equal(await page.evaluate(() => window.__destroyed), null, "the window stayed open");
  assert.match(await page.textContent('[data-testid="close-dialog"]'), /would lose the adjudication of fx-adj-2, not saved yet/);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), "close-stay");
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="close-dialog"]', { state: "detached" });
  assert.equal(await rowId(page), "fx-adj-2");
  await waitState(page, "unsaved");
  // From another view the kept draft is still work the window would lose.
  await page.keyboard.press("Alt+6");
  await page.waitForSelector('[data-testid="adjudicate-view"]', { state: "detached" });
  await page.evaluate(() => window.__closeWindow());
  await page.waitForSelector('[data-testid="close-dialog"]');
  await page.click('[data-testid="close-anyway"]');
  await page.waitForFunction(() => window.__destroyed !== null);
  assert.deepEqual(await calls(page, "resolve_row"), []);
  assert.deepEqual(problems, []);
  await page.close();
});
