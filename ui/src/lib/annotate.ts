// The annotate view's pure parts: the queue window's arithmetic, how an undo is said, the rail's
// marks and the key map (the state and the commands are in components/annotate.svelte.ts).
import type { Annotation } from "../bindings/Annotation";
import type { Field } from "../bindings/Field";
import type { QueuePage } from "../bindings/QueuePage";
import type { QueueRow } from "../bindings/QueueRow";
import type { KeyPress } from "./keys";
import { AXES, BOUNDARY_TYPES, DECISIONS, SEVERITIES } from "./vocab";

export type TextField = "calibrated_claim" | "raised_claim" | "repair" | "notes";
export const TEXT_FIELDS: TextField[] = ["calibrated_claim", "raised_claim", "repair", "notes"];
/** A text field is saved this long after the last key typed in it (or on leaving it). */
export const TEXT_PAUSE_MS = 700;
/** The time counted on a row is sent at least this often (and on leaving the row). */
export const TIME_FLUSH_S = 30;
// The window of the queue around the current row, with the whole queue's counts: the core keeps
// the annotator's order, and the window never holds a whole queue (500,000 rows or more on a
// 1M-row project). The rail draws the window's rows, RAIL_BLOCK on each side of the current
// row's block; the window moves when the current row leaves its middle block.
export const RAIL_BLOCK = 200;

/** The offset of the window whose middle block holds position `at` (from 0). */
export const windowFrom = (at: number) => Math.max(0, Math.floor(at / RAIL_BLOCK) * RAIL_BLOCK - RAIL_BLOCK);

export const sameRow = (a: QueueRow, b: QueueRow) =>
  a.id === b.id && a.position === b.position && a.decision === b.decision && a.finished === b.finished && a.started === b.started;

/** A window just read again is kept as it is when nothing in it changed, so the rail and the
 *  progress are not redrawn for nothing (the view's own time reports change the revision). */
export function sameQueue(a: QueuePage, b: QueuePage | null): boolean {
  return (
    b !== null &&
    a.total === b.total &&
    a.finished === b.finished &&
    a.offset === b.offset &&
    a.rows.length === b.rows.length &&
    a.rows.every((r, i) => sameRow(r, b.rows[i]))
  );
}

export const FIELD_NAMES: Partial<Record<Field, string>> = { evidence_span: "span", axis: "axis", severity: "severity", repair: "repair" };
export const joinAnd = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);

/** Where the view shows a validation problem, from the field the core says it is about. */
export const PROBLEM_PLACE: Record<string, string> = {
  suggested: "suggested",
  evidence_span: "span",
  calibrated_claim: "calibrated",
  raised_claim: "raised",
  axis: "axis",
  severity: "severity",
  boundary_type: "boundary",
  repair: "repair",
  notes: "notes",
};

/** The places a row's problems are shown, in words, in the order the view shows them. */
const PLACE_WORDS: Record<string, string> = {
  decision: "the decision",
  suggested: "the suggestions",
  span: "the evidence span",
  calibrated: "the calibrated claim",
  raised: "the raised claim",
  axis: "the primary axis",
  severity: "the severity",
  boundary: "the boundary type",
  repair: "the repair",
  notes: "the notes",
};
export const problemPlaces = (by: Record<string, string[]>): string =>
  joinAnd(Object.keys(PLACE_WORDS).filter((k) => (by[k] ?? []).length > 0).map((k) => PLACE_WORDS[k]));

