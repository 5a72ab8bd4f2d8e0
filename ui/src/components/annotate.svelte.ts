// The annotate view's state and logic (AnnotateView.svelte only renders it): one annotator's
// queue, seen through a window around the current row; the row shown and its annotation; text
// drafts saved after a pause; every change sent durably, in order; the time on the row; the
// evidence span chosen with the keyboard; and which key does what. Nothing here touches the
// DOM: the view hands in what it needs done there (scrolling, focus) as hooks, so the model runs
// in node (tests/unit/annotate.test.mjs). Its pure parts (the key map, the window's arithmetic)
// are in lib/annotate.ts.
import { tick } from "svelte";
import type { AnnotateRow } from "../bindings/AnnotateRow";
import type { Annotation } from "../bindings/Annotation";
import type { Annotator } from "../bindings/Annotator";
import type { Field } from "../bindings/Field";
import type { QueuePage } from "../bindings/QueuePage";
import type { QueueRow } from "../bindings/QueueRow";
import { IpcError } from "../lib/ipc/call";
import type { SessionInfo } from "../lib/ipc/project";
import { addTime, annotateQueuePage, annotateNextOpen, annotateRow, listAnnotators, confirmSuggestions, setField, undoChange } from "../lib/ipc/annotate";
import { picksFor } from "../lib/picks";
import { cut, locate, spanOf, trimRange, words } from "../lib/text";
import {
  FIELD_NAMES,
  PROBLEM_PLACE,
  RAIL_BLOCK,
  TEXT_FIELDS,
  TEXT_PAUSE_MS,
  TIME_FLUSH_S,
  annotateCommand,
  describeUndo,
  joinAnd,
  moveSpan,
  sameQueue,
  spanFrom,
  sameRow,
  windowFrom,
  type AnnotateHooks,
  type KeyOutcome,
  type TextField,
} from "../lib/annotate";
import type { KeyPress } from "../lib/keys";

export class AnnotateModel {
  /** The annotator of a packet's workspace (fixed), or null in a lead's project (chosen). */
  readonly fixed: string | null;
  annotators = $state.raw<Annotator[]>([]);
  annotator = $state<string | null>(null);
  queue = $state.raw<QueuePage | null>(null);
  row = $state.raw<AnnotateRow | null>(null);
  ann = $state.raw<Annotation | null>(null);
  drafts = $state<Record<TextField, string>>({ calibrated_claim: "", raised_claim: "", repair: "", notes: "" });
  pending = $state(0);
  saveError = $state.raw<IpcError | null>(null);
  loadError = $state.raw<IpcError | null>(null);
  /** The span being chosen with the keyboard: its first and last word. */
  spanMode = $state<{ a: number; b: number } | null>(null);
  showGuide = $state(false);
  /** Seconds counted on the row shown since they were last taken. */
  seconds = $state(0);
  /** Seconds on the row shown before those (loaded, plus what this window sent since). */
  baseSeconds = $state(0);
  /** What the last undo changed (or why nothing was), said beside the Undo button. */
  undone = $state<string | null>(null);
  /** What the last confirmation (y) confirmed or used, said beside the suggestions. */
  confirmedNote = $state<string | null>(null);
  // The row where `u` was pressed once with none of this session's changes left: the
  // next `u` there reaches back to a change made before (an import, another session).
  reachBack = $state<string | null>(null);

