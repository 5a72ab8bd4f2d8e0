// Test harness for the UI alone: serves the built ui/dist on 127.0.0.1 (random free port) with
// the app's real CSP, drives Debian's Chromium through playwright-core, and replaces the Tauri
// IPC with an in-page mock answering from fixtures. Nothing is downloaded.
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const uiDir = resolve(here, "../..");
export const distDir = join(uiDir, "dist");
export const shotsDir = join(uiDir, "tests", "shots");
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/** The Content-Security-Policy the app ships, read from tauri.conf.json. */
async function appCsp() {
  const conf = JSON.parse(await readFile(resolve(uiDir, "../src-tauri/tauri.conf.json"), "utf8"));
  return Object.entries(conf.app.security.csp)
    .map(([directive, sources]) => `${directive} ${sources}`)
    .join("; ");
}

/** Serves ui/dist; resolves to { url, close }. */
export async function serveDist() {
  try {
    await stat(join(distDir, "index.html"));
  } catch {
    throw new Error(`${distDir}/index.html is missing: build the UI first (cd ui && npm run build)`);
  }
  const csp = await appCsp();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = normalize(join(distDir, path === "/" ? "index.html" : path));
    if (!file.startsWith(distDir)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "content-security-policy": csp,
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Launches headless Chromium with a throwaway profile; resolves to { context, close }. */
export async function launchBrowser() {
  try {
    await stat(chromiumPath);
  } catch {
    throw new Error(`${chromiumPath} not found: install Debian's chromium (scripts/setup.sh does)`);
  }
  const profile = await mkdtemp(join(tmpdir(), "forcebench-ui-test-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the app in a new page whose Tauri IPC is mocked. `backend` holds the fixture answers:
 * { status, rows, details: {id: detail}, errors: {command: {code, message}}, answers: {command: answer},
 * byArg: {command: {arg, answers: {value: answer}}} }. Everything the
 * page reports as a console error, page error or CSP violation is collected in `problems`.
 */
export async function openApp(context, url, backend) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.addInitScript((b) => {
    window.__ipcCalls = [];
    // The fixture answers themselves, for a test that plays a change made elsewhere.
    window.__backend = b;
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
    // Annotations the mock has saved, per "annotator/id", and their earlier values for undo.
    const store = {};
    // A fixture can hold earlier values already (`annotate.history`: what an import did before).
    const history = structuredClone(b.annotate?.history ?? {});
    const current = (who, id) => store[`${who}/${id}`] ?? structuredClone(b.annotate.rows[id].annotation);
    const names = { evidence_span: "span", axis: "axis", severity: "severity", repair: "repair" };
    const settle = (a) => {
      const waiting = a.decision === "accept_force_gap" && (a.suggested ?? []).length > 0;
      const list = (a.suggested ?? []).map((f) => names[f]);
      const joined = list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
      // As the core: needs discussion is finished only with a note that is not blank,
      // and a note of only invisible characters (U+200B, U+200D, U+FEFF...) is blank too.
      const visible = (a.notes ?? "").replace(/[\u00AD\u034F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFE00-\uFE0F\uFEFF]/g, "");
      const why = a.decision === "needs_discussion" && !visible.trim();
      a.problems =
        a.decision === null ? ["no decision yet"] : waiting ? [`confirm or change the suggested ${joined}`]
        : why ? ["needs discussion needs a note saying what to discuss"] : [];
      a.problem_fields = a.decision === null ? ["decision"] : waiting ? ["suggested"] : why ? ["notes"] : [];
      a.finished = a.decision !== null && !waiting && !why;
    };
    const AXIS_ORDER = ["relation", "modality", "scope", "temporal", "numeric", "none"];
    const pairOf = (i) => [i.annotator_a, i.annotator_b].sort().join("+");
    const adjudicationPage = (queue, q) => {
      const f = q.filter;
      const wanted = f.pair ? f.pair.split("+").map((s) => s.trim()).sort().join("+") : null;
      const ok = (i) =>
        (f.axis === null || (i.suggested_axis ?? "none") === f.axis) &&
        (f.source === null || i.source_dataset === f.source) &&
        (wanted === null || pairOf(i) === wanted) &&
        !(f.open_only && i.adjudicated);
      const all = queue.items;
      const matches = all.filter(ok);
      let target = null;
      let nextOpen = null;
      if (q.open_after !== null) {
        const from = all.findIndex((i) => i.id === q.open_after);
        const order = [...all.slice(from + 1), ...all.slice(0, Math.max(0, from))];
        nextOpen = order.find((i) => !i.adjudicated && ok(i) && i.id !== q.open_after)?.id ?? null;
        target = nextOpen;
      } else if (q.around !== null) target = q.around;
      const at = target === null ? -1 : matches.findIndex((i) => i.id === target);
      const position = at === -1 ? null : at;
      const offset = position !== null && q.limit > 0 ? Math.floor(position / q.limit) * q.limit : q.offset;
      return {
        counts: queue.counts,
        total: all.length,
        matching: matches.length,
        offset,
        items: matches.slice(offset, offset + q.limit),
        facets: {
          sources: [...new Set(all.map((i) => i.source_dataset))].sort(),
          pairs: [...new Set(all.map(pairOf))].sort(),
          axes: AXIS_ORDER.filter((a) => all.some((i) => (i.suggested_axis ?? "none") === a)),
        },
        position,
        next_open: nextOpen,
      };
    };
    const answer = (cmd, args) => {
      // The shell's own refusal of a blank path (src/agreement/export.rs), in its words: before
      // any failure a test sets, as nothing else is tried on a blank path.
      if (cmd === "export_agreement" && !String(args?.path ?? "").trim()) {
        throw { code: "invalid_argument", message: "type the path of the file to write the report to" };
      }
      if (b.errors?.[cmd]) throw b.errors[cmd];
      if (cmd === "project_status") return b.status;
      if (cmd === "list_candidates") return b.rows;
      // A page of the list, filtered as the core filters it (every word of the text in one of
      // the fields, any case; one state), and the counts. Records what it answered.
      if (cmd === "candidate_page") {
        const q = args.query;
        const words = q.text.toLowerCase().split(/\s+/).filter(Boolean);
        const matches = b.rows.filter((r) => {
          if (q.state !== null && r.state !== q.state) return false;
          const hay = [r.id, r.group_id, r.source_dataset, r.axis ?? "", r.context, r.calibrated_claim, r.raised_claim]
            .join("\n")
            .toLowerCase();
          return words.every((w) => hay.includes(w));
        });
        return { total: b.rows.length, matching: matches.length, offset: q.offset, rows: matches.slice(q.offset, q.offset + q.limit) };
      }
      if (b.answers && cmd in b.answers) return b.answers[cmd];
      // A page of the adjudication queue, from the whole queue of the fixture
      // (answers.adjudication_queue), filtered, counted and paged as the core does it.
      if (cmd === "adjudication_page") return adjudicationPage(b.answers.adjudication_queue, args.query);
      // Answers that depend on one argument: { cmd: { arg: "id", answers: { "fx-1": answer } } }.
      const per = b.byArg?.[cmd];
      if (per) {
        const key = args?.[per.arg];
        if (!(key in per.answers)) throw { code: "not_found", message: `no candidate with id \`${key}\`` };
        return per.answers[key];
      }
      if (cmd === "session_info") return b.session;
      if (cmd === "guideline") return b.guideline;
      if (cmd === "list_annotators") return b.annotate.annotators;
      // The annotate queue as the core serves it: a window with the whole queue's counts, and the
      // next row not finished after a given one (going round, the row itself last).
      const queueRow = (who, id, i) => {
        const a = current(who, id);
        return { id, position: i + 1, decision: a.decision, finished: a.finished, started: a.events > 0 };
      };
      if (cmd === "annotate_queue_page") {
        const { annotator: who, offset, limit } = args.query;
        const ids = b.annotate.queues[who] ?? [];
        const from = Math.min(offset, ids.length);
        const rows = ids.slice(from, from + limit).map((id, i) => queueRow(who, id, from + i));
        const finished = ids.filter((id) => current(who, id).finished).length;
        return { total: ids.length, finished, offset: from, rows };
      }
      if (cmd === "annotate_next_open") {
        const ids = b.annotate.queues[args.annotator] ?? [];
        const at = args.after === null ? -1 : ids.indexOf(args.after);
        for (let k = 1; k <= ids.length; k++) {
          const i = (at + k + ids.length) % ids.length;
          if (!current(args.annotator, ids[i]).finished) return queueRow(args.annotator, ids[i], i);
        }
        return null;
      }
      if (cmd === "annotate_row") {
        const ids = b.annotate.queues[args.annotator] ?? [];
        const r = b.annotate.rows[args.id];
        if (!r) throw { code: "not_found", message: `no candidate with id \`${args.id}\`` };
        return { ...r, id: args.id, position: ids.indexOf(args.id) + 1, total: ids.length, annotation: current(args.annotator, args.id) };
      }
      if (cmd === "set_field") {
        if (b.annotate.failSetField) throw b.annotate.failSetField;
        const a = structuredClone(current(args.annotator, args.id));
        const v = args.value;
        a[args.field] =
          v === null ? null : args.field === "severity" ? Number(v) : args.field === "evidence_span" ? JSON.parse(v) : v;
        a.events += 1;
        a.can_undo = true;
        // Changing a suggested field confirms it; an accept waits for every suggestion shown.
        a.suggested = (a.suggested ?? []).filter((f) => f !== args.field);
        settle(a);
        (history[`${args.annotator}/${args.id}`] ??= []).push(current(args.annotator, args.id));
        store[`${args.annotator}/${args.id}`] = a;
        return a;
      }
      if (cmd === "confirm_suggestions") {
        const a = structuredClone(current(args.annotator, args.id));
        if ((a.suggested ?? []).length === 0) return a;
        a.events += a.suggested.length;
        a.suggested = [];
        a.can_undo = true;
        settle(a);
        (history[`${args.annotator}/${args.id}`] ??= []).push(current(args.annotator, args.id));
        store[`${args.annotator}/${args.id}`] = a;
        return a;
      }
      if (cmd === "undo_change") {
        const prev = history[`${args.annotator}/${args.id}`]?.pop();
        if (prev) store[`${args.annotator}/${args.id}`] = prev;
        return current(args.annotator, args.id);
      }
      if (cmd === "add_time") return null;
      if (cmd === "get_candidate") {
        const found = b.details[args.id];
        if (!found) throw { code: "not_found", message: `no candidate with id \`${args.id}\`` };
        return found;
      }
      throw `command ${cmd} not found`;
    };
    // Event listeners the page registered (the window's close request), by event name, and the
    // callbacks they point to; `window.__closeWindow()` plays the close button: it resolves once
    // the page's handler has finished, and `window.__destroyed` says whether the window closed
    // (null: still open).
    const callbacks = {};
    const listeners = {};
    let nextCallback = 1;
    let inflight = 0;
    window.__destroyed = null;
    window.__closeWindow = () =>
      Promise.all((listeners["tauri://close-requested"] ?? []).map((h) => callbacks[h]({ event: "tauri://close-requested", id: 1, payload: null })));
    window.__TAURI_INTERNALS__ = {
      metadata: { currentWindow: { label: "main" }, currentWebview: { windowLabel: "main", label: "main" } },
      invoke: async (cmd, args) => {
        // The views poll the revision; a test changes `window.__revision` to play "someone else
        // changed the project". Polls are not recorded with the other calls.
        if (cmd === "project_revision") return window.__revision ?? "0:0";
        if (cmd === "plugin:event|listen") {
          (listeners[args.event] ??= []).push(args.handler);
          return args.handler;
        }
        if (cmd === "plugin:event|unlisten") return null;
        if (cmd === "plugin:window|destroy") {
          // How many calls were still unanswered when the window went.
          window.__destroyed = { unanswered: inflight };
          return null;
        }
        window.__ipcCalls.push({ cmd, args });
        inflight += 1;
        try {
          if (b.delayMs?.[cmd]) await new Promise((ok) => setTimeout(ok, b.delayMs[cmd]));
          return structuredClone(answer(cmd, args));
        } finally {
          inflight -= 1;
        }
      },
      transformCallback: (cb) => {
        callbacks[nextCallback] = cb;
        return nextCallback++;
      },
    };
  }, backend);
  await page.goto(url);
  return { page, problems };
}
