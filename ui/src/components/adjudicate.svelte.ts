// The adjudicate view's state and logic (AdjudicateView.svelte only renders it): the queue, read
// a page at a time; the row shown; the draft final label (what is chosen per field, what it
// comes to, which fields the label has, where A and B conflict, what overrides both annotators,
// whether anything changed); the field editor; saving and moving on; the bulk confirmation; and
// which key does what. Nothing here touches the DOM: the view hands in what it needs done there
// (focus, scrolling) as hooks, so the model runs in node (tests/unit/adjudicate.test.mjs). Its
// pure parts (the key map, what a row's draft starts from) are in lib/adjudicate.ts.
import { tick } from "svelte";
import type { AdjudicationPage } from "../bindings/AdjudicationPage";
import type { AffirmReport } from "../bindings/AffirmReport";
import type { Annotator } from "../bindings/Annotator";
import type { Category } from "../bindings/Category";
import type { Checklist } from "../bindings/Checklist";
import type { Choice } from "../bindings/Choice";
import type { Field } from "../bindings/Field";
import type { FieldRow } from "../bindings/FieldRow";
import type { QcReport } from "../bindings/QcReport";
import type { QueueFilter } from "../bindings/QueueFilter";
import type { RowView } from "../bindings/RowView";
import type { Source } from "../bindings/Source";
import {
  FIELD_LABELS,
  PAGE,
  adjudicateCommand,
  affirmedNote,
  confirmedNote,
  nextField,
  canTake,
  editableText,
  editedValue,
  checklistQuestions,
  cutTwo,
  needed,
  needsRationale as rationaleNeeded,
  parseSpan,
  sourceOf,
  savedOutcome,
  unanswered,
  valueOf,
  type AdjudicateHooks,
  type Draft,
  type Filter,
  type KeyOutcome,
} from "../lib/adjudicate";
import type { KeyPress, KeyTarget } from "../lib/keys";
import { IpcError } from "../lib/ipc/call";
import { listAnnotators } from "../lib/ipc/annotate";
import { adjudicationPage, adjudicationRow, affirmPreview, confirmAgreements, confirmAndAffirm, resolveRow, runQc } from "../lib/ipc/adjudication";
import type { SessionInfo } from "../lib/ipc/project";
import { picksFor } from "../lib/picks";
import { draftOf, keepDraft, putBack, takeDraft } from "../lib/drafts";
import { holdWork } from "../lib/leave";

export class AdjudicateModel {
  people = $state.raw<Annotator[]>([]);
  adjudicator = $state<string | null>(null);
  hide = $state(false);
  mode = $state<"queue" | "locality">("queue");
  filter = $state<Filter>({ axis: "", source: "", pair: "", open_only: false });
  queue = $state.raw<AdjudicationPage | null>(null);
  row = $state.raw<RowView | null>(null);
  /** What the adjudicator chose per field since the row was shown (or saved). */
  choices = $state<Partial<Record<Field, Choice>>>({});
  rationale = $state("");
  checklist = $state<Checklist>({} as Checklist);
  /** What the last save did: the row saved and where the view went next. */
  advanced = $state<string | null>(null);
  focus = $state<Field>("decision");
  editing = $state<Field | null>(null);
  editText = $state("");
  editError = $state<string | null>(null);
  saving = $state(false);
  saved = $state(false);
  problem = $state<string | null>(null);
  saveError = $state.raw<IpcError | null>(null);
  loadError = $state.raw<IpcError | null>(null);
  confirming = $state(false);
  /** What "confirm and affirm" would do, fetched when the dialog opens. */
  affirmable = $state.raw<AffirmReport | null>(null);
  bulkNote = $state<string | null>(null);
  qcReport = $state.raw<QcReport | null>(null);
  showing = $state<string | null>(null);
  /** The row asked for while the one shown has a draft not saved yet. The view stays
   *  until the adjudicator says to discard the draft (or saves it). */
  leaving = $state<{ to: string } | null>(null);