  readonly total = $derived(this.queue?.total ?? 0);
  readonly railRows = $derived(this.queue?.rows ?? []);
  readonly earlier = $derived(this.queue?.offset ?? 0);
  readonly later = $derived(this.queue ? this.queue.total - this.queue.offset - this.queue.rows.length : 0);
  readonly done = $derived(this.queue?.finished ?? 0);
  readonly passageWords = $derived(this.row ? words(this.row.passage) : []);
  readonly spanRange = $derived(this.row && this.ann ? locate(this.row.passage, this.ann.evidence_span) : null);
  readonly previewRange = $derived(
    this.spanMode && this.passageWords.length
      ? { from: this.passageWords[this.spanMode.a].from, to: this.passageWords[this.spanMode.b].to }
      : null,
  );
  readonly pieces = $derived(this.row ? cut(this.row.passage, this.previewRange ?? this.spanRange) : []);
  /** The span being chosen shows as a preview; a suggested one, not yet confirmed, as suggested. */
  readonly passagePieces = $derived.by(() => {
    const tone = this.spanMode ? "preview" : this.isSuggested("evidence_span") ? "suggested" : undefined;
    return this.pieces.map((p) => ({ text: p.text, marked: p.mark, tone }));
  });
  readonly saveState = $derived(this.saveError ? "error" : this.pending > 0 ? "saving" : "saved");
  /** The annotators who have rows assigned: the ones the view offers. */
  readonly candidates = $derived(this.annotators.filter((a) => a.assigned > 0));
  readonly suggestedNames = $derived(joinAnd((this.ann?.suggested ?? []).map((f) => FIELD_NAMES[f] ?? f)));
  readonly beside = $derived(this.row?.suggestion_mode === "beside");
  /** In `beside` mode: the suggestions shown that the annotator's fields do not hold yet. */
  readonly besideOffers = $derived.by(() => {
    const { row, ann } = this;
    if (!row || !ann || row.suggestion_mode !== "beside") return [] as [Field, string][];
    const out: [Field, string][] = [];
    if (row.suggested_span && ann.evidence_span?.text !== row.suggested_span) out.push(["evidence_span", row.suggested_span]);
    if (row.suggested_axis && ann.axis !== row.suggested_axis) out.push(["axis", row.suggested_axis]);
    if (row.suggested_severity && ann.severity !== row.suggested_severity) out.push(["severity", String(row.suggested_severity)]);
    if (row.suggested_repair && this.drafts.repair !== row.suggested_repair) out.push(["repair", row.suggested_repair]);
    return out;
  });
  /** The annotation's validation problems, by the place the view shows them. */
  readonly problems = $derived.by(() => {
    const [by, ann]: [Record<string, string[]>, typeof this.ann] = [{}, this.ann];
    (ann?.problems ?? []).forEach((p, i) => (by[PROBLEM_PLACE[ann?.problem_fields[i] ?? ""] ?? "decision"] ??= []).push(p));
    return by;
  });

  private readonly projectPath: string;
  private readonly hooks: AnnotateHooks;
  // Where each row is in the window: a step or a save finds its row at once.
  private queueIndex = new Map<string, number>();
  // The text last sent for each field, and the pause timers of fields being typed in.
  private sent: Record<TextField, string> = { calibrated_claim: "", raised_claim: "", repair: "", notes: "" };
  private timers: Partial<Record<TextField, ReturnType<typeof setTimeout>>> = {};
  // Seconds on each row as this window last knew them (loaded, plus what it sent since): the
  // row's own figure can lag behind a time report still on its way, so coming back to a row
  // never shows its counter restarted.
  private knownSeconds: Record<string, number> = {};
  private chain: Promise<unknown> = Promise.resolve();
  // The changes this window made on each row that are not undone yet (what `u` undoes first).
  private mine: Record<string, number> = {};
  // The row asked for last and its place in the queue (from 0): moves follow it at once.
  private showing: string | null = null;
  private showingAt = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(session: SessionInfo, hooks: AnnotateHooks = {}) {
    this.fixed = session.workspace?.annotator ?? null;
    this.annotator = this.fixed;
    this.projectPath = session.project_path;
    this.hooks = hooks;
  }

  isSuggested = (f: Field): boolean => this.ann?.suggested.includes(f) ?? false;

