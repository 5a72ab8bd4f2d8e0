// Fixture answers for the mocked IPC: a small project with three ordinary rows and one whose
// text carries HTML and script payloads (which must show literally and never run).

export const IMG_PAYLOAD = `<img src=x onerror="document.title='pwned'">`;
export const SCRIPT_PAYLOAD = `<script>window.__pwned=1</script>`;

const project = {
  id: "7d1f6c1e-2f4e-4d8e-9a51-0d6a3c1b2e90",
  name: "UI fixture project",
  created_at: "2025-01-01T00:00:00.000Z",
  path: "/tmp/ui-fixture.forcebench",
  schema_version: 1,
};

const full = [
  {
    id: "fx-001",
    group_id: "g-fx-1",
    source_dataset: "ExpertQA",
    source_id: "eqa-17",
    state: "imported",
    axis: "modality",
    severity: 2,
    context: "Does the new drug lower blood pressure?",
    passage:
      "In a twelve-week trial of 240 adults, the drug may reduce systolic blood pressure by a few points. Longer trials are under way.",
    evidence_span: "may reduce systolic blood pressure",
    calibrated_claim: "In a twelve-week trial, the drug may reduce systolic blood pressure.",
    raised_claim: "The drug reduces systolic blood pressure.",
    repair: "In a twelve-week trial, the drug may reduce systolic blood pressure by a few points.",
    rationale: "The passage hedges with 'may'; the raised claim drops the hedge.",
  },
  {
    id: "fx-002",
    group_id: "g-fx-2",
    source_dataset: "AttributedQA",
    source_id: "aqa-4",
    state: "assigned",
    axis: "scope",
    severity: 1,
    context: "Who benefits from the reading programme?",
    passage:
      "Among second graders in the pilot district, reading scores rose after the programme began. The evaluation did not cover other grades.",
    evidence_span: "Among second graders in the pilot district",
    calibrated_claim: "Among second graders in the pilot district, reading scores rose.",
    raised_claim: "Reading scores rose for all pupils after the programme began.",
    repair: null,
    rationale: null,
  },
  {
    id: "fx-003",
    group_id: "g-fx-2",
    source_dataset: "LFQA",
    source_id: "",
    state: "accepted",
    axis: "numeric",
    severity: 3,
    context: "How much did the dam raise water levels?",
    passage: "Water levels upstream rose by between 2 and 4 metres during the first season.",
    evidence_span: "between 2 and 4 metres",
    calibrated_claim: "Upstream water rose by between 2 and 4 metres in the first season.",
    raised_claim: "Upstream water rose by exactly 4 metres in the first season.",
    repair: "Upstream water rose by between 2 and 4 metres in the first season.",
    rationale: "The passage gives a range; the raised claim states its upper end as exact.",
  },
  {
    id: "fx-html",
    group_id: "g-fx-3",
    source_dataset: "GaRAGe",
    source_id: "hostile-1",
    state: "imported",
    axis: "relation",
    severity: 2,
    context: `Context with ${SCRIPT_PAYLOAD} inside`,
    passage: `The page quoted ${IMG_PAYLOAD} and then ${SCRIPT_PAYLOAD} verbatim in its text.`,
    evidence_span: IMG_PAYLOAD,
    calibrated_claim: `The page quoted ${IMG_PAYLOAD}.`,
    raised_claim: `The page executed ${SCRIPT_PAYLOAD}.`,
    repair: `Say only that it quoted ${IMG_PAYLOAD}.`,
    rationale: `Payload in the rationale: ${SCRIPT_PAYLOAD}`,
  },
];

const summaryKeys = [
  "id", "group_id", "source_dataset", "state", "axis", "severity", "context", "calibrated_claim",
  "raised_claim",
];

export const rows = full.map((r) => Object.fromEntries(summaryKeys.map((k) => [k, r[k]])));

export const details = Object.fromEntries(
  full.map((r, i) => [
    r.id,
    {
      ...r,
      content_sha256: `${String(i).padStart(2, "0")}${"ab".repeat(31)}`,
      seq: i + 1,
      imported_from: "fixtures/ui.csv",
      imported_at: "2025-01-02T03:04:05.000Z",
    },
  ]),
);

const states = {
  imported: 0, assigned: 0, annotating: 0, double_annotated: 0, adjudicated: 0, accepted: 0,
  rejected: 0, locality_removed: 0,
};
for (const r of full) states[r.state] += 1;

export const status = {
  project,
  candidates: full.length,
  states,
  by_source: {},
  by_suggested_axis: {},
  groups: new Set(full.map((r) => r.group_id)).size,
};

/** The default mock backend; override fields per test. */
export function backend(overrides = {}) {
  return { status, rows, details, errors: {}, session, guideline: GUIDELINE, annotate, ...overrides };
}

// --- The annotate view -----------------------------------------------------------------------

/** A passage with non-ASCII text, to check byte offsets (ü is 2 bytes, – and — are 3). */
export const UNICODE_PASSAGE =
  "In Zürich — a 2019 survey found that 12–18% of renters may move within a year, the city said.";

