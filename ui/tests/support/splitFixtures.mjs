// Fixture answers for the split view: a draft (relation capped at 12, 8 evaluation rows per axis,
// one selected modality row removed by the locality audit and not replaced), the same split
// locked, a stale draft, an export report and a verify report. The counts add up as the core's
// would: every table of the view can be checked against them.
import { status } from "./fixtures.mjs";

const AXES = ["relation", "modality", "scope", "temporal", "numeric"];
const SOURCES = ["AttributedQA", "ExpertQA", "GaRAGe", "LFQA"];

// axis: [accepted, capped, locality_removed, retained, eval, eval severity 1-3, retained severity 1-3]
const TABLE = {
  relation: [15, 3, 0, 12, 8, [2, 4, 2], [3, 6, 3]],
  modality: [9, 0, 1, 8, 7, [1, 4, 2], [1, 5, 2]],
  scope: [10, 0, 0, 10, 8, [3, 3, 2], [4, 4, 2]],
  temporal: [6, 0, 0, 6, 6, [2, 2, 2], [2, 2, 2]],
  numeric: [11, 0, 0, 11, 8, [2, 3, 3], [3, 4, 4]],
};

// axis -> evaluation rows per source (AttributedQA, ExpertQA, GaRAGe, LFQA).
const EVAL_BY_SOURCE = {
  relation: [2, 3, 2, 1],
  modality: [2, 2, 2, 1],
  scope: [2, 2, 2, 2],
  temporal: [1, 2, 2, 1],
  numeric: [2, 2, 2, 2],
};
const RETAINED_BY_SOURCE = [12, 14, 12, 9];

const CAP_REASON = "relation capped at 12 rows (15 accepted); stratified by source, stable hash";
export const REMOVAL_REASON = "The raised claim also changes the population studied, not only the force.";

const ids = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(3, "0")}`);

export const draftSplit = {
  version: 1,
  status: "draft",
  params: { caps: { relation: 12 }, per_axis: 8, seed: 1, strata: ["source_dataset"] },
  created_at: "2025-03-04T09:15:00.000Z",
  locked_at: null,
  retained: Object.fromEntries(AXES.map((a) => [a, TABLE[a][3]])),
  eval: Object.fromEntries(AXES.map((a) => [a, TABLE[a][4]])),
  retained_ids: ids("fb-r", 47),
  eval_ids: ids("fb-e", 37),
  locality_removed: [
    { id: "fb-0044", axis: "modality", source_dataset: "GaRAGe", reason: REMOVAL_REASON, was_eval: true },
  ],
  capped: [
    { id: "fb-0007", axis: "relation", source_dataset: "ExpertQA", reason: CAP_REASON, was_eval: false },
    { id: "fb-0031", axis: "relation", source_dataset: "AttributedQA", reason: CAP_REASON, was_eval: false },
    { id: "fb-0058", axis: "relation", source_dataset: "GaRAGe", reason: CAP_REASON, was_eval: false },
  ],
  counts: {
    candidates: 106,
    double_annotated: 106,
    adjudicated: 66,
    rejected: 15,
    accepted: 51,
    capped: 3,
    selected: 38,
    locality_removed: 1,
    retained: 47,
    eval: 37,
  },
  per_axis: AXES.map((axis) => {
    const [accepted, capped, locality_removed, retained, ev, eval_severity, retained_severity] = TABLE[axis];
    return { axis, accepted, capped, locality_removed, retained, eval: ev, eval_severity, retained_severity };
  }),
  by_source: Object.fromEntries(
    SOURCES.map((s, i) => [s, [RETAINED_BY_SOURCE[i], AXES.reduce((sum, a) => sum + EVAL_BY_SOURCE[a][i], 0)]]),
  ),
  eval_by_axis_source: Object.fromEntries(
    AXES.map((a) => [a, Object.fromEntries(SOURCES.map((s, i) => [s, EVAL_BY_SOURCE[a][i]]))]),
  ),
  stale: [],
  audit: { unreviewed_locality: [], qc_errors: [], never_adjudicated: 0, allowed_unreviewed: false },
};

/** A draft whose final audit is unfinished: one selected row's locality warning unreviewed. */
export const unreviewedSplit = {
  ...draftSplit,
  audit: { unreviewed_locality: [{ id: "fb-0009", checks: ["locality_new_numbers"] }], qc_errors: [], never_adjudicated: 3, allowed_unreviewed: false },
};

export const lockedSplit = { ...draftSplit, status: "locked", locked_at: "2025-03-04T09:20:00.000Z" };

export const staleSplit = { ...draftSplit, stale: ["fb-0012", "fb-0019"] };

export const EXPORT_FILES = [
  "eval.jsonl",
  "eval.csv",
  "benchmark.jsonl",
  "annotations.jsonl",
  "adjudications.jsonl",
  "rejected.jsonl",
  "locality_removed.jsonl",
  "DATASHEET.md",
  "manifest.json",
];

const hex = (seed) => Array.from({ length: 64 }, (_, i) => "0123456789abcdef"[(seed * 7 + i * 13) % 16]).join("");

export function exportReport(dir) {
  return {
    dir,
    version: 1,
    files: Object.fromEntries([...EXPORT_FILES].sort().map((f, i) => [f, hex(i + 1)])),
    content_sha256: hex(99),
  };
}

export function verifyReport(dir) {
  return { dir, files_checked: 9, content_sha256: hex(99), eval_rows: 37, retained_rows: 47 };
}

/** The core's error for a changed file, word for word. */
export function verifyMismatch(dir, file) {
  const path = `${dir}/${file}`;
  return {
    code: "invalid_input",
    message: `${path}: 1 problem found; nothing was imported\n  ${path}: sha256 differs from the manifest's (expected ${hex(3)})`,
  };
}

/** The project status with the funnel: accepted rows per axis now. */
export const splitStatus = {
  ...status,
  funnel: {
    rejected_by_boundary: {},
    by_axis: Object.fromEntries(
      AXES.map((a) => [
        a,
        {
          candidates: 0,
          double_annotated: 0,
          adjudicated: 0,
          accepted: TABLE[a][0] - TABLE[a][2],
          qc_blocked: 0,
          rejected: 0,
          locality_removed: TABLE[a][2],
          retained: null,
          evaluation: null,
        },
      ]),
    ),
    candidates: 106,
    double_annotated: 106,
    adjudicated: 66,
    accepted: 50,
    qc_blocked: 0,
    rejected: 15,
    locality_removed: 1,
    retained: null,
    evaluation: null,
  },
};
