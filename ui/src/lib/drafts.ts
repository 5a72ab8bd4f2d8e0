// An adjudication draft kept while the Adjudicate view is closed: going to another view and back
// (Alt+4, a tab) shows the row again with the draft as it was left, instead of dropping it. Kept
// in memory for the window's life, one per project; closing the window with a draft kept asks
// first (lib/leave.ts).
import type { Checklist } from "../bindings/Checklist";
import type { Choice } from "../bindings/Choice";
import type { Field } from "../bindings/Field";
import type { RowView } from "../bindings/RowView";
import { holdWork } from "./leave";

export type KeptDraft = {
  row: string;
  /** The row's recorded adjudication the draft was made against: a draft is not put back over
   *  a label saved meanwhile (another window, the command line). */
  basis: string;
  choices: Partial<Record<Field, Choice>>;
  rationale: string;
  checklist: Checklist;
  focus: Field;
  editing: Field | null;
  editText: string;
};

const kept = new Map<string, KeptDraft>();

holdWork({
  flush: async () => {},
  loss: () => (kept.size ? [...kept.values()].map((d) => `the adjudication of ${d.row}, not saved yet`).join("; ") : null),
});

/** What the view's model holds of a draft (AdjudicateModel). */
type Holder = Omit<KeptDraft, "row" | "basis"> & { row: RowView | null; changed: boolean };

const basisOf = (r: RowView | null) => JSON.stringify(r?.adjudication ?? null);

/** The model's draft as a plain copy, or null when it has none (nothing chosen, nothing open). */
export function draftOf(m: Holder): KeptDraft | null {
  if (!m.row || (!m.changed && m.editing === null)) return null;
  const { choices, rationale, checklist, focus, editing, editText } = m;
  const copy = JSON.parse(JSON.stringify({ choices, rationale, checklist, focus, editing, editText }));
  return { row: m.row.candidate.id, basis: basisOf(m.row), ...copy };
}

/** Puts a kept draft back on the model showing its row; says what happened, for the view. */
export function putBack(m: Holder, d: KeptDraft): string {
  if (m.row?.candidate.id !== d.row) return `Your unsaved draft of ${d.row} could not be shown again: the row is not in the queue.`;
  if (basisOf(m.row) !== d.basis) return `Your unsaved draft of ${d.row} was dropped: the row's label was saved elsewhere meanwhile.`;
  const { row: _row, basis: _basis, ...draft } = d;
  Object.assign(m, draft);
  return `Your unsaved draft of ${d.row} is as you left it in the other view: save it with Ctrl+Enter.`;
}

export function keepDraft(project: string, d: KeptDraft): void {
  kept.set(project, d);
}

/** The draft kept for the project, handed back once (it is the view's again). */
export function takeDraft(project: string): KeptDraft | null {
  const d = kept.get(project) ?? null;
  kept.delete(project);
  return d;
}