/** Says what an undo changed: the field and the value it went back to. */
export function describeUndo(before: Annotation, after: Annotation): string {
  const fields: [keyof Annotation, string][] = [
    ["decision", "decision"],
    ["evidence_span", "evidence span"],
    ["calibrated_claim", "calibrated claim"],
    ["raised_claim", "raised claim"],
    ["axis", "axis"],
    ["severity", "severity"],
    ["boundary_type", "boundary type"],
    ["repair", "repair"],
    ["notes", "notes"],
  ];
  const shown = (v: unknown): string => {
    if (v === null || v === undefined || v === "") return "empty";
    if (typeof v === "object" && v !== null && "text" in v) return `“${(v as { text: string }).text}”`;
    const label =
      DECISIONS.find((d) => d.value === v)?.label ??
      BOUNDARY_TYPES.find((b) => b.value === v)?.label ??
      AXES.find((x) => x.value === v)?.label;
    const text = label ?? String(v);
    return text.length > 40 ? `“${text.slice(0, 39)}…”` : label ? text : `“${text}”`;
  };
  const changed = fields.filter(([k]) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  // Undoing a confirmation changes no value: the field becomes a suggestion again.
  const unconfirmed = after.suggested.filter((f) => !before.suggested.includes(f)).map((f) => FIELD_NAMES[f] ?? f);
  if (changed.length === 0 && unconfirmed.length > 0)
    return `Undone: the confirmation of the ${joinAnd(unconfirmed)}, a suggestion again.`;
  if (changed.length === 0) return "Nothing to undo.";
  return `Undone: ${changed.map(([k, name]) => `${name} back to ${shown(after[k])}`).join("; ")}.`;
}

/** "2 min 5 s", or "42 s". */
export function fmtTime(s: number): string {
  const m = Math.floor(s / 60);
  const r = Math.round(s % 60);
  return m > 0 ? `${m} min ${r} s` : `${r} s`;
}

/** The rail's mark for a row: finished, decided, started, or nothing. */
export function marker(q: QueueRow): string {
  if (q.finished) return "✓";
  if (q.decision) return "•";
  return q.started ? "·" : "";
}

/** What a key does on a row (outside choosing a span). */
export type AnnotateCommand =
  | { do: "pick"; field: "decision" | "axis" | "severity"; value: string | number }
  | { do: "step"; by: 1 | -1 }
  | { do: "next-open" }
  | { do: "undo" }
  | { do: "confirm" }
  | { do: "span" }
  | { do: "boundary" }
  | { do: "notes" }
  | { do: "guide" };

/** The key map of the row (the legend at the bottom of the view says the same). */
export function annotateCommand(e: KeyPress): AnnotateCommand | null {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "z") return { do: "undo" };
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const k = e.key;
  const decision = DECISIONS.find((d) => d.key === k);
  const axis = AXES.find((a) => a.key === k);
  const severity = SEVERITIES.find((s) => s.key === k);
  if (decision) return { do: "pick", field: "decision", value: decision.value };
  if (axis) return { do: "pick", field: "axis", value: axis.value };
  if (severity) return { do: "pick", field: "severity", value: severity.value };
  if (k === "n" || k === "j") return { do: "step", by: 1 };
  if (k === "p" || k === "k") return { do: "step", by: -1 };
  if (k === "N") return { do: "next-open" };
  if (k === "u") return { do: "undo" };
  if (k === "y") return { do: "confirm" };
  if (k === "s") return { do: "span" };
  if (k === "t") return { do: "boundary" };
  // The notes had no key (only t Tab Tab reached them).
  if (k === "o") return { do: "notes" };
  if (k === "?" || k === "g") return { do: "guide" };
  return null;
}

/** What the view does after the model took a key: the key's default is prevented, and the
 *  focus may go somewhere (out of a field back to the view, the boundary type, the notes). */
export type KeyOutcome = { focus?: "leave-field" | "boundary" | "notes" };


/** What the model needs done in the DOM (all optional: a test has no DOM). */
export interface AnnotateHooks {
  /** Whether time counts now (the window has the focus and is shown). */
  focused?: () => boolean;
  /** A row was shown: its pane and the judgment panel scroll to the top. */
  rowShown?: () => void;
  /** The rail's window settled around the row shown: the current entry scrolls into view. */
  railSettled?: () => void;
}

/** Where choosing a span with the keyboard starts: the words of the span saved, or the first. */
export function spanFrom(words: { from: number; to: number }[], range: { from: number; to: number } | null): { a: number; b: number } {
  let a = 0;
  let b = 0;
  if (range) {
    const first = words.findIndex((w) => w.to > range.from);
    let last = -1;
    words.forEach((w, i) => {
      if (w.from < range.to) last = i;
    });
    if (first !== -1 && last >= first) [a, b] = [first, last];
  }
  return { a, b };
}

/** A key while choosing a span of `n` words: the span's new first and last word, or what to do
 *  with it ("save" it, "cancel", "clear" the saved one). */
export function moveSpan(span: { a: number; b: number }, e: KeyPress, n: number): { a: number; b: number } | "save" | "cancel" | "clear" {
  let { a, b } = span;
  if (e.key === "ArrowRight" && e.shiftKey) b = Math.min(n - 1, b + 1);
  else if (e.key === "ArrowLeft" && e.shiftKey) b = Math.max(a, b - 1);
  else if (e.key === "ArrowRight") {
    a = Math.min(n - 1, a + 1);
    b = Math.max(a, b);
  } else if (e.key === "ArrowLeft") a = Math.max(0, a - 1);
  else if (e.key === "Home") [a, b] = [0, 0];
  else if (e.key === "Enter") return "save";
  else if (e.key === "Escape") return "cancel";
  else if (e.key === "Backspace" || e.key === "Delete") return "clear";
  return { a, b };
}
