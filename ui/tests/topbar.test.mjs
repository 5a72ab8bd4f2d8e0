// The top bar at the narrow widths the app supports, in headless Chromium with mocked IPC: with
// all ten tabs, the project's name (or the packet workspace's owner) stays readable beside them,
// a name too long for the room ends in an ellipsis and is whole in its tooltip, and every tab
// still fits. Screenshots in tests/shots/topbar-*.png.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, openApp, serveDist, shotsDir } from "./support/harness.mjs";
import { backend, session } from "./support/fixtures.mjs";

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

async function barAt(width, height, over = {}) {
  const app = await openApp(browser.context, server.url, backend({ session: { ...session, ...over } }));
  await app.page.setViewportSize({ width, height });
  await app.page.waitForSelector('[data-testid="nav-evaluate"]');
  const bar = await app.page.evaluate(() => {
    const where = document.querySelector('[data-testid="session-where"]');
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    return {
      whole: where.scrollWidth <= where.clientWidth,
      width: where.clientWidth,
      title: where.title,
      tabs: tabs.length,
      tabsInside: tabs.every((t) => t.getBoundingClientRect().right <= innerWidth && t.scrollWidth <= t.clientWidth),
    };
  });
  return { ...app, bar };
}

// Broke: at 960x600 the ten tabs left the name 36 px ("UI fi…"), and up to about 1,230 px wide
// it was still cut; nothing showed it whole.
for (const [w, h] of [
  [960, 600],
  [1200, 800],
  [1440, 900],
]) {
  test(`at ${w}×${h} the project's name is whole beside the ten tabs`, async () => {
    const { page, problems, bar } = await barAt(w, h);
    assert.equal(bar.tabs, 10);
    assert.ok(bar.tabsInside, "every tab fits and shows its whole label");
    assert.ok(bar.whole, `the name "${session.project_name}" is shown whole (${bar.width} px)`);
    assert.equal(bar.title, session.project_name);
    await page.screenshot({ path: join(shotsDir, `topbar-${w}x${h}.png`), clip: { x: 0, y: 0, width: w, height: 80 } });
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("at 960×600 a long name keeps readable room, ends in an ellipsis and is whole in its tooltip", async () => {
  const long = "Warrant strength pilot 2026 (ExpertQA + LFQA), second annotation round";
  const { page, problems, bar } = await barAt(960, 600, { project_name: long });
  assert.ok(bar.tabsInside);
  assert.ok(bar.width >= 100, `room for more than a few letters (${bar.width} px)`);
  assert.equal(bar.title, long);
  assert.equal(await page.$eval('[data-testid="session-where"]', (e) => getComputedStyle(e).textOverflow), "ellipsis");
  await page.screenshot({ path: join(shotsDir, "topbar-960x600-long.png"), clip: { x: 0, y: 0, width: 960, height: 80 } });
  assert.deepEqual(problems, []);
  await page.close();
});

test("at 960×600 a packet workspace names its annotator in the bar, whole in the tooltip", async () => {
  const { page, problems, bar } = await barAt(960, 600, { workspace: { annotator: "Ana", blinding: "full" } });
  assert.ok(bar.tabsInside);
  assert.equal(bar.title, "Packet workspace of Ana · full blinding");
  assert.match(await page.textContent('[data-testid="session-where"]'), /Packet workspace of\s+Ana/);
  assert.deepEqual(problems, []);
  await page.close();
});
