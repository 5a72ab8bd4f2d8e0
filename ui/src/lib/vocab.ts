// How the controlled vocabularies read in the UI: workflow states in protocol order with labels,
// and severity names (the guideline, docs/guideline.md: 1 subtle, 2 clear, 3 high-impact).
import type { WorkflowState } from "../bindings/WorkflowState";

export const STATES: { state: WorkflowState; label: string }[] = [
  { state: "imported", label: "Imported" },
  { state: "assigned", label: "Assigned" },
  { state: "annotating", label: "Annotating" },
  { state: "double_annotated", label: "Double-annotated" },
  { state: "adjudicated", label: "Adjudicated" },
  { state: "accepted", label: "Accepted" },
  { state: "rejected", label: "Rejected" },
  { state: "locality_removed", label: "Locality-removed" },
];

export function stateLabel(state: WorkflowState): string {
  return STATES.find((s) => s.state === state)?.label ?? state;
}

const SEVERITY = ["", "subtle", "clear", "high-impact"];

export function severityLabel(severity: number | null): string {
  if (severity === null) return "—";
  return SEVERITY[severity] ? `${severity} · ${SEVERITY[severity]}` : String(severity);
}

// The annotate view's vocabularies, with their keyboard shortcuts. Values are the core's.
import type { Axis } from "../bindings/Axis";
import type { BoundaryType } from "../bindings/BoundaryType";
import type { Decision } from "../bindings/Decision";

export const DECISIONS: { value: Decision; label: string; key: string }[] = [
  { value: "accept_force_gap", label: "Accept: force gap", key: "a" },
  { value: "reject_not_force_gap", label: "Reject: not a force gap", key: "r" },
  { value: "needs_discussion", label: "Needs discussion", key: "d" },
];

export const AXES: { value: Axis; label: string; key: string }[] = [
  { value: "relation", label: "Relation", key: "1" },
  { value: "modality", label: "Modality", key: "2" },
  { value: "scope", label: "Scope", key: "3" },
  { value: "temporal", label: "Temporal", key: "4" },
  { value: "numeric", label: "Numeric", key: "5" },
];

export const SEVERITIES: { value: number; label: string; key: string }[] = [
  { value: 1, label: "subtle", key: "z" },
  { value: 2, label: "clear", key: "x" },
  { value: 3, label: "high-impact", key: "c" },
];

export const BOUNDARY_TYPES: { value: BoundaryType; label: string }[] = [
  { value: "unsupported_calibrated_claim", label: "Unsupported calibrated claim" },
  { value: "raised_claim_supported", label: "Raised claim actually supported" },
  { value: "nonlocal_rewrite", label: "Nonlocal rewrite" },
  { value: "multiple_force_shifts", label: "Multiple force shifts" },
  { value: "unrelated_addition", label: "Unrelated unsupported addition" },
  { value: "needs_outside_knowledge", label: "Needs outside knowledge" },
  { value: "no_decisive_span", label: "No decisive span" },
  { value: "duplicate", label: "Duplicate" },
  { value: "safe_or_underclaimed", label: "Safe or underclaimed" },
  { value: "ambiguous", label: "Ambiguous" },
];

export function decisionLabel(d: Decision | null): string {
  return DECISIONS.find((x) => x.value === d)?.label ?? "No decision";
}
