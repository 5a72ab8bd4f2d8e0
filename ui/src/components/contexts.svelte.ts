// The state of the contexts view (screening and drafting before candidacy), kept out of the
// component so it is tested in node: the contexts with their stages and counts, the one in focus,
// its current draft and every suggestion's record, the draft text typed and not saved yet, what
// is waiting to be confirmed, and what the keys do. Every rule (a drop needs a reason, what may
// be drafted, what promotion refuses) is the core's; a refusal is shown as the core sent it.
import type { ContextCounts } from "../bindings/ContextCounts";
import type { ContextRow } from "../bindings/ContextRow";
import type { DraftRow } from "../bindings/DraftRow";
import type { SuggestionRecord } from "../bindings/SuggestionRecord";
import { IpcError } from "../lib/ipc/call";
import { contextsCounts, contextsList, contextsScreen, draftExclude, draftList, draftPromote, draftSet } from "../lib/ipc/contexts";
import { draftRecords } from "../lib/ipc/drafting";
import type { KeyPress, KeyTarget } from "../lib/keys";
import { holdWork } from "../lib/leave";
import { plural } from "../lib/plural";

/** The exclusion reasons, in the order their number keys pick them. */
export const REASONS: { value: string; label: string }[] = [
  { value: "no_visible_boundary", label: "No visible boundary" },
  { value: "passage_unavailable", label: "Passage unavailable" },
  { value: "needs_outside_knowledge", label: "Needs outside knowledge" },
  { value: "changes_entity_or_target", label: "Changes entity or target" },
  { value: "ordinary_addition", label: "Ordinary addition" },
];

export const reasonLabel = (value: string | null | undefined) => REASONS.find((r) => r.value === value)?.label ?? value ?? "";

/** The draft's fields, in the order of the form. */
export const DRAFT_FIELDS = ["evidence_span", "calibrated_claim", "raised_claim", "repair", "rationale", "axis", "severity"] as const;
export type DraftField = (typeof DRAFT_FIELDS)[number];

/** Who the view records as doing each step (the command line's default). */
export const BY = "the lead";

/** A step that changes a saved decision or cannot be undone, waiting for the person to confirm. */
export type Confirm =
  | { kind: "screen"; id: string; keep: boolean; reason: string | null; was: string }
  | { kind: "exclude"; id: string; reason: string }
  | { kind: "promote"; ids: string[] }
  | { kind: "promote-all"; count: number; withProblems: number };

/** Draft text typed and not saved yet, per context and field. Kept at module level so switching
 *  to another view and back shows it again instead of dropping it; closing the window with some
 *  left asks first (lib/leave.ts). */
const typing: Record<string, Partial<Record<DraftField, string>>> = $state({});

export function unsavedContexts(): string[] {
  return Object.keys(typing).filter((id) => Object.keys(typing[id] ?? {}).length > 0);
}

/** The view's state while the view is shown: the window closing saves its typed text first. */
let shown: ContextsState | null = null;

// Registered once, for the window's life: typed text the view could not save stays named after
// the view has closed (another view is shown), so closing the window still asks.
holdWork({
  flush: () => shown?.flushAll() ?? Promise.resolve(),
  loss: () => {
    const ids = unsavedContexts();
    return ids.length ? `draft text of ${ids.join(", ")}, not saved yet` : null;
  },
});

export class ContextsState {
  rows = $state.raw<ContextRow[]>([]);
  drafts = $state.raw<Record<string, DraftRow>>({});
  counts = $state.raw<ContextCounts | null>(null);
  records = $state.raw<SuggestionRecord[]>([]);
  at = $state(0);
  /** A reason is being picked (number keys) for dropping the context or excluding its draft. */
  picking = $state<"drop" | "exclude" | null>(null);
  note = $state("");
  confirm = $state.raw<Confirm | null>(null);
  /** The row the person asked to go to while draft text could not be saved: asked first. */
  leaving = $state<number | null>(null);
  error = $state.raw<IpcError | null>(null);
  /** What the last step did, in words (for the status line). */
  done = $state("");
  private recordsFor = "";
  /** The text of each field being saved now, by `context/field`. */
  private readonly saving = new Map<string, string>();

  constructor() {
    shown = this;
  }

  /** This state is no longer the view's (the view closed). */
  release() {
    if (shown === this) shown = null;
  }

  get current(): ContextRow | null {
    return this.rows[this.at] ?? null;
  }

  get draft(): DraftRow | null {
    const c = this.current;
    return c ? (this.drafts[c.id] ?? null) : null;
  }

  /** The drafts waiting for promotion or exclusion, and how many of them promotion would refuse. */
  get waiting(): { count: number; withProblems: number } {
    const w = Object.values(this.drafts).filter((d) => d.stage === "drafted");
    return { count: w.length, withProblems: w.filter((d) => d.problems.length > 0).length };
  }

