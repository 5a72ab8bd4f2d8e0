// A large annotate queue (500,000 rows per annotator on a 1M-row project) must not be
// drawn whole: the rail draws the rows around the current one, and moves with it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist } from "./support/harness.mjs";
import { annotate, backend } from "./support/fixtures.mjs";

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

const waitRow = (page, id) =>
  page.waitForFunction((want) => document.querySelector('[data-testid="row-id"]')?.textContent === want, id);
const drawn = (page) => page.$$eval('[data-testid="queue-row"]', (bs) => bs.map((b) => b.dataset.id));

test("a long queue draws the rows around the current one and moves with it", async () => {
  const ids = Array.from({ length: 1500 }, (_, i) => `q-${String(i + 1).padStart(4, "0")}`);
  const base = annotate.rows["fx-001"];
  const rows = Object.fromEntries(
    ids.map((id, i) => [
      id,
      {
        ...base,
        id,
        annotation: {
          ...base.annotation,
          candidate_id: id,
          ...(i < 599 ? { decision: "reject_not_force_gap", finished: true, problems: [], events: 2 } : {}),
        },
      },
    ]),
  );
  const b = backend();
  const { page, problems } = await openApp(browser.context, server.url, {
    ...b,
    annotate: { ...b.annotate, queues: { ...b.annotate.queues, Ana: ids }, rows },
  });
  await page.waitForSelector('[data-testid="nav-annotate"]');
  await page.keyboard.press("Alt+2");
  await page.waitForFunction(() => document.activeElement?.dataset?.name === "Ana");
  await page.keyboard.press("Enter");
  // The first unfinished row is the 600th, in the third block of 200: the blocks before and
  // after it are drawn too, rows 201 to 800.
  await waitRow(page, "q-0600");
  let shown = await drawn(page);
  assert.deepEqual([shown[0], shown.at(-1), shown.length], ["q-0201", "q-0800", 600]);
  assert.equal(await page.getAttribute('[data-testid="queue-row"][aria-current="true"]', "data-id"), "q-0600");
  assert.equal(await page.textContent('[data-testid="queue-earlier"]'), "200 earlier rows");
  assert.equal(await page.textContent('[data-testid="queue-later"]'), "700 later rows");
  assert.equal(await page.textContent('[data-testid="progress"]'), "599 / 1,500");
  // Next row, into the next block: the drawn rows move on by a block.
  await page.keyboard.press("n");
  await waitRow(page, "q-0601");
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-row"]')?.dataset.id === "q-0401");
  shown = await drawn(page);
  assert.deepEqual([shown[0], shown.at(-1), shown.length], ["q-0401", "q-1000", 600]);
  assert.equal(await page.getAttribute('[data-testid="queue-row"][aria-current="true"]', "data-id"), "q-0601");
  // And back.
  await page.keyboard.press("p");
  await waitRow(page, "q-0600");
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-row"]')?.dataset.id === "q-0201");
  // A decision updates the row's mark and the progress.
  await page.keyboard.press("r");
  await page.waitForFunction(() => document.querySelector('[data-testid="progress"]')?.textContent === "600 / 1,500");
  assert.equal(await page.getAttribute('[data-testid="queue-row"][data-id="q-0600"]', "data-finished"), "true");
  assert.deepEqual(problems, []);
  await page.close();
});
