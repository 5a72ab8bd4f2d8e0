// The adjudicate view's helpers, kept out of the component so they read in one place: the value
// a choice takes, how stored values read for people, and the passage cut around two spans at
// once (A's and B's). The rules themselves come from the core with every row: which fields a
// final decision needs and which sources need a rationale (`RowView.rules`), the checklist's
// questions, and where a final value comes from (`FieldRow.sources`, in the core's order). The
// core checks every resolution again.
import type { AffirmReport } from "../bindings/AffirmReport";
import type { Category } from "../bindings/Category";
import type { Checklist } from "../bindings/Checklist";
import type { Choice } from "../bindings/Choice";
import type { Decision } from "../bindings/Decision";
import type { Field } from "../bindings/Field";
import type { FieldRow } from "../bindings/FieldRow";
import type { Rules } from "../bindings/Rules";
import type { RowView } from "../bindings/RowView";
import type { Source } from "../bindings/Source";
import { AXES, BOUNDARY_TYPES, severityLabel } from "./vocab";
import { locate, spanOf, type ByteSpan } from "./text";
import type { KeyPress, KeyTarget } from "./keys";

export const FIELD_LABELS: Record<string, string> = {
  decision: "Decision",
  evidence_span: "Evidence span",
  calibrated_claim: "Calibrated claim",
  raised_claim: "Raised claim",
  axis: "Axis",
  severity: "Severity",
  repair: "Repair",
  boundary_type: "Boundary type",
  // Also in a row's history:
  rationale: "Rationale",
  checklist: "Checklist",
};

/** The decisions a final label may have (needs_discussion is for annotators only). */
export const FINAL_DECISIONS: { value: Decision; label: string }[] = [
  { value: "accept_force_gap", label: "Accept: force gap" },
  { value: "reject_not_force_gap", label: "Reject: not a force gap" },
];

/** The fields a final decision needs besides itself, as the core sent them. */
export function needed(rules: Rules | undefined, decision: string | null | undefined): Field[] {
  return (decision && rules?.needed[decision as Decision]) || [];
}

/** The stored value a choice gives a field. */
export function valueOf(choice: Choice, row: FieldRow): string | null {
  if (choice.take === "a") return row.a;
  if (choice.take === "b") return row.b;
  if (choice.take === "suggestion") return row.suggestion;
  return choice.value;
}

/** Where a final value comes from, as the core will record it: the first of the field's
 * sources (in the core's order) that gives it, else edited. */
export function sourceOf(value: string | null, row: FieldRow): Source {
  return row.sources.find((s) => s.value === value)?.source ?? "edited";
}

/** Whether a value from this source needs a rationale (it overrides both annotators). */
export const needsRationale = (rules: Rules | undefined, s: Source | null) => !!s && !!rules?.needs_rationale.includes(s);

/** The checklist's questions as the core asks them, capitalised for a line of their own. */
export function checklistQuestions(rules: Rules | undefined): { key: keyof Checklist; label: string }[] {
  return (rules?.checklist ?? []).map((q) => ({
    key: q.key as keyof Checklist,
    label: q.question.charAt(0).toUpperCase() + q.question.slice(1),
  }));
}

export const SOURCE_LABELS: Record<string, string> = {
  both: "both",
  a: "A",
  b: "B",
  suggestion: "suggestion",
  edited: "edited",
  // History only: a field the new decision no longer needs, and a bulk confirmation.
  dropped: "dropped",
  bulk: "bulk",
};

/** A stored span (JSON `{text,start,end}`), or null when absent or unreadable. */
export function parseSpan(value: string | null | undefined): ByteSpan | null {
  if (!value) return null;
  try {
    const s = JSON.parse(value) as ByteSpan;
    return typeof s.text === "string" && typeof s.start === "number" && typeof s.end === "number" ? s : null;
  } catch {
    return null;
  }
}

const DECISION_SHORT: Record<string, string> = {
  accept_force_gap: "Accept",
  reject_not_force_gap: "Reject",
  needs_discussion: "Needs discussion",
};

