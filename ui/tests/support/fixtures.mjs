// Fixture answers for the mocked IPC: a small project with three ordinary rows and one whose
// text carries HTML and script payloads (which must show literally and never run).

import { readFileSync } from "node:fs";

/** The adjudication rules as the core sends them with every row (written by the core's tests:
 * `the_rules_the_app_receives_are_the_protocols_and_its_test_fixture_is_current`). */
export const RULES = JSON.parse(readFileSync(new URL("./rules.json", import.meta.url), "utf8"));

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
  software: { version: "0.1.0", commit: "0123456789ab", schema_version: 8 },
};

/** The shipped judge templates, label maps and run defaults as the core lists them (`judge_templates`). */
export const JUDGE_CATALOG = {
  templates: [
    { name: "generic", map: "generic", pairwise: false },
    { name: "force_aware", map: "force", pairwise: false },
    { name: "axis_free", map: "force", pairwise: false },
    { name: "dummy_axis", map: "force", pairwise: false },
    { name: "pairwise", map: "pairwise", pairwise: true },
  ],
  label_maps: ["generic", "force", "audit"],
  // As judging::judge_templates lists them (Api::ALL, each one's path and cap field).
  apis: [
    { name: "chat", path: "/chat/completions", cap_field: "max_tokens", needs_cap: false },
    { name: "responses", path: "/responses", cap_field: "max_output_tokens", needs_cap: false },
    { name: "anthropic", path: "/messages", cap_field: "max_tokens", needs_cap: true },
  ],
  defaults: { concurrency: 4, temperature: 0, timeout: 120, attempts: 5, max_tokens: 1024, answer_attempts: 3 },
};

/** The drafting form's styles and defaults as `draft_catalog` gives them (the core's `DraftRunOptions::new`). */
export const DRAFT_CATALOG = { apis: JUDGE_CATALOG.apis, temperature: 0, max_tokens: 1024, timeout: 120, attempts: 5 };

/** No evaluator stored as `<model>@<template>`: the grid is not shown (`evaluation_grid`). */
export const EMPTY_GRID = { models: [], templates: [], cells: [], pooled: [], baselines: [], footnotes: [] };

/** No row has a construction family: the family table is not shown (`evaluation_families`). */
export const NO_FAMILIES = { pairs: { none: 0 }, per_family: {}, shortcuts: [], flagged: [], rule: "" };

/** The default mock backend; override fields per test. */
export function backend(overrides = {}) {
  const { answers, ...rest } = overrides;
  return { status, rows, details, errors: {}, session, guideline: GUIDELINE_IN_FORCE, annotate, answers: { judge_templates: JUDGE_CATALOG, draft_catalog: DRAFT_CATALOG, evaluation_grid: EMPTY_GRID, evaluation_families: NO_FAMILIES, ...answers }, ...rest };
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
    problem_fields: ["decision"],
    seconds_spent: 0,
    events: 0,
    can_undo: false,
    suggested: [],
    suggestion_mode: "prefilled",
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
    suggestion_mode: "prefilled",
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
  problem_fields: [],
  events: 3,
};

