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