/** A stored value as people read it ("—" for none). */
export function shown(field: Field, value: string | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  switch (field) {
    case "decision":
      return DECISION_SHORT[value] ?? value;
    case "evidence_span":
      return parseSpan(value)?.text ?? value;
    case "axis":
      return AXES.find((a) => a.value === value)?.label ?? value;
    case "severity":
      return severityLabel(Number(value));
    case "boundary_type":
      return BOUNDARY_TYPES.find((b) => b.value === value)?.label ?? value;
    default:
      return value;
  }
}

/** A stored time as people read it: `2025-03-04 09:15:02 UTC`. */
export function fmtAt(at: string): string {
  return at.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
}

export const decisionShort = (d: string | null | undefined) => (d ? (DECISION_SHORT[d] ?? d) : "—");

export interface TwoPiece {
  text: string;
  a: boolean;
  b: boolean;
}

/** The passage cut so that A's and B's spans (byte offsets) can be marked at once; they may overlap. */
export function cutTwo(passage: string, a: ByteSpan | null, b: ByteSpan | null): TwoPiece[] {
  const ra = locate(passage, a);
  const rb = locate(passage, b);
  const cuts = new Set<number>([0, passage.length]);
  for (const r of [ra, rb]) if (r) [r.from, r.to].forEach((x) => cuts.add(x));
  const points = [...cuts].sort((x, y) => x - y);
  const inside = (r: { from: number; to: number } | null, at: number) => r !== null && at >= r.from && at < r.to;
  const pieces: TwoPiece[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const [from, to] = [points[i], points[i + 1]];
    if (to <= from) continue;
    pieces.push({ text: passage.slice(from, to), a: inside(ra, from), b: inside(rb, from) });
  }
  return pieces;
}

// --- The view's model's pure parts (components/adjudicate.svelte.ts) ---------------------------

export const CATEGORIES: { value: Category; label: string }[] = [
  { value: "decision_disagreement", label: "Decision disagreements" },
  { value: "needs_discussion", label: "Needs discussion" },
  { value: "field_disagreement", label: "Field disagreements" },
  { value: "full_agreement", label: "Full agreements" },
];
export const EDITED_TEXT_FIELDS: Field[] = ["calibrated_claim", "raised_claim", "repair"];
// The queue comes from the core a page at a time, filtered and counted there: a
// 1,000,000-row project's whole queue was a million items, read twice on every change.
export const PAGE = 200;

/** A field's draft final value and where it comes from. */
export type Draft = { value: string | null; how: "chosen" | "recorded" | "agreed" | "open" };
export type Filter = { axis: string; source: string; pair: string; open_only: boolean };

/** Every question of the row's checklist unanswered: what a row starts from, and what
 *  "unchanged" compares with. */
export const unanswered = (r: RowView | null): Checklist =>
  Object.fromEntries(checklistQuestions(r?.rules).map((q) => [q.key, null])) as unknown as Checklist;

/** Whether the adjudicator may take A's, B's or the suggestion's value of a field (there is one,
 *  and "needs discussion" is never a final decision). */
export function canTake(f: FieldRow, take: "a" | "b" | "suggestion"): boolean {
  const v = take === "a" ? f.a : take === "b" ? f.b : f.suggestion;
  if (v === null) return false;
  return f.field !== "decision" || v !== "needs_discussion";
}

/** Where a saved row stands, in a few words, for the note shown once the view has moved on
 *  (whether QC holds it back is the core's word: `held_back_by_qc`). */
export function savedOutcome(r: RowView): string {
  if (r.adjudication?.decision !== "accept_force_gap") return "rejected";
  return r.held_back_by_qc ? "held back by QC" : "accepted";
}

/** What a key does on a row. */
export type AdjudicateCommand =
  | { do: "take"; which: "a" | "b" | "suggestion" }
  | { do: "edit" }
  | { do: "move"; by: 1 | -1; conflicts: boolean }
  | { do: "step"; by: 1 | -1 }
  | { do: "rationale" }
  | { do: "check"; n: number }
  | { do: "hide" };

/** The key map of a row (the legend at the bottom of the view says the same). `Enter` edits
 *  unless it went to a button (which it clicks). */
