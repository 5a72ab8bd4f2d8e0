//! The datasheet of an export (`DATASHEET.md`), written from the split's own recorded numbers.

use serde::Deserialize;
use std::collections::BTreeMap;

use super::{AxisTable, LeftOut, SplitParams, StageCounts};

fn fmt_num(v: &serde_json::Value) -> String {
    v.as_f64().map_or("undefined".into(), |x| format!("{x:.3}"))
}

/// The datasheet, written from the split's own numbers.
pub(super) fn datasheet(s: &Recorded, manifest: &serde_json::Value, content_sha256: &str) -> String {
    let c = &s.counts;
    let a = &manifest["agreement_at_lock"];
    let mut out = String::new();
    let name = manifest["project"]["name"].as_str().unwrap_or("");
    out.push_str(&format!("# Datasheet: {name}, evaluation split v{}\n\n", s.split.version));
    out.push_str(&format!(
        "Written by forcebench {} (commit {}) from the locked split (locked {}). Content sha256 `{content_sha256}`.\n\n",
        crate::software::VERSION,
        crate::software::COMMIT,
        s.split.locked_at.as_deref().unwrap_or("")
    ));
    out.push_str("## What it is\n\nContrastive citation-warrant pairs. Each row has a cited passage, a calibrated claim that the passage licenses and a minimally stronger raised claim that it does not, tagged with one force axis (relation, modality, scope, temporal, numeric) and a severity (1 subtle, 2 clear, 3 high-impact). `eval.jsonl` / `eval.csv` hold the evaluation set; `benchmark.jsonl` the whole retained pool (`in_eval` marks the evaluation rows).\n\n");
    out.push_str("`eval.csv` is meant for spreadsheets: a cell beginning with `=`, `+`, `-`, `@`, a tab, a carriage return or a single quote has a single quote put in front of it, so that a spreadsheet shows it as text instead of running it as a formula. The JSONL files hold the exact text; read those for anything but viewing.\n\n");
    out.push_str("## How it was made\n\nEvery candidate was annotated independently by two annotators on blinded packets; an adjudicator resolved every disagreement and confirmed agreements; rows adjudicated as a force gap that passed quality control were accepted; a locality audit removed rows whose raised claim changes more than force. Over-represented axes were capped, and the evaluation set was drawn per axis, stratified by source dataset, with a stable hash for ties.\n\n");
    out.push_str(&format!(
        "Agreement on the pre-adjudication decisions of {} double-annotated rows: Cohen's kappa {} (95% CI {}), percent agreement {}, Krippendorff's alpha {}.\n\n",
        a["n_items"], fmt_num(&a["cohen_kappa"]),
        a["kappa_ci95"].as_array().map_or("undefined".into(), |v| format!("{} to {}", fmt_num(&v[0]), fmt_num(&v[1]))),
        fmt_num(&a["percent_agreement"]), fmt_num(&a["krippendorff_alpha"])
    ));
    out.push_str("## Counts at every stage\n\n| stage | rows |\n|---|---|\n");
    if let Some(b) = &s.before_candidacy {
        for (stage, n) in crate::contexts::funnel_lines(b) {
            let depth = stage.len() - stage.trim_start().len();
            out.push_str(&format!("| {}{} | {n} |\n", "↳ ".repeat(depth / 2), stage.trim_start()));
        }
    }
    for (stage, n) in [
        ("candidates", c.candidates),
        ("double-annotated", c.double_annotated),
        ("adjudicated", c.adjudicated),
        ("rejected", c.rejected),
        ("accepted", c.accepted),
        ("capped (surplus on over-represented axes)", c.capped),
        ("selected for evaluation", c.selected),
        ("removed by the locality audit", c.locality_removed),
        ("retained", c.retained),
        ("evaluation", c.eval),
    ] {
        out.push_str(&format!("| {stage} | {n} |\n"));
    }
    if let Some(b) = &s.before_candidacy {
        out.push_str(&format!(
            "\nThe first rows count the cited contexts the candidates were drafted from: every context imported was screened for a visible local boundary, kept contexts were drafted, and each draft was promoted into the candidate pool or excluded with a reason. The candidate pool holds {} rows: {} promoted from contexts and {} imported as candidate rows.\n",
            c.candidates,
            b.promoted,
            c.candidates.saturating_sub(b.promoted.max(0) as u64)
        ));
    }
    out.push_str("\n## Per axis\n\n| axis | accepted | capped | locality-removed | retained | evaluation | eval sev 1 / 2 / 3 |\n|---|---|---|---|---|---|---|\n");
    for t in &s.per_axis {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} |\n",
            t.axis,
            t.accepted,
            t.capped,
            t.locality_removed,
            t.retained,
            t.eval,
            t.eval_severity[0],
            t.eval_severity[1],
            t.eval_severity[2]
        ));
    }
    out.push_str("\n## Per source dataset\n\n| source | retained | evaluation |\n|---|---|---|\n");
    for (source, RecordedSource { retained: r, eval: e }) in &s.by_source {
        out.push_str(&format!("| {source} | {r} | {e} |\n"));
    }
    out.push_str(&format!(
        "\n## Parameters\n\nCaps {}; {} evaluation rows per axis; seed {}; strata: axis, then {}.\n\n",
        if s.params.caps.is_empty() {
            "none".to_string()
        } else {
            s.params.caps.iter().map(|(a, n)| format!("{a}={n}")).collect::<Vec<_>>().join(", ")
        },
        s.params.per_axis,
        s.params.seed,
        s.params.strata.join(", ")
    ));
    if !s.locality_removed.is_empty() {
        out.push_str("## Removed by the locality audit\n\n");
        for r in &s.locality_removed {
            out.push_str(&format!("- `{}` ({}): {}\n", r.id, r.axis, r.reason));
        }
        out.push('\n');
    }
    if let Some(p) = &s.promotion {
        promotion_section(&mut out, p);
    }
    if let Some(families) = &s.by_family {
        out.push_str("## Per construction family\n\nHow each candidate was made (its `construction_family`, `none` when the import gave none). The family is metadata for stratifying and auditing results: it is not meant as evaluator input.\n\n| construction family | retained | evaluation |\n|---|---|---|\n");
        for (family, RecordedSource { retained: r, eval: e }) in families {
            out.push_str(&format!("| {family} | {r} | {e} |\n"));
        }
        out.push('\n');
    }
    if let Some(u) = &s.suggestion_uptake {
        uptake_section(&mut out, u);
    }
    if let Some(a) = &s.audit_at_lock {
        audit_section(&mut out, a);
    }
    if let Some(a) = &s.leakage_audit {
        out.push_str(&format!(
            "## Leakage audit\n\nThe {} evaluation rows were compared with the {} other retained rows: groups shared {}, passages shared {}, raised claims shared {} (passages and claims compared with case, spacing and punctuation ignored). All three are zero by construction; `forcebench verify` recomputes them from the files.\n\n",
            a.eval_rows, a.rest_rows, a.shared_groups, a.shared_passages, a.shared_raised_claims
        ));
    }
    out.push_str("## Intended use and limits\n\nFor measuring whether citation evaluators notice when a claim is stronger than its cited passage allows: score both claims of each pair and report the monotonicity violation rate and force sensitivity. The set is small and English-only; its passages come from the source datasets named above and inherit their topics and errors; one axis per row is a simplification, since real overclaims can move on several. The labels reflect two annotators and one adjudicator following the project's guideline. It is not training data for claim verification and says nothing about whether a passage is true.\n");
    out
}

