// Views fetched when first opened, in headless Chromium with mocked IPC: the window starts with the
// candidate list's code alone; another view's code comes the first time it is opened (by its tab or
// Alt+digit), once; while it is on its way the tab is chosen and a loading line shows, a view chosen
// after it wins when it arrives, and text typed in the view left is saved as on any switch.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { agreementReport, backend, cellRows } from "./support/fixtures.mjs";

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
/** The script and style files the page fetched, by name without their hash ("index.js"). */
const fetched = (page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((e) => new URL(e.name).pathname.split("/").pop())
      .filter((n) => /\.(js|css)$/.test(n))
      .map((n) => n.replace(/-[\w-]{8}\.(js|css)$/, ".$1")),
  );
const selected = (page, view) => page.getAttribute(`[data-testid="nav-${view}"]`, "aria-selected");

/** Holds back the agreement view's code until `release()` is called; `arrived` resolves when the
 *  page has it. */
async function holdAgreement(page) {
  let release;
  const open = new Promise((ok) => (release = ok));
  let arrived;
  const done = new Promise((ok) => (arrived = ok));
  await page.route(/\/assets\/AgreementView-[\w-]+\.js$/, async (route) => {
    await open;
    await route.continue();
    arrived();
  });
  return { release, arrived: done };
}

const withAgreement = () => backend({ answers: { agreement_report: agreementReport, agreement_cell_rows: cellRows } });

// Broke (the page's size): every view's code and styles were in the one script the window starts
// with, parsed and kept by WebKit's web process whether or not a view was ever opened.
test("the window starts with the candidate list's code alone; a view's code is fetched when first opened, once", async () => {
  const { page, problems } = await openApp(browser.context, server.url, withAgreement());
  await page.waitForSelector('[data-testid="candidate-row"]');
  const atStart = await fetched(page);
  assert.deepEqual(atStart.filter((n) => n.endsWith(".js")), ["index.js"], `at start: ${atStart}`);
  assert.ok(!atStart.some((n) => /View\.(js|css)$/.test(n)), `no view's code or styles at start: ${atStart}`);

  await page.keyboard.press("Alt+4");
  await page.waitForSelector('[data-testid="agreement-headline"]');
  assert.equal(await selected(page, "agreement"), "true");
  const opened = await fetched(page);
  assert.ok(opened.includes("AgreementView.js") && opened.includes("AgreementView.css"), `${opened}`);
  assert.ok(!opened.some((n) => /^(Split|Evaluate|Adjudicate|Annotate)View\./.test(n)), `only the view opened: ${opened}`);

  // Away and back, by key and by tab: the view is there at once, its code not fetched again.
  await page.keyboard.press("Alt+1");
  await page.waitForSelector('[data-testid="candidate-row"]');
  await page.click('[data-testid="nav-agreement"]');
  await page.waitForSelector('[data-testid="agreement-headline"]');
  assert.equal(await page.$('[data-testid="view-loading"]'), null);
  assert.equal((await fetched(page)).filter((n) => n === "AgreementView.js").length, 1, "fetched once");
  assert.deepEqual(problems, []);
  await page.close();
});

test("while a view's code is on its way its tab is chosen and a loading line shows; a view chosen after it wins", async () => {
  const { page, problems } = await openApp(browser.context, server.url, withAgreement());
  const held = await holdAgreement(page);
  await page.waitForSelector('[data-testid="candidate-row"]');
  await page.keyboard.press("Alt+4");
  await page.waitForSelector('[data-testid="view-loading"]');
  assert.equal(await selected(page, "agreement"), "true", "the tab shows where the person is going");
  assert.equal((await page.innerText('[data-testid="view-loading"]')).trim(), "Loading Agreement…");
  assert.equal(await page.$('[data-testid="candidate-row"]'), null, "the list left as on any switch");

  // The person moves on before the code arrives: its arrival must not pull them back.
  await page.keyboard.press("Alt+1");
  await page.waitForSelector('[data-testid="candidate-row"]');
  held.release();
  await held.arrived;
  await page.waitForTimeout(300);
  assert.equal(await selected(page, "candidates"), "true");
  assert.equal(await page.$('[data-testid="agreement-view"]'), null, "still the candidate list");
  assert.ok(await page.$('[data-testid="candidate-row"]'));
  assert.deepEqual(await calls(page, "agreement_report"), [], "the view never opened, so asked for nothing");

  // Its code arrived meanwhile: opening it now shows it at once.
  await page.keyboard.press("Alt+4");
  await page.waitForSelector('[data-testid="agreement-headline"]');
  assert.equal((await calls(page, "agreement_report")).length, 1);
  assert.deepEqual(problems, []);
  await page.close();
});

// The view left closes as soon as another is chosen, before that one's code is here: a note typed
// a moment before (still inside its pause before saving) is sent then, as on any switch.
test("a note typed just before going to a view not loaded yet is saved, and is there on coming back", async () => {
  const { page, problems } = await openApp(browser.context, server.url, withAgreement());
  const held = await holdAgreement(page);
  await page.waitForSelector('[data-testid="nav-annotate"]');
  await page.keyboard.press("Alt+2");
  await page.waitForFunction(() => document.activeElement?.dataset?.name === "Ana");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-zurich");
  await page.keyboard.press("o");
  await page.keyboard.type("Check the year");
  await page.keyboard.press("Alt+4");
  await page.waitForSelector('[data-testid="view-loading"]');
  await page.waitForFunction(() => window.__ipcCalls.some((c) => c.cmd === "set_field" && c.args.field === "notes"));
  const notes = (await calls(page, "set_field")).filter((c) => c.field === "notes");
  assert.deepEqual(notes.map((c) => [c.id, c.value]), [["fx-zurich", "Check the year"]], "sent while the next view loads");
  held.release();
  await page.waitForSelector('[data-testid="agreement-headline"]');

  // Back: Ana's queue opens again where she was (the view keeps who was picked).
  await page.keyboard.press("Alt+2");
  await page.waitForFunction(() => document.querySelector('[data-testid="row-id"]')?.textContent === "fx-zurich");
  assert.equal(await page.$eval('[data-testid="notes"]', (t) => t.value), "Check the year");
  assert.deepEqual(problems, []);
  await page.close();
});
