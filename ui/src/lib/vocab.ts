// How the controlled vocabularies read in the UI: workflow states in protocol order with labels,
// and severity names (DESIGN.md: 1 subtle, 2 clear, 3 high-impact).
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
