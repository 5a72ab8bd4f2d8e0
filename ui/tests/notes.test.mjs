// The notes of a "Needs discussion" row: the core decides whether a note is one (visible text),
// and the panel shows its words at the notes whenever the box holds the note the core judged.
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

const waitSaved = (page) =>
  page.waitForFunction(() => document.querySelector('[data-testid="save-state"]')?.dataset.state === "saved");

// Broke: a note of only U+200B was hidden from the check (`trim()` keeps it), so the panel said
// nothing while the core kept the row unfinished.
test("a note of only invisible characters still says the row is not finished", async () => {
  const { page, problems } = await openApp(browser.context, server.url, backend());
  await page.waitForSelector('[data-testid="nav-annotate"]');
  await page.keyboard.press("Alt+2");
  await page.waitForFunction(() => document.activeElement?.dataset?.name === "Ana");
  await page.keyboard.press("Enter");
  await page.waitForSelector('[data-testid="row-id"]');
  await page.keyboard.press("d");
  await page.waitForSelector('[data-testid="discuss-why"]');
  await page.keyboard.press("o");
  await page.keyboard.type("\u200B\u200D");
  await page.keyboard.press("Escape");
  await waitSaved(page);
  await page.waitForSelector('[data-testid="unfinished"]');
  await page.waitForSelector('[data-testid="discuss-why"]');
  assert.match(await page.textContent('[data-testid="discuss-why"]'), /Not finished: needs discussion needs a note/);
  assert.deepEqual(problems, []);
  await page.close();
});
