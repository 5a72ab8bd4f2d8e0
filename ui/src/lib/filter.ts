// Which candidates the list shows for a text query and a state filter.
import type { CandidateSummary } from "../bindings/CandidateSummary";
import type { WorkflowState } from "../bindings/WorkflowState";

/** Every whitespace-separated word of `query` must occur (case-insensitively) in some field. */
export function filterCandidates(
  rows: CandidateSummary[],
  query: string,
  state: WorkflowState | "all",
): CandidateSummary[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((row) => {
    if (state !== "all" && row.state !== state) return false;
    if (words.length === 0) return true;
    const haystack = [
      row.id,
      row.group_id,
      row.source_dataset,
      row.axis ?? "",
      row.context,
      row.calibrated_claim,
      row.raised_claim,
    ]
      .join("\n")
      .toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}