  /** Opens the view: the fixed annotator's queue, or the one picked before switching tabs.
   *  False when nobody is chosen yet (the view offers the roster). */
  start = async (): Promise<boolean> => {
    if (this.fixed) {
      await this.choose(this.fixed);
      return true;
    }
    try {
      this.annotators = await listAnnotators();
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
    const kept = picksFor(this.projectPath).annotator;
    if (kept && this.candidates.some((a) => a.name === kept)) {
      await this.choose(kept);
      return true;
    }
    return false;
  };

  // --- Time on the row -------------------------------------------------------------------
  /** Counts time each second while the window has focus; sent every 30 s and on leaving the row. */
  startTicker(): void {
    this.ticker = setInterval(this.second, 1000);
  }

  /** One second passed: counted when a row is shown and the window has the focus. */
  second = (): void => {
    const focused = this.hooks.focused ?? (() => document.hasFocus() && !document.hidden);
    if (!this.row || !focused()) return;
    this.seconds += 1;
    if (this.seconds >= TIME_FLUSH_S) this.flushTime();
  };

  flushTime(): void {
    this.takeTime()?.();
  }

  /** Takes the time counted on the row shown: noted at once (coming back to the row shows it),
   *  sent by calling what it returns. */
  private takeTime(): (() => void) | null {
    if (!this.row || !this.annotator || this.seconds <= 0) return null;
    const [id, who, s] = [this.row.id, this.annotator, this.seconds];
    this.knownSeconds[id] = this.baseSeconds + s;
    this.baseSeconds += s;
    this.seconds = 0;
    return () => void addTime(id, who, s).catch((e) => (this.saveError = IpcError.from(e)));
  }

  /** The view closes: the ticker stops, typed text and counted time are sent. */
  destroy(): void {
    clearInterval(this.ticker);
    void this.settle();
  }

  /** Sends typed text and counted time now; resolves once every change sent is saved (the
   *  window closing waits for it, lib/leave.ts). */
  settle = (): Promise<unknown> => {
    this.flushText();
    this.flushTime();
    return this.chain;
  };

  // --- The queue window ------------------------------------------------------------------
  private setQueue(q: QueuePage) {
    this.queueIndex = new Map(q.rows.map((r, i) => [r.id, i]));
    this.queue = q;
  }

  private readWindow(who: string, at: number) {
    return annotateQueuePage({ annotator: who, offset: windowFrom(at), limit: 3 * RAIL_BLOCK });
  }

  /** One row of the window changed (its decision, finished, started), and the finished count
   *  with it. Nothing happens when the row already says so: opening a row must not redraw the
   *  rail. A row outside the window is counted when the window is next read. */
  private patchQueue(id: string, patch: Partial<QueueRow>) {
    const at = this.queueIndex.get(id);
    const queue = this.queue;
    if (!queue || at === undefined) return;
    const was = queue.rows[at];
    if (sameRow(was, { ...was, ...patch })) return;
    const rows = queue.rows.slice();
    rows[at] = { ...was, ...patch };
    const finished = queue.finished + (rows[at].finished === was.finished ? 0 : rows[at].finished ? 1 : -1);
    this.queue = { ...queue, rows, finished };
  }

  /** Moves the window so that position `at` is in its middle block (nothing if it already is). */
  private async follow(who: string, at: number) {
    if (this.queue && this.queue.offset === windowFrom(at)) return;
    const q = await this.readWindow(who, at);
    if (this.annotator === who) this.setQueue(q);
  }

  /** The project changed (a merge, the command line, another window, or this one): the queue is
   *  read again, and the row on screen too unless a change is on its way or text is being
   *  typed, which is never overwritten. The row, the focus and the time on it stay as they are. */
  refreshFromProject = async (): Promise<void> => {
    const who = this.annotator;
    if (!who) return;
    try {
      const q = await this.readWindow(who, this.showingAt);
      if (this.annotator === who && !sameQueue(q, this.queue)) this.setQueue(q);
    } catch {
      return; // the next change tries again; a failed refresh must not hide the row being worked on
    }
    const id = this.row?.id;
    const typing = () => TEXT_FIELDS.some((f) => this.timers[f] !== undefined || this.drafts[f] !== this.sent[f]);
    if (!id || this.pending > 0 || typing()) return;
    try {
      const r = await annotateRow(id, who);
      if (this.row?.id !== id || this.annotator !== who || this.pending > 0 || typing()) return;
      const shown = TEXT_FIELDS.every((f) => this.drafts[f] === (r.annotation[f] ?? ""));
      if (!shown || JSON.stringify(r.annotation) !== JSON.stringify(this.ann)) this.showAnnotation(r.annotation, true);
    } catch {
      // as above
    }
  };

  /** Works on `name`'s queue, from their first row not finished (or the first row when all are). */
  choose = async (name: string): Promise<void> => {
    this.flushText();
    this.flushTime();
    this.annotator = name;
    if (!this.fixed) picksFor(this.projectPath).annotator = name;
    this.row = null;
    this.showing = null;
    this.showingAt = 0;
    this.ann = null;
    this.queue = null;
    let start: QueueRow | null;
    try {
      const first = await annotateNextOpen(name, null);
      const q = await this.readWindow(name, first ? first.position - 1 : 0);
      if (this.annotator !== name) return;
      this.setQueue(q);
      start = first ?? q.rows[0] ?? null;
      this.loadError = null;
    } catch (e) {
      this.loadError = IpcError.from(e);
      return;
    }
    if (start) await this.open(start.id, start.position - 1);
  };

  /** Shows a row: saves what is pending on the current one first. The time on the row left is
   *  sent once the new row is shown: its durable write (an fsync) holds the project, and the new
   *  row's read waited behind it. */
  open = async (id: string, at?: number): Promise<void> => {
    if (!this.annotator) return;
    const who = this.annotator;
    this.flushText();
    const sendTime = this.takeTime();
    this.spanMode = null;
    this.showing = id;
    if (at !== undefined) this.showingAt = at;
    try {
      const r = await annotateRow(id, who);
      if (this.showing !== id) return; // a later press asked for another row
      this.showingAt = r.position - 1;
      this.row = r;
      this.loadError = null;
      this.undone = null;
      this.confirmedNote = null;
      this.baseSeconds = Math.max(r.annotation.seconds_spent, this.knownSeconds[id] ?? 0);
      this.knownSeconds[id] = this.baseSeconds;
      this.showAnnotation(r.annotation, true);
      this.hooks.rowShown?.();
      // The row is shown first; the rail's window moves after it when the row left its middle.
      await this.follow(who, this.showingAt);
      if (this.showing !== id) return;
      await tick();
      this.hooks.railSettled?.();
    } catch (e) {
      this.loadError = IpcError.from(e);
    } finally {
      sendTime?.();
    }
  };

  /** `n`/`p`: the next or previous row of the queue (the window moves first when a run of presses
   *  ran past it). */
  step = async (by: number): Promise<void> => {
    const who = this.annotator;
    if (!this.showing || !this.queue || !who || this.total === 0) return;
    const next = Math.min(this.total - 1, Math.max(0, this.showingAt + by));
    if (next === this.showingAt) return;
    this.showingAt = next;
    let q: QueuePage | null = this.queue;
    if (next < q.offset || next >= q.offset + q.rows.length) {
      q = await this.readWindow(who, next).catch((e) => ((this.loadError = IpcError.from(e)), null));
      if (!q || this.annotator !== who || this.showingAt !== next) return;
      this.setQueue(q);
    }
    void this.open(q.rows[next - q.offset].id, next);
  };

  /** `N`: the next row not finished (going round); on a finished queue it says so. */
  nextUnfinished = async (): Promise<void> => {
    const who = this.annotator;
    if (!this.showing || !who) return;
    const from = this.showing;
    try {
      const q = await annotateNextOpen(who, from);
      if (q && q.id !== from && this.showing === from && this.annotator === who) void this.open(q.id, q.position - 1);
      // On a finished queue `N` says so rather than doing nothing.
      else if (this.showing === from && this.annotator === who)
        this.undone = q ? "This is the only row not finished yet." : "All done: every row in this queue is finished.";
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
  };

  // --- Changes ---------------------------------------------------------------------------
  /** Takes an annotation from the core; text drafts follow it only when asked (load, undo). */
  private showAnnotation(a: Annotation, texts: boolean) {
    this.ann = a;
    if (texts) {
      for (const f of TEXT_FIELDS) {
        this.drafts[f] = a[f] ?? "";
        this.sent[f] = this.drafts[f];
      }
    }
    this.patchQueue(a.candidate_id, { decision: a.decision, finished: a.finished, started: a.events > 0 });
  }

  private mineKey(who: string, id: string) {
    return `${who}\u0000${id}`;
  }

  /** Queues one durable change; changes are sent one after another, in order. */
  private save(field: Field, value: string | null) {
    if (!this.row || !this.annotator) return;
    // A new change makes what the last undo or confirmation said out of date.
    [this.undone, this.confirmedNote] = [null, null];
    const [id, who] = [this.row.id, this.annotator];
    const key = this.mineKey(who, id);
    this.pending += 1;
    this.chain = this.chain.then(async () => {
      try {
        const a = await setField(id, who, field, value);
        this.mine[key] = (this.mine[key] ?? 0) + 1;
        this.reachBack = null;
        this.saveError = null;
        if (this.row?.id === id && this.annotator === who) this.showAnnotation(a, false);
        else this.patchQueue(id, { decision: a.decision, finished: a.finished, started: true });
      } catch (e) {
        this.saveError = IpcError.from(e);
      } finally {
        this.pending -= 1;
      }
    });
  }

  /** A choice (decision, axis, severity, boundary type): shown at once, then saved. */
  pick = (field: "decision" | "axis" | "severity" | "boundary_type", value: string | number): void => {
    const ann = this.ann;
    if (!ann) return;
    // The value it already has (and not a suggestion to confirm) records nothing.
    if (String(ann[field] ?? "") === String(value) && !this.isSuggested(field)) return;
    this.reachBack = null;
    this.ann = { ...ann, [field]: value };
    this.save(field, String(value));
  };

  /** Saves a text field now (leaving it), when it differs from what was sent. */
  saveText = (f: TextField): void => {
    clearTimeout(this.timers[f]);
    delete this.timers[f];
    if (this.drafts[f] === this.sent[f]) return;
    this.sent[f] = this.drafts[f];
    this.save(f, this.drafts[f].trim() === "" ? null : this.drafts[f]);
  };

  /** A key typed in a text field: saved after a pause. */
  typed = (f: TextField): void => {
    clearTimeout(this.timers[f]);
    this.timers[f] = setTimeout(() => this.saveText(f), TEXT_PAUSE_MS);
  };

  flushText(): void {
    for (const f of TEXT_FIELDS) if (this.timers[f] !== undefined || this.drafts[f] !== this.sent[f]) this.saveText(f);
  }

  /** `u`: undoes this session's last change on the row; past them, only on a second press. */
  undo = (): void => {
    if (!this.row || !this.annotator) return;
    this.flushText();
    const [id, who] = [this.row.id, this.annotator];
    const key = this.mineKey(who, id);
    this.pending += 1;
    this.chain = this.chain.then(async () => {
      try {
        const before = this.row?.id === id ? this.ann : null;
        const earlier = (this.mine[key] ?? 0) === 0;
        if (earlier && before?.can_undo && this.reachBack !== key) {
          this.reachBack = key;
          this.undone =
            "Nothing you did here this session is left to undo; u again undoes an earlier change (an import or an earlier session).";
          return;
        }
        const a = await undoChange(id, who);
        this.saveError = null;
        if (!earlier) this.mine[key] -= 1;
        if (this.row?.id === id) {
          const said = before ? describeUndo(before, a) : null;
          this.undone = earlier && said ? `${said.replace(/\.$/, "")} (a change made before this session).` : said;
          this.showAnnotation(a, true);
        }
      } catch (e) {
        this.saveError = IpcError.from(e);
      } finally {
        this.pending -= 1;
      }
    });
  };

  /** `y`: confirms every suggested field shown (pre-filled mode), or in `beside` mode copies
   *  every suggestion shown into its empty field; says which fields, visibly. */
  confirmShown = (): void => {
    const { row, annotator, ann } = this;
    if (!row || !annotator || !ann) return;
    if (row.suggestion_mode === "beside") {
      // Only into empty fields: a key never overwrites a value the annotator chose.
      const filled = (f: Field) =>
        f === "repair" ? this.drafts.repair.trim() !== "" : f === "evidence_span" ? ann.evidence_span !== null : ann[f] !== null;
      const offers = this.besideOffers.filter(([f]) => !filled(f));
      // A row started while suggestions were pre-filled keeps them as suggestions to confirm
      // after the lead switched to `beside`: `y` confirms those.
      if (offers.length === 0 && ann.suggested.length === 0) {
        this.confirmedNote = "No suggestion left to use.";
        return;
      }
      if (offers.length > 0) {
        for (const [f, v] of offers) this.useSuggestion(f, v);
        this.confirmedNote = `Used the suggested ${joinAnd(offers.map(([f]) => FIELD_NAMES[f] ?? f))}.`;
        return;
      }
    }
    if (ann.suggested.length === 0) {
      this.confirmedNote = row.suggestion_mode === "hidden" ? "Suggestions are hidden in this project." : "Nothing left to confirm.";
      return;
    }
    this.flushText();
    const [id, who, names, n] = [row.id, annotator, this.suggestedNames, ann.suggested.length];
    const key = this.mineKey(who, id);
    this.pending += 1;
    this.chain = this.chain.then(async () => {
      try {
        const a = await confirmSuggestions(id, who);
        // One confirmation per field, each undone by its own `u`.
        this.mine[key] = (this.mine[key] ?? 0) + n;
        this.reachBack = null;
        this.saveError = null;
        if (this.row?.id === id && this.annotator === who) {
          this.confirmedNote = `Confirmed ${names}.`;
          this.showAnnotation(a, false);
        }
      } catch (e) {
        this.saveError = IpcError.from(e);
      } finally {
        this.pending -= 1;
      }
    });
  };

  /** Copies one suggestion shown beside its field into the field (`beside` mode's "use"). */
  useSuggestion = (f: Field, v: string): void => {
    if (!this.ann) return;
    if (f === "repair") {
      clearTimeout(this.timers.repair);
      delete this.timers.repair;
      this.drafts.repair = v;
      this.sent.repair = v;
      this.save("repair", v);
    } else if (f === "axis" || f === "severity") {
      this.pick(f, f === "severity" ? Number(v) : v);
    } else if (this.row) {
      const at = this.row.passage.indexOf(v);
      if (at !== -1) this.saveSpan(at, at + v.length);
    }
  };

  // --- The evidence span -------------------------------------------------------------------
  private saveSpan(from: number, to: number) {
    const row = this.row;
    if (!row) return;
    const r = trimRange(row.passage, from, to);
    if (r.to <= r.from) return;
    const span = spanOf(row.passage, r.from, r.to);
    if (this.ann && JSON.stringify(this.ann.evidence_span) === JSON.stringify(span) && !this.isSuggested("evidence_span")) return;
    this.ann = this.ann ? { ...this.ann, evidence_span: span } : this.ann;
    this.save("evidence_span", JSON.stringify(span));
  }

  /** A span selected with the mouse, as string indexes into the passage. */
  selectSpan = (from: number, to: number): void => {
    this.spanMode = null;
    this.saveSpan(Math.min(from, to), Math.max(from, to));
  };

  /** `s`: chooses the span with the keyboard, starting from the span saved (or the first word). */
  startSpanMode(): void {
    if (!this.row || this.passageWords.length === 0) return;
    this.spanMode = spanFrom(this.passageWords, this.spanRange);
  }

  /** A key while choosing the span: ← → move its start, Shift+← → its end, Enter saves, Esc
   *  cancels, ⌫ clears the saved span. */
  private spanKey(e: KeyPress) {
    if (!this.spanMode) return;
    const words = this.passageWords;
    const next = moveSpan(this.spanMode, e, words.length);
    if (next === "save") this.saveSpan(words[this.spanMode.a].from, words[this.spanMode.b].to);
    if (next === "clear") {
      this.ann = this.ann ? { ...this.ann, evidence_span: null } : this.ann;
      this.save("evidence_span", null);
    }
    this.spanMode = typeof next === "string" ? null : next;
  }

  // --- Keyboard ----------------------------------------------------------------------------
  /** A key pressed anywhere in the window; `typing` when it went to a text field or a select.
   *  Null when the model did not take it (its default stays); else what the view does next. */
  keydown(e: KeyPress, typing: boolean): KeyOutcome | null {
    if (this.showGuide || e.defaultPrevented) return null;
    if (typing) return e.key === "Escape" ? { focus: "leave-field" } : null;
    if (!this.row || !this.annotator) return null;
    if (this.spanMode && !e.ctrlKey && !e.metaKey && !e.altKey) {
      this.spanKey(e);
      return {};
    }
    const c = annotateCommand(e);
    if (!c || (this.spanMode && c.do !== "undo")) return null;
    switch (c.do) {
      case "pick":
        this.pick(c.field, c.value);
        return {};
      case "step":
        void this.step(c.by);
        return {};
      case "next-open":
        void this.nextUnfinished();
        return {};
      case "undo":
        this.undo();
        return {};
      case "confirm":
        this.confirmShown();
        return {};
      case "span":
        this.startSpanMode();
        return {};
      case "guide":
        this.showGuide = true;
        return {};
      case "boundary":
        return { focus: "boundary" };
      case "notes":
        return { focus: "notes" };
    }
  }
}