export function adjudicateCommand(e: KeyPress, target: KeyTarget = "other"): AdjudicateCommand | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const k = e.key;
  if (k === "a") return { do: "take", which: "a" };
  if (k === "b") return { do: "take", which: "b" };
  if (k === "s") return { do: "take", which: "suggestion" };
  if (k === "e" || (k === "Enter" && target !== "button")) return { do: "edit" };
  if (k === "j" || k === "n") return { do: "move", by: 1, conflicts: true };
  if (k === "k" || k === "p") return { do: "move", by: -1, conflicts: true };
  if (k === "ArrowDown") return { do: "move", by: 1, conflicts: false };
  if (k === "ArrowUp") return { do: "move", by: -1, conflicts: false };
  if (k === "]") return { do: "step", by: 1 };
  if (k === "[") return { do: "step", by: -1 };
  if (k === "r") return { do: "rationale" };
  if (/^[1-9]$/.test(k)) return { do: "check", n: Number(k) };
  if (k === "h") return { do: "hide" };
  return null;
}

/** What the view does after the model took a key: its default is prevented, and the focus may
 *  go somewhere (out of a field back to the view, to the rationale). */
export type KeyOutcome = { focus?: "leave-field" | "rationale" };


/** What the model needs done in the DOM (all optional: a test has no DOM). */
export interface AdjudicateHooks {
  /** A row was shown: its pane scrolls to the top. */
  rowShown?: () => void;
  /** The queue settled around the row shown: its entry scrolls into view. */
  itemSettled?: () => void;
  /** The "unsaved changes" question is shown: its Stay button takes the focus. */
  leaveAsked?: () => void;
  /** The bulk confirmation is asked: its Confirm button takes the focus. */
  bulkAsked?: () => void;
  /** A field's editor opened: it takes the focus, the caret at its end. */
  editOpened?: () => void;
  /** The focused field moved: its row scrolls into view. */
  fieldFocused?: () => void;
  /** The focus goes back to the view (an edit done, "stay"). */
  focusRoot?: () => void;
  /** A rationale is missing: its box takes the focus. */
  focusRationale?: () => void;
}

/** The field `by` steps from `here` among `only` (any of `all` when empty), wrapping around. */
export function nextField(all: Field[], here: Field, by: number, only: Field[]): Field {
  const list = only.length ? only : all;
  const at = all.indexOf(here);
  for (let k = 1; k <= all.length; k++) {
    const f = all[(at + by * k + all.length * k) % all.length];
    if (list.includes(f)) return f;
  }
  return here;
}

/** What a bulk confirmation says it did. */
export const confirmedNote = (n: number, who: string) =>
  `Confirmed ${n} full agreement${n === 1 ? "" : "s"} as ${who} (logged as bulk-confirmed).`;

/** What a bulk confirmation with the promotion checks affirmed says it did. */
export const affirmedNote = (r: AffirmReport) =>
  `Confirmed ${r.confirmed} full agreement${r.confirmed === 1 ? "" : "s"} and affirmed the promotion checks of ${r.affirmed} accepted row${r.affirmed === 1 ? "" : "s"} as ${r.adjudicator} (logged as bulk).`;

/** What the field editor opens with: the draft's value (a span as its text). */
export function editableText(field: Field, draft: string | null): string {
  if (field === "evidence_span") return parseSpan(draft)?.text ?? "";
  return draft ?? "";
}

/** The editor's text in the stored form, or why it cannot be: a span must be a verbatim part of
 *  the passage (kept as it was when its text did not change), a text field empty is none, and a
 *  choice must be made. */
export function editedValue(field: Field, text: string, passage: string, draft: string | null): { value: string | null } | { error: string } {
  if (field === "evidence_span") {
    const t = text.trim();
    const at = passage.indexOf(t);
    if (!t || at === -1) return { error: "The span must be a verbatim part of the passage." };
    return { value: parseSpan(draft)?.text === t ? draft : JSON.stringify(spanOf(passage, at, at + t.length)) };
  }
  if (EDITED_TEXT_FIELDS.includes(field)) return { value: text.trim() === "" ? null : text.trim() };
  if (!text) return { error: "Choose a value." };
  return { value: text };
}