/// How the rows were promoted: affirmed one by one or in bulk, by whom, and the
/// accepted rows held back because a promotion check was not affirmed. Only splits locked with
/// a promotion record have this section.
fn promotion_section(out: &mut String, p: &super::Promotion) {
    out.push_str("## Promotion\n\n");
    out.push_str(&format!(
        "A row enters the split only when the adjudicator affirmed every promotion check (the evidence span decides the support boundary, the passage licenses the calibrated claim and not the raised one, the raised claim moves along one dominant, local axis and adds nothing unrelated). Of the {} retained rows, {} were affirmed one by one and {} in bulk (an explicit bulk affirmation naming its author).\n\n",
        p.one_by_one + p.in_bulk,
        p.one_by_one,
        p.in_bulk
    ));
    out.push_str("| adjudicator | one by one | in bulk |\n|---|---|---|\n");
    for (who, [one, bulk]) in &p.by {
        out.push_str(&format!("| {who} | {one} | {bulk} |\n"));
    }
    out.push_str(&format!(
        "\nHeld back because a promotion check was not affirmed: {} accepted row(s).\n",
        p.held_back.len()
    ));
    for r in &p.held_back {
        out.push_str(&format!("- `{}` ({}): {}\n", r.id, r.axis, r.reason));
    }
    out.push('\n');
}