  /** What a field shows: the text typed and not saved yet, else the current draft's value. */
  value(field: DraftField): string {
    const c = this.current;
    const typed = c ? typing[c.id]?.[field] : undefined;
    return typed ?? this.draft?.fields[field] ?? "";
  }

  isUnsaved(field: DraftField): boolean {
    const c = this.current;
    return !!c && typing[c.id]?.[field] !== undefined;
  }

  get unsaved(): boolean {
    const c = this.current;
    return !!c && Object.keys(typing[c.id] ?? {}).length > 0;
  }

  async load() {
    try {
      const [rows, drafts, counts] = await Promise.all([contextsList(), draftList(), contextsCounts()]);
      // The first load opens on text left unsaved when the view last closed, if any.
      const keep = this.rows.length ? this.current?.id : (unsavedContexts()[0] ?? null);
      this.rows = rows;
      this.drafts = Object.fromEntries(drafts.map((d) => [d.context_id, d]));
      this.counts = counts;
      const again = keep ? rows.findIndex((r) => r.id === keep) : -1;
      this.at = again >= 0 ? again : Math.min(this.at, Math.max(0, rows.length - 1));
      await this.loadRecords();
    } catch (e) {
      this.error = IpcError.from(e);
    }
  }

  /** The current context's suggestions, read again when its draft version moved. */
  async loadRecords() {
    const c = this.current;
    const key = c ? `${c.id}@${c.draft_version ?? 0}` : "";
    if (key === this.recordsFor) return;
    this.recordsFor = key;
    this.records = c && c.draft_version !== null ? await draftRecords(c.id) : [];
  }

  /** Goes to row `to`; draft text typed on the row being left is saved first, and when it cannot
   *  be, the person is asked (`leaving`) instead of the text being dropped. */
  async go(to: number) {
    if (this.rows.length === 0) return;
    const next = Math.max(0, Math.min(this.rows.length - 1, to));
    if (next === this.at) return;
    if (this.unsaved) {
      await this.flush();
      if (this.unsaved) {
        this.leaving = next;
        return;
      }
    }
    this.at = next;
    this.leaving = null;
    this.picking = null;
    this.confirm = null;
    this.note = "";
    this.done = "";
    try {
      await this.loadRecords();
    } catch (e) {
      this.error = IpcError.from(e);
    }
  }

  move(step: number) {
    return this.go(this.at + step);
  }

  /** Leaves anyway, dropping the text that could not be saved (the person said so). */
  discardAndGo() {
    const c = this.current;
    const to = this.leaving;
    if (c) delete typing[c.id];
    this.leaving = null;
    this.error = null;
    return to === null ? Promise.resolve() : this.go(to);
  }

  private async step(what: () => Promise<unknown>, said: string) {
    try {
      await what();
      this.error = null;
      if (said) this.done = said;
      this.picking = null;
      this.confirm = null;
      this.note = "";
      await this.load();
    } catch (e) {
      this.error = IpcError.from(e);
      this.confirm = null;
    }
  }

  private noteText(): string | null {
    return this.note.trim() ? this.note : null;
  }

  /** Keeps the context; changing a saved drop asks first. */
  keep() {
    const c = this.current;
    if (!c) return Promise.resolve();
    if (c.screening?.decision === "drop") {
      this.confirm = { kind: "screen", id: c.id, keep: true, reason: null, was: `dropped (${reasonLabel(c.screening.reason)})` };
      return Promise.resolve();
    }
    return this.screen(c.id, true, null);
  }

  private screen(id: string, keep: boolean, reason: string | null) {
    const note = this.noteText();
    return this.step(async () => {
      const r = await contextsScreen(id, keep, reason, note, BY);
      this.done = r.changed ? `${id} ${keep ? "kept" : `dropped (${reasonLabel(reason)})`}` : `${id} was already ${keep ? "kept" : "dropped"}; nothing changed`;
    }, "");
  }

  /** Drops the context (picking "drop") or excludes its draft (picking "exclude") for a reason.
   *  A drop that changes a saved keep, and every exclusion (it is final), ask first. */
  choose(reason: string) {
    const c = this.current;
    if (!c || !this.picking) return Promise.resolve();
    const picking = this.picking;
    this.picking = null;
    if (picking === "exclude") {
      this.confirm = { kind: "exclude", id: c.id, reason };
      return Promise.resolve();
    }
    if (c.screening?.decision === "keep") {
      this.confirm = { kind: "screen", id: c.id, keep: false, reason, was: "kept" };
      return Promise.resolve();
    }
    return this.screen(c.id, false, reason);
  }

  /** Asks to promote the current context's draft (confirmed in `confirmed`). */
  promote() {
    const c = this.current;
    if (c && this.draft?.stage === "drafted") this.confirm = { kind: "promote", ids: [c.id] };
  }