function annotation(id, over = {}) {
  return {
    candidate_id: id,
    annotator: "Ana",
    decision: null,
    evidence_span: null,
    calibrated_claim: null,
    raised_claim: null,
    axis: null,
    severity: null,
    boundary_type: null,
    repair: null,
    notes: null,
    finished: false,
    problems: ["no decision yet"],
    seconds_spent: 0,
    events: 0,
    can_undo: false,
    ...over,
  };
}

function annotateRow(d, over = {}) {
  return {
    context: d.context,
    passage: d.passage,
    suggested_span: d.evidence_span,
    suggested_calibrated_claim: d.calibrated_claim,
    suggested_raised_claim: d.raised_claim,
    suggested_repair: d.repair,
    suggested_rationale: d.rationale,
    suggested_axis: d.axis,
    suggested_severity: d.severity,
    source_dataset: d.source_dataset,
    annotation: annotation(d.id, {
      calibrated_claim: d.calibrated_claim,
      raised_claim: d.raised_claim,
      axis: d.axis,
      severity: d.severity,
      repair: d.repair,
    }),
    ...over,
  };
}

const unicode = {
  id: "fx-zurich",
  context: "How many renters in Zürich may move?",
  passage: UNICODE_PASSAGE,
  evidence_span: null,
  calibrated_claim: "A 2019 survey found that 12–18% of Zürich renters may move within a year.",
  raised_claim: "Most Zürich renters will move within a year.",
  repair: "A 2019 survey found that 12–18% of Zürich renters may move within a year.",
  rationale: null,
  axis: "numeric",
  severity: 2,
  source_dataset: "LFQA",
};

const annotateRows = {
  "fx-zurich": annotateRow(unicode),
  "fx-001": annotateRow(full[0]),
  "fx-002": annotateRow(full[1]),
  "fx-003": annotateRow(full[2]),
};
// fx-003 is already finished, so "next unfinished" skips it.
annotateRows["fx-003"].annotation = {
  ...annotateRows["fx-003"].annotation,
  decision: "accept_force_gap",
  finished: true,
  problems: [],
  events: 3,
};

export const annotate = {
  annotators: [
    { id: 1, name: "Ana", role: "annotator", created_at: "2025-01-01T00:00:00Z", assigned: 4 },
    { id: 2, name: "Ben", role: "annotator", created_at: "2025-01-01T00:00:00Z", assigned: 2 },
    { id: 5, name: "Eve", role: "adjudicator", created_at: "2025-01-01T00:00:00Z", assigned: 0 },
  ],
  queues: { Ana: ["fx-zurich", "fx-001", "fx-003", "fx-002"], Ben: ["fx-002", "fx-001"] },
  rows: annotateRows,
};

export const session = { project_name: project.name, project_path: project.path, workspace: null };

export const GUIDELINE = `# Annotation guideline

Judge one thing per row.

## Procedure

1. Read the context.
2. Select the evidence span.

## The five axes

- Relation: association versus causation.
- Modality: may versus will.
`;

// --- The agreement view ----------------------------------------------------------------------

const DECISION_LABELS = ["accept_force_gap", "reject_not_force_gap", "needs_discussion"];
const AXIS_LABELS = ["relation", "modality", "scope", "temporal", "numeric"];

function pair(labels, confusion, stats, notes = []) {
  return {
    n_items: confusion.flat().reduce((a, b) => a + b, 0),
    percent_agreement: null,
    chance_agreement: null,
    cohen_kappa: null,
    kappa_se: null,
    kappa_ci95: null,
    pabak: null,
    gwet_ac1: null,
    bootstrap_ci95: null,
    labels,
    confusion,
    notes,
    ...stats,
  };
}