/// How much of the drafters' suggestions the annotators kept and how much they changed: every
/// field over all annotations, then per drafter and per construction family (only for projects
/// with contexts, whose candidates were drafted in the project). Counts stand beside each share,
/// and the annotations left out because their suggestions were hidden are counted.
fn uptake_section(out: &mut String, u: &crate::contexts::uptake::UptakeReport) {
    out.push_str(&format!(
        "## Suggestions followed through\n\nEach finished annotation whose suggestions were shown ({} annotations; {} with suggestions hidden left out) compared with the suggestion it started from, field by field: kept as suggested, or edited (changed or emptied). A promoted candidate's drafter is the author of its draft (a person, or a model); `imported` rows came from a candidate file.\n\n",
        u.annotations, u.hidden
    ));
    if u.by_field.is_empty() {
        out.push_str("No suggested field was compared: no finished annotation of a row with suggestions.\n\n");
        return;
    }
    out.push_str(
        "| by | field | kept | edited | compared | kept share | edited share |\n|---|---|---|---|---|---|---|\n",
    );
    let share = |r: Option<f64>| r.map_or("—".to_string(), |r| format!("{:.1}%", r * 100.0));
    let mut row = |by: &str, field: &str, x: &crate::contexts::uptake::Uptake| {
        out.push_str(&format!(
            "| {by} | {field} | {} | {} | {} | {} | {} |\n",
            x.accepted,
            x.edited,
            x.compared,
            share(x.acceptance_rate),
            share(x.edit_rate)
        ));
    };
    for (field, x) in &u.by_field {
        row("all", field, x);
    }
    for (kind, table) in [("drafter", &u.by_drafter), ("family", &u.by_family)] {
        for (key, fields) in table {
            for (field, x) in fields {
                row(&format!("{kind} {key}"), field, x);
            }
        }
    }
    out.push('\n');
}

/// The final audit as the lock found it: whether every selected row's locality warnings were
/// reviewed and QC errors resolved, what was skipped when the lead locked anyway, and how many
/// double-annotated rows were never adjudicated. Only splits locked with an audit record have it.
fn audit_section(out: &mut String, a: &super::LockAudit) {
    out.push_str("## Final audit at lock\n\n");
    if a.allowed_unreviewed {
        out.push_str("The split was locked with its final audit unfinished (`--allow-unreviewed`): the rows below were not reviewed or resolved.\n\n");
        for r in &a.unreviewed_locality {
            out.push_str(&format!("- `{}`: locality warning not reviewed ({})\n", r.id, r.checks.join(", ")));
        }
        for r in &a.qc_errors {
            out.push_str(&format!("- `{}`: QC error not resolved ({})\n", r.id, r.checks.join(", ")));
        }
        out.push('\n');
    } else {
        out.push_str("Every selected row with a locality warning was reviewed (marked nonlocal or kept) and no selected row has a QC error.\n\n");
    }
    out.push_str(&format!("Adjudication: {}.\n\n", a.never_adjudicated_words()));
}

/// What the lock recorded of a split, read back from its stored manifest: an export writes the
/// datasheet and the removal list from it rather than recomputing them.
#[derive(Deserialize)]
pub(super) struct Recorded {
    pub(super) split: RecordedSplit,
    pub(super) params: SplitParams,
    pub(super) counts: StageCounts,
    pub(super) per_axis: Vec<AxisTable>,
    pub(super) by_source: BTreeMap<String, RecordedSource>,
    pub(super) capped: Vec<LeftOut>,
    pub(super) locality_removed: Vec<LeftOut>,
    /// Absent from splits locked before the promotion record: their datasheet stays as it was.
    #[serde(default)]
    pub(super) promotion: Option<super::Promotion>,
    /// Counts per construction family, and the leakage audit.
    #[serde(default)]
    pub(super) by_family: Option<BTreeMap<String, RecordedSource>>,
    #[serde(default)]
    pub(super) leakage_audit: Option<super::LeakageAudit>,
    /// Present only for projects with contexts: the datasheet's counts then begin at them.
    #[serde(default)]
    pub(super) before_candidacy: Option<crate::contexts::ContextCounts>,
    /// Recorded with `before_candidacy`: the suggestions followed through.
    #[serde(default)]
    pub(super) suggestion_uptake: Option<crate::contexts::uptake::UptakeReport>,
    /// Absent from splits locked before the lock waited for the final audit.
    #[serde(default)]
    pub(super) audit_at_lock: Option<super::LockAudit>,
}

#[derive(Deserialize)]
pub(super) struct RecordedSplit {
    pub(super) version: i64,
    pub(super) locked_at: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct RecordedSource {
    pub(super) retained: u64,
    pub(super) eval: u64,
}