export const annotate = {
  annotators: [
    { id: 1, name: "Ana", role: "annotator", created_at: "2025-01-01T00:00:00Z", assigned: 4, may_adjudicate: false },
    { id: 2, name: "Ben", role: "annotator", created_at: "2025-01-01T00:00:00Z", assigned: 2, may_adjudicate: false },
    { id: 5, name: "Eve", role: "adjudicator", created_at: "2025-01-01T00:00:00Z", assigned: 0, may_adjudicate: true },
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

/** The guideline as the core answers `guideline`: version 2 in force, one line changed from 1. */
export const GUIDELINE_IN_FORCE = {
  version: {
    label: "2",
    text: GUIDELINE,
    sha256: "ab".repeat(32),
    published_at: "2025-03-03T10:00:00Z",
    published_by: "Lee",
    note: "a hedge kept in a quotation counts",
  },
  previous: "1",
  changes: [
    { change: "same", text: "# Annotation guideline" },
    { change: "removed", text: "A hedge inside a quotation does not count." },
    { change: "added", text: "A hedge inside a quotation counts like any other." },
  ],
};

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

// --- The adjudicate view and the funnel ------------------------------------------------------

const FIELDS = ["decision", "evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair", "boundary_type"];

/** A span of `passage` as the core stores it: JSON {text,start,end} with UTF-8 byte offsets. */
export function storedSpan(passage, text) {
  const at = passage.indexOf(text);
  if (at === -1) throw new Error(`fixture span not in passage: ${text}`);
  const start = Buffer.byteLength(passage.slice(0, at));
  return JSON.stringify({ text, start, end: start + Buffer.byteLength(text) });
}

function adjAnnotation(id, who, v) {
  return {
    ...annotation(id, { annotator: who }),
    decision: v.decision ?? null,
    evidence_span: v.evidence_span ? JSON.parse(v.evidence_span) : null,
    calibrated_claim: v.calibrated_claim ?? null,
    raised_claim: v.raised_claim ?? null,
    axis: v.axis ?? null,
    severity: v.severity ? Number(v.severity) : null,
    boundary_type: v.boundary_type ?? null,
    repair: v.repair ?? null,
    finished: true,
    problems: [],
    problem_fields: [],
  };
}

/** A RowView as adjudication_row answers it, from A's, B's and the suggestion's stored values. */
function rowView(candidate, category, names, a, b, s, extra = {}) {
  const decisionDisagreement = category === "decision_disagreement";
  const fields = FIELDS.map((field) => ({
    field,
    a: a[field] ?? null,
    b: b[field] ?? null,
    suggestion: s[field] ?? null,
    differs: (a[field] ?? null) !== (b[field] ?? null) && (decisionDisagreement || field !== "boundary_type"),
    // As the core lists them: `both` first when A and B agree, then A, B and the suggestion.
    sources: [
      ...((a[field] ?? null) === (b[field] ?? null) ? [{ source: "both", value: a[field] ?? null }] : []),
      { source: "a", value: a[field] ?? null },
      { source: "b", value: b[field] ?? null },
      { source: "suggestion", value: s[field] ?? null },
    ],
    final: null,
  }));
  return {
    candidate,
    annotator_a: names[0],
    annotator_b: names[1],
    category,
    a: adjAnnotation(candidate.id, names[0] ?? "A", a),
    b: adjAnnotation(candidate.id, names[1] ?? "B", b),
    fields,
    adjudication: null,
    history: [],
    qc: [],
    held_back_by_qc: false,
    rules: RULES,
    decided_quickly: [],
    ...extra,
  };
}

const adjCandidate = {
  id: "fx-adj-1",
  group_id: "g-adj-1",
  source_dataset: "LFQA",
  source_id: "",
  context: "How many renters in Zürich may move?",
  passage: UNICODE_PASSAGE,
  evidence_span: "12–18% of renters may move",
  calibrated_claim: "A 2019 survey found that 12–18% of Zürich renters may move within a year.",
  raised_claim: "Many Zürich renters will move within a year.",
  repair: "A 2019 survey found that 12–18% of Zürich renters may move within a year.",
  rationale: null,
  axis: "numeric",
  severity: 2,
};

const common = {
  calibrated_claim: adjCandidate.calibrated_claim,
  repair: adjCandidate.repair,
};
/** Ana accepts (numeric, 2); Ben rejects (modality, 3, nonlocal rewrite); their spans and raised claims differ. */
export const adjA = {
  ...common,
  decision: "accept_force_gap",
  evidence_span: storedSpan(UNICODE_PASSAGE, "12–18% of renters"),
  raised_claim: "Most Zürich renters will move within a year.",
  axis: "numeric",
  severity: "2",
};
export const adjB = {
  ...common,
  decision: "reject_not_force_gap",
  evidence_span: storedSpan(UNICODE_PASSAGE, "may move within a year"),
  raised_claim: "All Zürich renters will move within a year.",
  axis: "modality",
  severity: "3",
  boundary_type: "nonlocal_rewrite",
};
const adjS = {
  ...common,
  evidence_span: storedSpan(UNICODE_PASSAGE, adjCandidate.evidence_span),
  raised_claim: adjCandidate.raised_claim,
  axis: "numeric",
  severity: "2",
};

const fieldCandidate = { ...full[0], id: "fx-adj-2" };
delete fieldCandidate.state;
const fieldA = {
  decision: "accept_force_gap",
  evidence_span: storedSpan(full[0].passage, full[0].evidence_span),
  calibrated_claim: full[0].calibrated_claim,
  raised_claim: full[0].raised_claim,
  axis: "modality",
  severity: "1",
  repair: full[0].repair,
};

export const adjRows = {
  "fx-adj-1": rowView(adjCandidate, "decision_disagreement", ["Ana", "Ben"], adjA, adjB, adjS),
  "fx-adj-2": rowView(fieldCandidate, "field_disagreement", ["Ana", "Chidi"], fieldA, { ...fieldA, severity: "3" }, { ...fieldA, decision: null, severity: "2" }),
};

/** The row after "take A, A, B, A, B" on fx-adj-1 was saved: sources, history and QC as the core records them. */
export function savedRow(rationale = null) {
  const at = "2025-03-04T05:06:07.123Z";
  const row = structuredClone(adjRows["fx-adj-1"]);
  const pick = { decision: "a", evidence_span: "a", calibrated_claim: "both", raised_claim: "b", axis: "a", severity: "b", repair: "both" };
  for (const f of row.fields) {
    const src = pick[f.field];
    if (src) f.final = { field: f.field, value: src === "b" ? f.b : f.a, source: src, adjudicator: "Eve", at };
  }
  row.adjudication = {
    candidate_id: "fx-adj-1",
    decision: "accept_force_gap",
    rationale,
    adjudicator: "Eve",
    decided_at: at,
    bulk_confirmed: false,
    checklist: { span_decisive: true, calibrated_supported: true, raised_underwarranted: true, one_local_axis: false, no_unrelated_addition: null },
    fields: row.fields.filter((f) => f.final).map((f) => f.final),
  };
  // As the core stores a first adjudication: fields set one after another from one source are one
  // record, whose events share its id (decision and span from A here).
  let id = 0;
  row.history = row.fields
    .filter((f) => f.final)
    .map((f, i, all) => {
      if (i === 0 || all[i - 1].final.source !== f.final.source) id += 1;
      return { id, field: f.field, old_value: null, new_value: f.final.value, source: f.final.source, adjudicator: "Eve", at };
    });
  row.qc = [
    { check: "span_present", severity: "error", passed: true, detail: null },
    { check: "span_verbatim", severity: "error", passed: true, detail: null },
    { check: "claims_differ", severity: "error", passed: true, detail: null },
    { check: "checklist_one_local_axis", severity: "error", passed: false, detail: "the adjudicator answered no: the raised claim moves along one dominant, local axis" },
    { check: "checklist_no_unrelated_addition", severity: "warning", passed: false, detail: "not answered: the raised claim adds nothing unrelated" },
    { check: "locality_large_rewrite", severity: "warning", passed: false, detail: "60% of the words changed" },
  ];
  row.held_back_by_qc = true;
  return row;
}

const queueItem = (id, category, a, b, decisions, extra = {}) => ({
  id,
  category,
  differing: [],
  source_dataset: "LFQA",
  suggested_axis: "numeric",
  annotator_a: a,
  annotator_b: b,
  decision_a: decisions[0],
  decision_b: decisions[1],
  adjudicated: false,
  final_decision: null,
  ...extra,
});

export const adjQueue = {
  counts: {
    decision_disagreement: { total: 1, open: 1 },
    needs_discussion: { total: 0, open: 0 },
    field_disagreement: { total: 1, open: 1 },
    full_agreement: { total: 3, open: 2 },
  },
  items: [
    queueItem("fx-adj-1", "decision_disagreement", "Ana", "Ben", ["accept_force_gap", "reject_not_force_gap"], {
      differing: ["decision", "evidence_span", "raised_claim", "axis", "severity", "boundary_type"],
    }),
    queueItem("fx-adj-2", "field_disagreement", "Ana", "Chidi", ["accept_force_gap", "accept_force_gap"], {
      differing: ["severity"],
      source_dataset: "ExpertQA",
      suggested_axis: "modality",
    }),
    queueItem("fx-adj-3", "full_agreement", "Ben", "Chidi", ["accept_force_gap", "accept_force_gap"]),
    queueItem("fx-adj-4", "full_agreement", "Ana", "Ben", ["reject_not_force_gap", "reject_not_force_gap"]),
    queueItem("fx-adj-5", "full_agreement", "Ana", "Ben", ["accept_force_gap", "accept_force_gap"], {
      adjudicated: true,
      final_decision: "accept_force_gap",
    }),
  ],
};

export const auditRows = [
  {
    id: "fx-adj-5",
    axis: "numeric",
    calibrated_claim: "Water rose by between 2 and 4 metres in 2019.",
    raised_claim: "Water rose by exactly 4 metres in 2021 at the Hoover Dam.",
    warnings: [
      { check: "locality_new_entities", severity: "warning", passed: false, detail: "the raised claim names `Hoover`, `Dam` not in the calibrated claim" },
      { check: "locality_changed_dates", severity: "warning", passed: false, detail: "dates differ: calibrated {`2019`}, raised {`2021`}" },
    ],
    mark: null,
  },
  {
    id: "fx-adj-6",
    axis: "scope",
    calibrated_claim: "Among second graders in the pilot district, reading scores rose.",
    raised_claim: "Reading scores rose for all pupils.",
    warnings: [],
    mark: { id: "fx-adj-6", reason: "changes the population studied", marked_by: "Eve", at: "2025-03-01T10:00:00Z" },
  },
  {
    id: "fx-adj-7",
    axis: "modality",
    calibrated_claim: "The drug may reduce blood pressure.",
    raised_claim: "The drug reduces blood pressure.",
    warnings: [],
    mark: null,
  },
];

const counts = (c, d, adj, acc, qc, rej, loc, retained = null, evaluation = null) => ({
  candidates: c, double_annotated: d, adjudicated: adj, accepted: acc, qc_blocked: qc, rejected: rej,
  locality_removed: loc, retained, evaluation,
});

/** A status whose funnel adds up: 106 candidates, 80 double-annotated, 40 adjudicated. */
export const funnelStatus = {
  ...status,
  funnel: {
    ...counts(106, 80, 40, 27, 2, 9, 2),
    rejected_by_boundary: {
      unsupported_calibrated_claim: 2, raised_claim_supported: 3, nonlocal_rewrite: 1, multiple_force_shifts: 0,
      unrelated_addition: 0, needs_outside_knowledge: 1, no_decisive_span: 2, duplicate: 0, safe_or_underclaimed: 0, ambiguous: 0,
    },
    by_axis: {
      modality: counts(21, 16, 8, 6, 0, 2, 0),
      numeric: counts(24, 18, 10, 7, 1, 1, 1),
      relation: counts(22, 17, 9, 5, 1, 3, 0),
      scope: counts(20, 15, 7, 5, 0, 1, 1),
      temporal: counts(19, 14, 6, 4, 0, 2, 0),
    },
  },
};

/** The mock backend of the adjudicate view; override per test. */
export function adjudicateBackend(overrides = {}) {
  return backend({
    status: funnelStatus,
    answers: {
      adjudication_queue: adjQueue,
      resolve_row: savedRow(),
      adjudication_reopen: { id: "fx-adj-1", adjudicator: "Eve", reason: "Ana wants to look at the span again", decision: "accept_force_gap", at: "2025-03-05T00:00:00Z" },
      confirm_agreements: 2,
      // What confirming and affirming in bulk would do, and did.
      affirm_preview: { adjudicator: "Eve", confirmed: 2, affirmed: 3, frozen: 0, checks: ["span_decisive", "calibrated_supported", "raised_underwarranted", "one_local_axis", "no_unrelated_addition"] },
      confirm_and_affirm: { adjudicator: "Eve", confirmed: 2, affirmed: 3, frozen: 0, checks: ["span_decisive", "calibrated_supported", "raised_underwarranted", "one_local_axis", "no_unrelated_addition"] },
      run_qc: { rows_checked: 28, passed: 27, blocked: 1, warned: 5, rows: [] },
      locality_rows: auditRows,
      mark_nonlocal: { id: "fx-adj-5", reason: "names another dam and year", marked_by: "Eve", at: "2025-03-05T00:00:00Z" },
      unmark_nonlocal: auditRows[1].mark,
      locality_keep: { id: "fx-adj-5", kept_by: "Eve", note: null, at: "2025-03-05T00:00:00Z" },
    },
    byArg: { adjudication_row: { arg: "id", answers: adjRows } },
    ...overrides,
  });
}