  /** Asks to promote every waiting draft, with their count shown. */
  promoteAll() {
    const w = this.waiting;
    this.confirm = { kind: "promote-all", count: w.count, withProblems: w.withProblems };
  }

  /** Does what is waiting for confirmation. */
  confirmed() {
    const k = this.confirm;
    if (!k) return Promise.resolve();
    switch (k.kind) {
      case "screen":
        return this.screen(k.id, k.keep, k.reason);
      case "exclude": {
        const note = this.noteText();
        return this.step(() => draftExclude(k.id, k.reason, note, BY), `${k.id}'s draft excluded before candidacy (${reasonLabel(k.reason)})`);
      }
      case "promote":
        return this.step(async () => {
          const r = await draftPromote(k.ids, false, BY);
          this.done = `${plural(r.promoted.length, "draft")} promoted into the candidate pool: ${r.promoted.join(", ")}`;
        }, "");
      case "promote-all":
        return this.step(async () => {
          const r = await draftPromote([], true, BY);
          this.done = r.promoted.length ? `${plural(r.promoted.length, "draft")} promoted into the candidate pool: ${r.promoted.join(", ")}` : "No draft waited for promotion; nothing changed.";
        }, "");
    }
  }

  cancelConfirm() {
    this.confirm = null;
  }

  /** Text typed into a field: held until the field is left (or the row, or the view). */
  type(field: DraftField, text: string) {
    const c = this.current;
    if (!c) return;
    const saved = this.draft?.fields[field] ?? "";
    const mine = { ...(typing[c.id] ?? {}) };
    if (text === saved) delete mine[field];
    else mine[field] = text;
    typing[c.id] = mine;
  }

  /** Saves one field's typed text as a new draft version; on a refusal the text stays. */
  async save(field: DraftField) {
    const c = this.current;
    const text = c ? typing[c.id]?.[field] : undefined;
    if (!c || text === undefined) return;
    // A field left as the view closes is saved by its change event and by the close: once.
    const key = `${c.id}/${field}`;
    if (this.saving.get(key) === text) return;
    this.saving.set(key, text);
    try {
      const r = await draftSet(c.id, field, text, BY);
      const mine = { ...(typing[c.id] ?? {}) };
      if (mine[field] === text) delete mine[field];
      typing[c.id] = mine;
      this.error = null;
      this.done = r.changed ? `${c.id}: ${field} saved (draft v${r.draft.version})` : `${c.id}: ${field} unchanged`;
      await this.load();
    } catch (e) {
      this.error = IpcError.from(e);
    } finally {
      this.saving.delete(key);
    }
  }

  /** Sets a field from a choice (axis, severity): saved at once. */
  choice(field: DraftField, value: string) {
    this.type(field, value);
    return this.save(field);
  }

  /** Saves every field typed on the current context. */
  async flush() {
    const c = this.current;
    if (!c) return;
    for (const f of Object.keys(typing[c.id] ?? {}) as DraftField[]) await this.save(f);
  }

  /** Saves what was typed on any context (the window closing). */
  async flushAll() {
    await this.flush();
  }

  /** Closes the view: typed text is saved, and kept (shown again) when it cannot be. */
  close() {
    this.release();
    void this.flush();
  }

  /** The keys of the view: ↑/↓ (or j) move, k keeps, d drops, x excludes the draft, p promotes,
   *  1–5 pick a reason while one is asked for, Escape stops asking. Returns whether the key was
   *  used. Keys typed into a field stay there; while a step waits for confirmation only its
   *  buttons (or Escape) answer, so a stray key changes nothing. */
  key(e: KeyPress, target: KeyTarget): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    if (target === "field" || target === "editable") {
      if (e.key === "Escape" && (this.picking || this.confirm)) {
        this.picking = null;
        this.confirm = null;
        return true;
      }
      return false;
    }
    if (this.confirm || this.leaving !== null) {
      if (e.key === "Escape") {
        this.confirm = null;
        this.leaving = null;
        return true;
      }
      // Enter and Space belong to the focused button; every other key is held.
      return !(target === "button" && (e.key === "Enter" || e.key === " "));
    }
    if (this.picking) {
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= REASONS.length) {
        void this.choose(REASONS[n - 1].value);
        return true;
      }
      if (e.key === "Escape") {
        this.picking = null;
        return true;
      }
    }
    const c = this.current;
    switch (e.key) {
      case "ArrowDown":
      case "j":
        void this.move(1);
        return true;
      case "ArrowUp":
        void this.move(-1);
        return true;
      case "k":
        void this.keep();
        return true;
      case "d":
        if (c && (c.stage === "unscreened" || c.stage === "kept" || c.stage === "dropped")) this.picking = "drop";
        return true;
      case "x":
        if (this.draft?.stage === "drafted") this.picking = "exclude";
        return true;
      case "p":
        this.promote();
        return true;
      case "P":
        this.promoteAll();
        return true;
      default:
        return false;
    }
  }
}