  /** Who may adjudicate is the core's rule (`may_adjudicate`); the window does not restate it. */
  readonly adjudicators = $derived(this.people.filter((p) => p.may_adjudicate));
  readonly items = $derived(this.queue?.items ?? []);
  readonly sources = $derived(this.queue?.facets.sources ?? []);
  readonly pairs = $derived(this.queue?.facets.pairs ?? []);
  readonly openAgreements = $derived(this.queue?.counts.full_agreement?.open ?? 0);
  readonly fieldRows = $derived(this.row?.fields ?? []);
  /** The checklist's questions, in the core's order (keys 1-5 answer them). */
  readonly questions = $derived(checklistQuestions(this.row?.rules));
  /** Each field's draft final value. */
  readonly drafts = $derived(Object.fromEntries(this.fieldRows.map((f) => [f.field, this.current(f)])) as Record<string, Draft>);
  readonly finalDecision = $derived(this.drafts.decision?.how === "open" ? null : (this.drafts.decision?.value ?? null));
  readonly decided = $derived(this.finalDecision === "accept_force_gap" || this.finalDecision === "reject_not_force_gap");
  /** The fields the final label has: the decision and what it needs (all while undecided). */
  readonly relevant = $derived(
    this.decided
      ? new Set<string>(["decision", ...needed(this.row?.rules, this.finalDecision)])
      : new Set<string>(this.fieldRows.map((f) => f.field)),
  );
  /** Where j/k go: fields where A and B differ that the final label has. */
  readonly conflicts = $derived(this.fieldRows.filter((f) => f.differs && this.relevant.has(f.field)).map((f) => f.field));
  /** The fields whose final value overrides both annotators (a rationale is required). */
  readonly overriding = $derived(
    this.fieldRows.filter(
      (f) =>
        this.relevant.has(f.field) &&
        ["chosen", "recorded"].includes(this.drafts[f.field]?.how) &&
        rationaleNeeded(this.row?.rules, this.draftSource(f)),
    ),
  );
  readonly needsRationale = $derived(this.overriding.length > 0 && this.rationale.trim() === "");
  /** Whether the draft differs from what is recorded (a choice, the rationale, the checklist). */
  readonly changed = $derived(
    Object.keys(this.choices).length > 0 ||
      this.rationale !== (this.row?.adjudication?.rationale ?? "") ||
      JSON.stringify(this.checklist) !== JSON.stringify(this.row?.adjudication?.checklist ?? unanswered(this.row)),
  );
  readonly saveState = $derived(
    this.saving ? "saving" : this.saveError || this.problem ? "error" : this.changed ? "unsaved" : this.saved ? "saved" : "idle",
  );
  readonly spanA = $derived(parseSpan(this.fieldRows.find((f) => f.field === "evidence_span")?.a));
  readonly spanB = $derived(parseSpan(this.fieldRows.find((f) => f.field === "evidence_span")?.b));
  readonly passagePieces = $derived(
    (this.row ? cutTwo(this.row.candidate.passage, this.spanA, this.spanB) : []).map((p) => ({
      text: p.text,
      marked: p.a || p.b,
      tone: [p.a && "a", p.b && "b"].filter(Boolean).join(" "),
      data: { "data-a": String(p.a), "data-b": String(p.b) },
    })),
  );
  readonly nameA = $derived(this.row?.annotator_a ?? "A");
  readonly nameB = $derived(this.row?.annotator_b ?? "B");

  /** What the adjudicator picked in this project before (kept across tabs). */
  private readonly kept: ReturnType<typeof picksFor>;
  private readonly hooks: AdjudicateHooks;
  // Each request starts a generation: an answer to an earlier one arriving late is dropped.
  private generation = 0;

  private readonly project: string;
  // The window closing asks before dropping a draft (lib/leave.ts).
  private readonly release = holdWork({ flush: async () => {}, loss: () => (draftOf(this) ? `the adjudication of ${this.showing}, not saved yet` : null) });

  constructor(session: SessionInfo, hooks: AdjudicateHooks = {}) {
    this.kept = picksFor((this.project = session.project_path));
    this.hide = this.kept.hide;
    this.hooks = hooks;
  }

  /** The view closes (another view chosen): a draft is kept for when it opens again. */
  destroy(): void {
    this.release();
    const d = draftOf(this);
    if (d) keepDraft(this.project, d);
  }