/** 40 double-annotated rows; the statistics are those of the matrices (computed by hand). */
export const agreementReport = {
  ...pair(DECISION_LABELS, [[18, 2, 1], [1, 12, 1], [0, 1, 4]], {
    percent_agreement: 0.85,
    chance_agreement: 0.399375,
    cohen_kappa: 0.7502601456815816,
    kappa_se: 0.09224407782332072,
    kappa_ci95: [0.569461753147873, 0.9310585382152903],
    bootstrap_ci95: [0.5831, 0.9012],
    pabak: 0.775,
    gwet_ac1: 0.7857621066726176,
  }),
  krippendorff_alpha: 0.7533,
  fleiss_kappa: 0.7502,
  accept_vs_not: pair(["accept", "not_accept"], [[18, 3], [2, 17]], {
    percent_agreement: 0.875,
    chance_agreement: 0.5,
    cohen_kappa: 0.75,
    kappa_se: 0.10445169338024157,
    kappa_ci95: [0.5452746809747265, 0.9547253190252735],
    pabak: 0.75,
    gwet_ac1: 0.7501561524047471,
  }),
  axis_when_both_accept: pair(AXIS_LABELS, [[4, 0, 1, 0, 0], [0, 3, 0, 0, 0], [0, 0, 4, 0, 0], [0, 1, 0, 2, 0], [0, 0, 0, 0, 3]], {
    percent_agreement: 0.8888888888888888,
    chance_agreement: 0.2067901234567901,
    cohen_kappa: 0.8599221789883268,
    kappa_se: 0.092681099415691,
    kappa_ci95: [0.6782672241335724, 1],
    pabak: 0.8611111111111109,
    gwet_ac1: 0.8615384615384614,
  }),
  severity_weighted_kappa: 0.6125,
  severity_n_items: 18,
  span: { n_items: 31, exact_match_rate: 0.6451612903225806, mean_token_f1: 0.8734 },
  calibrated_claim_edits: { both_kept: 29, one_changed: 8, both_changed: 3 },
  raised_claim_edits: { both_kept: 33, one_changed: 6, both_changed: 1 },
  by_source: [
    { key: "AttributedQA", n_items: 9, percent_agreement: 0.7777777777777778, cohen_kappa: 0.6 },
    { key: "ExpertQA", n_items: 17, percent_agreement: 0.8823529411764706, cohen_kappa: 0.8021 },
    { key: "LFQA", n_items: 14, percent_agreement: 0.8571428571428571, cohen_kappa: null },
  ],
  by_suggested_axis: [
    { key: "modality", n_items: 12, percent_agreement: 0.8333333333333334, cohen_kappa: 0.7143 },
    { key: "numeric", n_items: 15, percent_agreement: 0.8666666666666667, cohen_kappa: 0.7727 },
    { key: "scope", n_items: 13, percent_agreement: 0.8461538461538461, cohen_kappa: -0.0833 },
  ],
  by_pair: [
    { key: "Ana + Ben", n_items: 21, percent_agreement: 0.9047619047619048, cohen_kappa: 0.8412 },
    { key: "Ana + Chidi", n_items: 19, percent_agreement: 0.7894736842105263, cohen_kappa: 0.6552 },
  ],
};

/** Five rows, every decision "accept": kappa and its companions are undefined. */
export const singleCategoryReport = {
  ...pair(DECISION_LABELS, [[5, 0, 0], [0, 0, 0], [0, 0, 0]], { percent_agreement: 1, chance_agreement: 1, pabak: 1, gwet_ac1: 1 }, [
    "every label is `accept_force_gap`: with a single category chance agreement is 1 and kappa is undefined",
  ]),
  krippendorff_alpha: null,
  fleiss_kappa: null,
  accept_vs_not: pair(["accept", "not_accept"], [[5, 0], [0, 0]], { percent_agreement: 1, chance_agreement: 1, pabak: 1, gwet_ac1: 1 }, [
    "every label is `accept`: with a single category chance agreement is 1 and kappa is undefined",
  ]),
  axis_when_both_accept: pair(AXIS_LABELS, [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 5, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]], { percent_agreement: 1, chance_agreement: 1, pabak: 1, gwet_ac1: 1 }, [
    "every label is `scope`: with a single category chance agreement is 1 and kappa is undefined",
  ]),
  severity_weighted_kappa: null,
  severity_n_items: 5,
  span: { n_items: 0, exact_match_rate: null, mean_token_f1: null },
  calibrated_claim_edits: { both_kept: 5, one_changed: 0, both_changed: 0 },
  raised_claim_edits: { both_kept: 5, one_changed: 0, both_changed: 0 },
  by_source: [{ key: "ExpertQA", n_items: 5, percent_agreement: 1, cohen_kappa: null }],
  by_suggested_axis: [{ key: "scope", n_items: 5, percent_agreement: 1, cohen_kappa: null }],
  by_pair: [{ key: "Ana + Ben", n_items: 5, percent_agreement: 1, cohen_kappa: null }],
};

const NO_ITEMS = "no item was labelled by both annotators, so agreement is undefined";

/** No row has two finished annotations yet (a fresh project). */
export const emptyReport = {
  ...pair(DECISION_LABELS, [[0, 0, 0], [0, 0, 0], [0, 0, 0]], {}, [NO_ITEMS]),
  krippendorff_alpha: null,
  fleiss_kappa: null,
  accept_vs_not: pair(["accept", "not_accept"], [[0, 0], [0, 0]], {}, [NO_ITEMS]),
  axis_when_both_accept: pair(AXIS_LABELS, AXIS_LABELS.map(() => [0, 0, 0, 0, 0]), {}, [NO_ITEMS]),
  severity_weighted_kappa: null,
  severity_n_items: 0,
  span: { n_items: 0, exact_match_rate: null, mean_token_f1: null },
  calibrated_claim_edits: { both_kept: 0, one_changed: 0, both_changed: 0 },
  raised_claim_edits: { both_kept: 0, one_changed: 0, both_changed: 0 },
  by_source: [],
  by_suggested_axis: [],
  by_pair: [],
};

/** The rows behind a cell: ids that get_candidate knows. */
export const cellRows = [
  { id: "fx-002", annotator_a: "Ana", annotator_b: "Ben" },
  { id: "fx-003", annotator_a: "Ana", annotator_b: "Chidi" },
];
