// The adjudicate view's helpers, kept out of the component so they read in one place: the value
// a choice takes, how stored values read for people, and the passage cut around two spans at
// once (A's and B's). The rules themselves come from the core with every row: which fields a
// final decision needs and which sources need a rationale (`RowView.rules`), the checklist's
// questions, and where a final value comes from (`FieldRow.sources`, in the core's order). The
// core checks every resolution again.
import type { Checklist } from "../bindings/Checklist";
import type { Choice } from "../bindings/Choice";
import type { Decision } from "../bindings/Decision";
import type { Field } from "../bindings/Field";
import type { FieldRow } from "../bindings/FieldRow";
import type { Rules } from "../bindings/Rules";
import type { Source } from "../bindings/Source";
import { AXES, BOUNDARY_TYPES, severityLabel } from "./vocab";
import { locate, type ByteSpan } from "./text";

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