  /** A field's draft final value: chosen now, recorded earlier, agreed by A and B, or open. */
  current(f: FieldRow): Draft {
    const c = this.choices[f.field];
    if (c) return { value: valueOf(c, f), how: "chosen" };
    if (f.final) return { value: f.final.value, how: "recorded" };
    if (this.row?.adjudication && f.field === "decision") return { value: this.row.adjudication.decision, how: "recorded" };
    if (f.a === f.b) return { value: f.a, how: "agreed" };
    return { value: null, how: "open" };
  }

  /** Whose value a field's draft is (A, B, both, the suggestion, an edit), or null while open. */
  draftSource = (f: FieldRow): Source | null =>
    this.drafts[f.field]?.how === "open" ? null : sourceOf(this.drafts[f.field]?.value ?? null, f);

  /** Opens the view: the roster, the adjudicator (picked before, else the first adjudicator or
   *  lead) and the page holding the first open row, shown. */
  start = async (): Promise<void> => {
    try {
      this.people = await listAnnotators();
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
    const keptName = this.adjudicators.find((p) => p.name === this.kept.adjudicator)?.name;
    this.adjudicator =
      keptName ??
      this.adjudicators.find((p) => p.role === "adjudicator")?.name ??
      this.adjudicators[0]?.name ??
      null;
    // The row of a draft kept from the last visit, else the page holding the first open row
    // (an empty id: looked for from the top).
    const draft = takeDraft(this.project);
    const first = await this.loadQueue({ openAfter: "" });
    const start = draft?.row ?? first?.next_open ?? this.items[0]?.id;
    if (start) await this.open(start);
    if (draft) this.advanced = putBack(this, draft);
  };

  /** The adjudicator chosen in the identity menu (kept for the project). */
  chooseAdjudicator = (name: string): void => {
    this.adjudicator = this.kept.adjudicator = name;
    this.bulkNote = null;
  };

  private activeFilter(): QueueFilter {
    return {
      axis: this.filter.axis || null,
      source: this.filter.source || null,
      pair: this.hide ? null : this.filter.pair || null,
      open_only: this.filter.open_only,
    };
  }

  /**
   * Reads a page of the queue: the one holding `around` (by default the row on screen) when it
   * matches the filter, else the one at `offset` (by default the page shown); with `openAfter`,
   * the next open row after that one and its page. Null when a later request overtook it.
   */
  async loadQueue(at: { around?: string | null; offset?: number; openAfter?: string } = {}): Promise<AdjudicationPage | null> {
    const ticket = ++this.generation;
    try {
      const p = await adjudicationPage({
        filter: this.activeFilter(),
        offset: at.offset ?? this.queue?.offset ?? 0,
        limit: PAGE,
        around: at.around === undefined ? this.showing : at.around,
        open_after: at.openAfter ?? null,
      });
      if (ticket !== this.generation) return null;
      // A page past the end (the queue shrank): the last page instead.
      if (p.items.length === 0 && p.matching > 0 && p.offset > 0) {
        return this.loadQueue({ around: null, offset: Math.floor((p.matching - 1) / PAGE) * PAGE });
      }
      this.queue = p;
      this.loadError = null;
      return p;
    } catch (e) {
      if (ticket === this.generation) this.loadError = IpcError.from(e);
      return null;
    }
  }

  /** The page before or after the one shown (the row on screen stays). */
  turnPage = async (by: number): Promise<void> => {
    if (!this.queue) return;
    const offset = this.queue.offset + by * PAGE;
    if (offset < 0 || offset >= this.queue.matching) return;
    await this.loadQueue({ around: null, offset });
  };

  /** The project changed (a merge, the command line, another window, or this one): the queue is
   *  read again, and the row on screen too unless the adjudicator has a draft, a save under way
   *  or a field open for editing, which are never overwritten. The row and the focus stay. */
  refreshFromProject = async (): Promise<void> => {
    await this.loadQueue();
    const id = this.showing;
    const busy = () => this.changed || this.saving || this.editing !== null;
    if (!id || busy()) return;
    try {
      const r = await adjudicationRow(id, this.hide);
      if (this.showing !== id || busy()) return;
      const keep = { focus: this.focus, saved: this.saved };
      this.show(r, true);
      ({ focus: this.focus, saved: this.saved } = keep);
    } catch {
      // the next change tries again; a failed refresh must not hide the row being worked on
    }
  };

  setFilter = <K extends keyof Filter>(key: K, value: Filter[K]): void => {
    this.filter[key] = value;
    void this.refilter();
  };

  private async refilter() {
    const p = await this.loadQueue({ offset: 0 });
    if (p && p.position === null && this.items.length) await this.open(this.items[0].id);
  }

  /** Shows row `id`. A draft not saved yet on another row is never dropped silently: the view
   *  asks first (`force` is the adjudicator's "discard and go"). The same row read again keeps
   *  its draft. */
  open = async (id: string, force = false): Promise<void> => {
    if (!force && this.changed && this.row && this.row.candidate.id !== id && !this.saving) {
      this.leaving = { to: id };
      await tick();
      this.hooks.leaveAsked?.();
      return;
    }
    this.leaving = null;
    this.showing = id;
    // A row on another page (a QC report's link): its page is shown with it.
    if (this.queue && !this.items.some((i) => i.id === id)) void this.loadQueue({ around: id });
    try {
      const r = await adjudicationRow(id, this.hide);
      if (this.showing !== id) return;
      this.show(r, false);
      this.loadError = null;
      this.hooks.rowShown?.();
      await tick();
      this.hooks.itemSettled?.();
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
  };

  /** Shows a row as the core answered it; the draft starts from its recorded label. */
  private show(r: RowView, afterSave: boolean) {
    const same = this.row?.candidate.id === r.candidate.id;
    if (!same) this.advanced = this.advanced?.includes(`Next open row: ${r.candidate.id}.`) ? this.advanced : null;
    // The same row read again (names hidden or shown, after QC): its unsaved draft stays.
    if (same && !afterSave && this.changed) {
      this.row = r;
      return;
    }
    this.row = r;
    this.choices = {};
    this.rationale = r.adjudication?.rationale ?? "";
    this.checklist = { ...unanswered(r), ...(r.adjudication?.checklist ?? {}) };
    this.editing = null;
    this.editError = null;
    this.problem = null;
    this.saveError = null;
    this.saved = afterSave;
    if (!same || !afterSave) this.focus = r.fields.find((f) => f.differs)?.field ?? "decision";
  }

  toggleHide = async (): Promise<void> => {
    this.hide = !this.hide;
    this.kept.hide = this.hide;
    if (this.hide) this.filter.pair = "";
    await this.loadQueue();
    if (this.showing) await this.open(this.showing);
  };

  /** `]` and `[`: the next or previous row of the queue, across pages. */
  step = async (by: number): Promise<void> => {
    const { items, queue } = this;
    if (!items.length || !queue) return;
    const at = items.findIndex((i) => i.id === this.showing);
    const next = at + by;
    if (at !== -1 && next >= items.length && queue.offset + items.length < queue.matching) {
      const p = await this.loadQueue({ around: null, offset: queue.offset + PAGE });
      if (p?.items.length) await this.open(p.items[0].id);
      return;
    }
    if (at !== -1 && next < 0 && queue.offset > 0) {
      const p = await this.loadQueue({ around: null, offset: Math.max(0, queue.offset - PAGE) });
      if (p?.items.length) await this.open(p.items[p.items.length - 1].id);
      return;
    }
    const to = Math.min(items.length - 1, Math.max(0, next));
    if (to !== at) await this.open(items[to].id);
  };

  // --- Choosing final values -----------------------------------------------------------------
  take = (field: Field, which: "a" | "b" | "suggestion"): void => {
    const f = this.fieldRows.find((x) => x.field === field);
    if (!f || !canTake(f, which)) return;
    this.focus = field;
    this.choices[field] = { take: which };
    this.problem = null;
  };

  startEdit = async (field: Field): Promise<void> => {
    const f = this.fieldRows.find((x) => x.field === field);
    if (!f) return;
    this.focus = field;
    this.editing = field;
    this.editError = null;
    this.editText = editableText(f.field, this.drafts[f.field]?.value ?? null);
    if (field === "decision" && !this.decided) this.editText = "";
    await tick();
    this.hooks.editOpened?.();
  };

  /** Turns the editor's text into the stored form; false (and a message) when it cannot be. */
  commitEdit = (): boolean => {
    const row = this.row;
    if (!this.editing || !row) return true;
    const field = this.editing;
    const edited = editedValue(field, this.editText, row.candidate.passage, this.drafts[field]?.value ?? null);
    if ("error" in edited) {
      this.editError = edited.error;
      return false;
    }
    const value = edited.value;
    // Unchanged: keep whatever the field had (a take stays a take).
    if (!(this.drafts[field]?.how !== "open" && this.drafts[field]?.value === value)) this.choices[field] = { take: "value", value };
    this.editing = null;
    this.editError = null;
    this.problem = null;
    this.hooks.focusRoot?.();
    return true;
  };

  cancelEdit = (): void => {
    this.editing = null;
    this.editError = null;
    this.hooks.focusRoot?.();
  };

  /** A key in the field editor: Escape cancels, Enter (without Shift) commits. True when taken. */
  editKey(e: KeyPress): boolean {
    if (e.key === "Escape") {
      this.cancelEdit();
      return true;
    }
    if (e.key === "Enter" && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) {
      this.commitEdit();
      return true;
    }
    return false;
  }

  setCheck = (key: keyof Checklist, answer: boolean): void => {
    this.checklist[key] = this.checklist[key] === answer ? null : answer;
  };

  /** A checklist item's key (1 to 5): unanswered, then yes, then no, then unanswered again. */
  cycleCheck(key: keyof Checklist): void {
    const now = this.checklist[key];
    this.checklist[key] = now === null || now === undefined ? true : now ? false : null;
  }

  // --- Saving --------------------------------------------------------------------------------
  /** Saves the draft (one durable resolve_row), then shows the next open row of the queue. */
  save = async (): Promise<void> => {
    const { row, adjudicator } = this;
    if (!row || !adjudicator || this.saving) return;
    if (this.editing && !this.commitEdit()) return;
    this.leaving = null;
    this.saveError = null;
    if (!this.decided) {
      this.problem = "Choose a final decision first: take A, take B or edit it (accept or reject).";
      this.focus = "decision";
      return;
    }
    const unsettled = this.fieldRows.filter((f) => this.relevant.has(f.field) && this.drafts[f.field]?.how === "open");
    if (unsettled.length) {
      this.problem = `Settle ${unsettled.map((f) => FIELD_LABELS[f.field].toLowerCase()).join(", ")} first: take A, take B or edit.`;
      this.focus = unsettled[0].field;
      return;
    }
    if (this.needsRationale) {
      this.problem = `A rationale is required: ${this.overriding.map((f) => FIELD_LABELS[f.field].toLowerCase()).join(", ")} overrides both annotators.`;
      this.hooks.focusRationale?.();
      return;
    }
    this.problem = null;
    const sent = this.fieldRows
      .filter((f) => this.relevant.has(f.field) && this.choices[f.field])
      .map((f) => [f.field, this.choices[f.field]!] as [Field, Choice]);
    const earlier = row.adjudication?.rationale ?? null;
    const text = this.rationale.trim();
    const resolution = {
      choices: sent,
      rationale: text !== "" ? text : earlier ? "" : null,
      checklist: { ...this.checklist },
    };
    const id = row.candidate.id;
    this.saving = true;
    try {
      const r = await resolveRow(id, adjudicator, resolution, this.hide);
      // A bulk note or a QC report from before this save no longer describes the queue.
      [this.bulkNote, this.qcReport] = [null, null];
      if (this.row?.candidate.id === id) this.show(r, true);
      const outcome = savedOutcome(r);
      // On to the next row still open in this queue (after this one, then from the top): the
      // core finds it and answers the page holding it.
      const p = await this.loadQueue({ openAfter: id });
      const next = p?.next_open ?? null;
      if (this.row?.candidate.id === id) {
        if (next) {
          this.advanced = `Saved ${id} (${outcome}). Next open row: ${next}.`;
          await this.open(next);
        } else {
          this.advanced = `Saved ${id} (${outcome}). No open row is left in this queue.`;
        }
      }
    } catch (e) {
      this.saveError = IpcError.from(e);
    } finally {
      this.saving = false;
    }
  };

  /** "Stay": back to the row with its draft, the row asked for not shown. */
  stay = (): void => {
    this.leaving = null;
    this.hooks.focusRoot?.();
  };

  /** "Discard changes, open …": the row asked for, the draft dropped. */
  discard = (): void => {
    if (this.leaving) void this.open(this.leaving.to, true);
  };

  confirmBulk = (): Promise<void> => this.bulk(async (who) => confirmedNote(await confirmAgreements(who), who));

  confirmAffirm = (): Promise<void> => this.bulk(async (who) => affirmedNote(await confirmAndAffirm(who)));

  /** One of the bulk confirmations, in the adjudicator's name; the queue and the row read again. */
  private async bulk(run: (adjudicator: string) => Promise<string>): Promise<void> {
    const adjudicator = this.adjudicator;
    if (!adjudicator) return;
    this.confirming = false;
    try {
      this.bulkNote = await run(adjudicator);
      await this.loadQueue();
      if (this.showing) await this.open(this.showing);
    } catch (e) {
      this.bulkNote = `Not confirmed: ${IpcError.from(e).message}`;
    }
  }

  askBulk = async (): Promise<void> => {
    this.bulkNote = null;
    this.affirmable = null;
    if (this.adjudicator)
      affirmPreview(this.adjudicator).then((r) => (this.affirmable = r), () => (this.affirmable = null));
    this.confirming = true;
    await tick();
    this.hooks.bulkAsked?.();
  };

  qc = async (): Promise<void> => {
    try {
      this.qcReport = await runQc();
      if (this.showing) await this.open(this.showing);
      await this.loadQueue();
    } catch (e) {
      this.saveError = IpcError.from(e);
    }
  };

  switchMode = async (next: "queue" | "locality"): Promise<void> => {
    this.mode = next;
    if (next === "queue") {
      await this.loadQueue();
      if (this.showing) await this.open(this.showing);
    }
  };

  // --- Keyboard ------------------------------------------------------------------------------
  /** The next (or previous) field after the focused one among `only` (all when empty), wrapping. */
  moveFocus(by: number, only: Field[]): void {
    this.focus = nextField(this.fieldRows.map((f) => f.field), this.focus, by, only);
    void tick().then(() => this.hooks.fieldFocused?.());
  }

  /** A key pressed anywhere in the window, and what it went to. Null when the model did not take
   *  it (its default stays); else what the view does next. */
  keydown(e: KeyPress, target: KeyTarget = "other"): KeyOutcome | null {
    // `l` switches between the queue and the locality audit from either.
    if (target !== "field" && !e.ctrlKey && !e.metaKey && !e.altKey && e.key === "l" && !this.confirming && !this.leaving) {
      void this.switchMode(this.mode === "queue" ? "locality" : "queue");
      return {};
    }
    if (e.defaultPrevented || this.mode !== "queue") return null;
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      void this.save();
      return {};
    }
    if (target === "field" || target === "editable") return e.key === "Escape" ? { focus: "leave-field" } : null;
    if (this.leaving && e.key === "Escape") {
      this.stay();
      return {};
    }
    if (!this.row || this.confirming || this.leaving) return null;
    const c = adjudicateCommand(e, target);
    if (!c) return null;
    switch (c.do) {
      case "take":
        this.take(this.focus, c.which);
        return {};
      case "edit":
        void this.startEdit(this.focus);
        return {};
      case "move":
        this.moveFocus(c.by, c.conflicts ? this.conflicts : []);
        return {};
      case "step":
        void this.step(c.by);
        return {};
      case "rationale":
        return { focus: "rationale" };
      case "check":
        if (c.n > this.questions.length) return null;
        this.cycleCheck(this.questions[c.n - 1].key);
        return {};
      case "hide":
        void this.toggleHide();
        return {};
    }
  }
}
