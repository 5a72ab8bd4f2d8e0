//! Contexts before candidacy: import, screening with reasons, drafting by hand, promotion into
//! candidates and exclusion, and the counts of every step.

use crate::common::*;
use forcebench::contexts::{self, draft, ContextStage, ExclusionReason, ScreenDecision};
use forcebench::Project;
use std::collections::BTreeMap;

const PASSAGE: &str = "In a trial of 120 adults, the drug may reduce pain, the authors said.";

/// A context file in a common cited-QA shape: `question`, `evidence`, `dataset`, `example_id`.
fn qa_csv(ids: &[(&str, &str)]) -> String {
    let mut s = String::from("context_id,dataset,example_id,question,evidence\n");
    for (id, source) in ids {
        s.push_str(&format!("{id},{source},ex-{id},Does the drug help?,\"{PASSAGE}\"\n"));
    }
    s
}

fn project_with(ids: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
    let (dir, _, mut project) = temp_project();
    let file = write(dir.path(), "contexts.csv", qa_csv(ids));
    contexts::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    (dir, project)
}

fn stage(project: &Project, id: &str) -> ContextStage {
    contexts::get(project, id).unwrap().stage
}

/// Fills a hand draft that promotion accepts.
fn draft_ok(project: &mut Project, id: &str) {
    for (field, value) in [
        ("evidence_span", "may reduce pain"),
        ("calibrated_claim", "The drug may reduce pain in adults."),
        ("raised_claim", "The drug reduces pain in adults."),
        ("axis", "modality"),
        ("severity", "2"),
    ] {
        draft::set(project, id, field, value, "dana").unwrap();
    }
}

#[test]
fn a_cited_qa_file_is_read_through_the_field_name_table() {
    let (_dir, project) = project_with(&[("c1", "ExpertQA"), ("c2", "ELI5")]);
    let rows = contexts::list(&project).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].id, "c1");
    assert_eq!(rows[0].source_dataset, "ExpertQA");
    assert_eq!(rows[0].source_id, "ex-c1");
    assert_eq!(rows[0].context, "Does the drug help?");
    assert_eq!(rows[0].passage, PASSAGE);
    assert_eq!(rows[0].group_id, None);
    assert_eq!(rows[0].stage, ContextStage::Unscreened);
}

#[test]
fn reimporting_is_a_no_op_and_a_changed_row_refuses_the_whole_file() {
    let (dir, mut project) = project_with(&[("c1", "ExpertQA")]);
    let same = write(dir.path(), "same.csv", qa_csv(&[("c1", "ExpertQA")]));
    let r = contexts::import_file(&mut project, &same, &mut |_, _| {}).unwrap();
    assert_eq!((r.inserted, r.unchanged), (0, 1));
    let before = dump(&project);
    // c9 is new, c1 changed its source: nothing at all is written.
    let changed = write(dir.path(), "changed.csv", qa_csv(&[("c9", "ExpertQA"), ("c1", "ELI5")]));
    let err = contexts::import_file(&mut project, &changed, &mut |_, _| {}).unwrap_err();
    assert_eq!(err.code(), "import_conflict");
    let forcebench::Error::ImportConflict { conflicts, .. } = err else { panic!() };
    assert_eq!(conflicts.len(), 1);
    assert_eq!((conflicts[0].id.as_str(), conflicts[0].line), ("c1", 3));
    assert_eq!(conflicts[0].fields, vec!["source_dataset"]);
    assert_eq!(dump(&project), before);
}

#[test]
fn a_bad_file_is_refused_whole_with_every_problem_named() {
    let (dir, _, mut project) = temp_project();
    let before = dump(&project);
    let file = write(
        dir.path(),
        "bad.jsonl",
        concat!(
            "{\"id\":\"a\",\"source_dataset\":\"X\",\"source_id\":\"1\",\"context\":\"q\",\"passage\":\"p\"}\n",
            // Two names for one field.
            "{\"id\":\"b\",\"source_dataset\":\"X\",\"source_id\":\"2\",\"question\":\"q\",\"context\":\"q2\",\"passage\":\"p\"}\n",
            // A number where text is meant.
            "{\"id\":\"c\",\"source_dataset\":\"X\",\"source_id\":3,\"context\":\"q\",\"passage\":\"p\"}\n",
            // A repeated key.
            "{\"id\":\"d\",\"id\":\"e\",\"source_dataset\":\"X\",\"source_id\":\"4\",\"context\":\"q\",\"passage\":\"p\"}\n",
            // An unknown key, and no passage.
            "{\"id\":\"f\",\"source_dataset\":\"X\",\"source_id\":\"5\",\"context\":\"q\",\"answers\":\"x\"}\n",
            // An invisible character in an id; a duplicate id.
            "{\"id\":\"g\u{200B}\",\"source_dataset\":\"X\",\"source_id\":\"6\",\"context\":\"q\",\"passage\":\"p\"}\n",
            "{\"id\":\"a\",\"source_dataset\":\"X\",\"source_id\":\"7\",\"context\":\"q\",\"passage\":\"p\"}\n",
        ),
    );
    let err = contexts::import_file(&mut project, &file, &mut |_, _| {}).unwrap_err();
    let forcebench::Error::InvalidInput { problems, .. } = err else { panic!("{err:?}") };
    let at: Vec<(Option<u64>, Option<&str>)> = problems.iter().map(|p| (p.line, p.field.as_deref())).collect();
    assert!(at.contains(&(Some(2), Some("context"))), "{problems:#?}");
    assert!(problems.iter().any(|p| p.line == Some(2) && p.message.contains("`question` and `context`")));
    assert!(at.contains(&(Some(3), Some("source_id"))));
    assert!(at.contains(&(Some(4), Some("id"))));
    assert!(at.contains(&(Some(5), Some("answers"))));
    assert!(at.contains(&(Some(5), Some("passage"))));
    assert!(at.contains(&(Some(6), Some("id"))));
    assert!(problems.iter().any(|p| p.line == Some(7) && p.message.contains("duplicate id `a`")));
    assert_eq!(dump(&project), before, "a refused file writes nothing");

    // A CSV header naming one field twice (by its name and an alias) is refused at line 1.
    let csv = write(dir.path(), "two.csv", "id,source_dataset,source_id,context,question,passage\na,X,1,q,q,p\n");
    let err = contexts::import_file(&mut project, &csv, &mut |_, _| {}).unwrap_err();
    let forcebench::Error::InvalidInput { problems, .. } = err else { panic!() };
    assert_eq!(problems[0].line, Some(1));
    assert_eq!(problems[0].field.as_deref(), Some("context"));
    // A file of another kind is named as a context file.
    let txt = write(dir.path(), "c.txt", "x");
    let err = contexts::import_file(&mut project, &txt, &mut |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("context files must end in .csv or .jsonl"), "{err}");
}

#[test]
fn candidate_files_still_read_as_before() {
    // Broke if sharing the readers changed candidate import: the header's unknown column and a
    // repeated column keep their messages.
    let (dir, _, mut project) = temp_project();
    let file = write(dir.path(), "c.csv", format!("{HEADER},question\n{},x\n", csv_row("a")));
    let err = forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap_err();
    let forcebench::Error::InvalidInput { problems, .. } = err else { panic!() };
    assert_eq!(problems[0].field.as_deref(), Some("question"));
    assert!(problems[0].message.starts_with("unknown column; the columns are id, group_id"));
    let file = write(dir.path(), "d.csv", format!("{HEADER},axis\n{},scope\n", csv_row("a")));
    let err = forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap_err();
    let forcebench::Error::InvalidInput { problems, .. } = err else { panic!() };
    assert_eq!(problems[0].message, "this column appears twice in the header");
}

#[test]
fn screening_needs_a_reason_to_drop_and_counts_per_reason_and_source() {
    let (_dir, mut project) =
        project_with(&[("c1", "ExpertQA"), ("c2", "ExpertQA"), ("c3", "ELI5"), ("c4", "ELI5"), ("c5", "ELI5")]);
    let before = dump(&project);
    let err = contexts::screen(&mut project, "c1", ScreenDecision::Drop, None, None, "lee").unwrap_err();
    assert_eq!(err.code(), "reason_required");
    let err = contexts::screen(
        &mut project,
        "c1",
        ScreenDecision::Keep,
        Some(ExclusionReason::OrdinaryAddition),
        None,
        "lee",
    )
    .unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    let err = contexts::screen(&mut project, "nope", ScreenDecision::Keep, None, None, "lee").unwrap_err();
    assert_eq!(err.code(), "context_not_found");
    // A note of only invisible characters says nothing: refused, not stored as a note.
    let err = contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, Some(" \u{200B}\u{2060} "), "lee")
        .unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert!("drop_it".parse::<ExclusionReason>().is_err());
    assert_eq!(dump(&project), before, "refusals write nothing");

    let r = contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, Some("numeric boundary"), "lee").unwrap();
    assert!(r.changed);
    let r = contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, Some("numeric boundary"), "lee").unwrap();
    assert!(!r.changed, "the same decision twice is one record");
    contexts::screen(&mut project, "c2", ScreenDecision::Drop, Some(ExclusionReason::NoVisibleBoundary), None, "lee")
        .unwrap();
    contexts::screen(&mut project, "c3", ScreenDecision::Drop, Some(ExclusionReason::NoVisibleBoundary), None, "lee")
        .unwrap();
    contexts::screen(&mut project, "c4", ScreenDecision::Drop, Some(ExclusionReason::PassageUnavailable), None, "lee")
        .unwrap();
    // c4 changes its mind: the later decision is in force, the earlier one stays in the history.
    contexts::screen(&mut project, "c4", ScreenDecision::Keep, None, None, "lee").unwrap();
    assert_eq!(contexts::screenings(&project, "c4").unwrap().len(), 2);

    let c = contexts::accounting(project.conn()).unwrap().unwrap();
    assert_eq!((c.imported, c.unscreened, c.dropped, c.kept), (5, 1, 2, 2));
    assert_eq!(c.dropped_by_reason["no_visible_boundary"], 2);
    assert_eq!(c.dropped_by_reason["passage_unavailable"], 0);
    assert_eq!(c.dropped_by_reason.len(), 5, "every reason is listed");
    assert_eq!((c.by_source["ExpertQA"].kept, c.by_source["ExpertQA"].dropped), (1, 1));
    assert_eq!((c.by_source["ELI5"].imported, c.by_source["ELI5"].kept, c.by_source["ELI5"].dropped), (3, 1, 1));
    assert!(c.mismatches().is_empty());
}

#[test]
fn a_draft_is_written_by_hand_one_version_at_a_time_and_promoted_into_a_candidate() {
    let (_dir, mut project) = project_with(&[("c1", "ExpertQA"), ("c2", "ExpertQA")]);
    // Only a kept context is drafted.
    let err = draft::set(&mut project, "c1", "repair", "x", "dana").unwrap_err();
    assert_eq!(err.code(), "wrong_row_state");
    contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, None, "lee").unwrap();
    let err = draft::set(&mut project, "c1", "passage", "x", "dana").unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert!(err.to_string().contains("evidence_span, calibrated_claim"), "{err}");

    draft::set(&mut project, "c1", "calibrated_claim", "The drug may reduce pain.", "dana").unwrap();
    assert_eq!(stage(&project, "c1"), ContextStage::Drafted);
    let r = draft::set(&mut project, "c1", "calibrated_claim", "The drug may reduce pain.", "dana").unwrap();
    assert!(!r.changed);
    // A promotion with a field missing and a span not in the passage is refused whole.
    draft::set(&mut project, "c1", "evidence_span", "reduces pain", "dana").unwrap();
    let before = dump(&project);
    let err = draft::promote(&mut project, &["c1".into()], false, "lee").unwrap_err();
    let forcebench::Error::InvalidInput { problems, .. } = err else { panic!("{err:?}") };
    let named: Vec<(&str, Option<&str>)> = problems.iter().map(|p| (p.file.as_str(), p.field.as_deref())).collect();
    assert!(named.contains(&("draft c1", Some("raised_claim"))), "{problems:#?}");
    assert!(named.contains(&("draft c1", Some("evidence_span"))), "{problems:#?}");
    assert_eq!(dump(&project), before);

    draft_ok(&mut project, "c1");
    let history = draft::history(&project, "c1").unwrap();
    assert_eq!(history.len(), 7, "every suggestion is kept");
    assert!(history.iter().all(|d| d.origin == draft::DraftOrigin::Hand && d.author == "dana"));
    assert_eq!(history[0].fields.evidence_span, None);
    assert_eq!(history[1].fields.evidence_span.as_deref(), Some("reduces pain"), "old versions are unchanged");

    let r = draft::promote(&mut project, &["c1".into()], false, "lee").unwrap();
    assert_eq!(r.promoted, vec!["c1"]);
    let c = forcebench::candidate::get(&project, "c1").unwrap();
    assert_eq!(c.candidate.group_id, "c1", "a context without a group is its own group");
    assert_eq!(c.candidate.source_id, "ex-c1");
    assert_eq!(c.candidate.passage, PASSAGE);
    assert_eq!(c.candidate.evidence_span.as_deref(), Some("may reduce pain"));
    assert_eq!(c.candidate.severity, Some(2));
    assert_eq!(c.candidate.construction_family.as_deref(), Some("hand"));
    let linked: Option<String> =
        project.conn().query_row("SELECT context_id FROM candidates WHERE id = 'c1'", [], |r| r.get(0)).unwrap();
    assert_eq!(linked.as_deref(), Some("c1"));
    assert_eq!(stage(&project, "c1"), ContextStage::Promoted);
    // A promoted context's draft and screening stay as they are; the decision in force asked
    // again (a script run twice) records nothing and is no error.
    assert_eq!(draft::set(&mut project, "c1", "repair", "x", "dana").unwrap_err().code(), "wrong_row_state");
    let again = contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, None, "lee").unwrap();
    assert!(!again.changed);
    assert_eq!(contexts::screenings(&project, "c1").unwrap().len(), 1);
    let err = contexts::screen(
        &mut project,
        "c1",
        ScreenDecision::Drop,
        Some(ExclusionReason::OrdinaryAddition),
        None,
        "lee",
    );
    assert_eq!(err.unwrap_err().code(), "wrong_row_state");
    assert_eq!(draft::promote(&mut project, &["c1".into()], false, "lee").unwrap_err().code(), "wrong_row_state");
    // The records cannot be changed behind the core's back either.
    assert!(project.conn().execute("UPDATE drafts SET raised_claim = 'x'", []).is_err());
    assert!(project.conn().execute("DELETE FROM draft_outcomes", []).is_err());
}

#[test]
fn a_persons_change_to_a_model_draft_is_a_template_edit() {
    let (_dir, mut project) = project_with(&[("c1", "ExpertQA")]);
    contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, None, "lee").unwrap();
    project
        .conn()
        .execute(
            "INSERT INTO drafts (context_id, version, origin, author, calibrated_claim, raised_claim, evidence_span, axis, severity, created_at)
             VALUES ('c1', 1, 'model', 'm', 'The drug may reduce pain in adults.', 'The drug reduces pain in adults.', 'may reduce pain', 'modality', '2', 'now')",
            [],
        )
        .unwrap();
    assert_eq!(draft::list(&project).unwrap()[0].problems, vec![], "the model's draft may be promoted as it is");
    draft::set(&mut project, "c1", "repair", "The drug may reduce pain.", "dana").unwrap();
    let d = &draft::list(&project).unwrap()[0].draft;
    assert_eq!((d.version, d.origin), (2, draft::DraftOrigin::TemplateEdit));
    draft::promote(&mut project, &[], true, "lee").unwrap();
    let c = forcebench::candidate::get(&project, "c1").unwrap();
    assert_eq!(c.candidate.construction_family.as_deref(), Some("template_edit"));
}

#[test]
fn excluded_and_promoted_drafts_add_up_from_imported_to_candidates() {
    let ids = [("c1", "A"), ("c2", "A"), ("c3", "B"), ("c4", "B"), ("c5", "B"), ("c6", "B")];
    let (_dir, mut project) = project_with(&ids);
    for (id, _) in &ids[..5] {
        contexts::screen(&mut project, id, ScreenDecision::Keep, None, None, "lee").unwrap();
    }
    contexts::screen(&mut project, "c6", ScreenDecision::Drop, Some(ExclusionReason::PassageUnavailable), None, "lee")
        .unwrap();
    for id in ["c1", "c2", "c3", "c4"] {
        draft_ok(&mut project, id);
    }
    // A drafted context is excluded through its draft, not dropped at screening.
    let err = contexts::screen(
        &mut project,
        "c2",
        ScreenDecision::Drop,
        Some(ExclusionReason::OrdinaryAddition),
        None,
        "lee",
    );
    assert!(err.unwrap_err().to_string().contains("draft exclude c2"));
    let err = draft::exclude(&mut project, "c5", ExclusionReason::OrdinaryAddition, None, "lee").unwrap_err();
    assert_eq!(err.code(), "wrong_row_state", "c5 has no draft");
    draft::exclude(&mut project, "c2", ExclusionReason::ChangesEntityOrTarget, Some("answer target moves"), "lee")
        .unwrap();
    draft::exclude(&mut project, "c3", ExclusionReason::NeedsOutsideKnowledge, None, "lee").unwrap();
    let err = draft::promote(&mut project, &["c1".into(), "c2".into()], false, "lee").unwrap_err();
    assert_eq!(err.code(), "wrong_row_state", "an excluded draft is not promoted, nor anything with it");
    assert_eq!(stage(&project, "c1"), ContextStage::Drafted);
    let err = draft::promote(&mut project, &["c1".into()], true, "lee").unwrap_err();
    assert_eq!(err.code(), "invalid_argument", "ids and --all together");
    let r = draft::promote(&mut project, &[], true, "lee").unwrap();
    assert_eq!(r.promoted, vec!["c1", "c4"]);
    assert!(draft::promote(&mut project, &[], true, "lee").unwrap().promoted.is_empty());

    let c = contexts::accounting(project.conn()).unwrap().unwrap();
    // By hand: 6 imported; c6 dropped; c1-c5 kept; c5 not drafted; c1-c4 drafted; c2, c3
    // excluded; c1, c4 promoted.
    assert_eq!(
        (c.imported, c.dropped, c.kept, c.awaiting_draft, c.drafted, c.pending, c.excluded, c.promoted),
        (6, 1, 5, 1, 4, 0, 2, 2)
    );
    assert_eq!(c.excluded_by_reason["changes_entity_or_target"], 1);
    assert_eq!(c.excluded_by_reason["needs_outside_knowledge"], 1);
    assert_eq!(c.dropped_by_reason["passage_unavailable"], 1);
    assert_eq!((c.by_source["A"].promoted, c.by_source["B"].promoted, c.by_source["B"].excluded), (1, 1, 1));
    assert!(c.mismatches().is_empty());
    assert_eq!(forcebench::candidate::list(&project).unwrap().len(), 2);

    // The identities catch a count that does not add up.
    let mut broken = c.clone();
    broken.promoted += 1;
    assert_eq!(broken.mismatches().len(), 2, "{:?}", broken.mismatches());
}

#[test]
fn a_project_without_contexts_has_no_accounting_before_candidacy() {
    let (_dir, _, mut project) = temp_project();
    forcebench::sample::load_sample(&mut project).unwrap();
    assert_eq!(contexts::accounting(project.conn()).unwrap(), None);
}

#[test]
fn contexts_are_the_leads_steps() {
    use crate::packets::{issue, packet_for};
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), forcebench::packets::Blinding::Standard);
    let mut ws = forcebench::workspace::open_or_resume(&packet_for(&list, "ana")).unwrap();
    let file = write(dir.path(), "contexts.csv", qa_csv(&[("c1", "A")]));
    let before = dump(&ws);
    let err = contexts::import_file(&mut ws, &file, &mut |_, _| {}).unwrap_err();
    assert_eq!(err.code(), "lead_only");
    let err = contexts::screen(&mut ws, "c1", ScreenDecision::Keep, None, None, "ana").unwrap_err();
    assert_eq!(err.code(), "lead_only");
    let err = draft::set(&mut ws, "c1", "repair", "x", "ana").unwrap_err();
    assert_eq!(err.code(), "lead_only");
    let err = draft::promote(&mut ws, &[], true, "ana").unwrap_err();
    assert_eq!(err.code(), "lead_only");
    assert_eq!(dump(&ws), before);
}

#[test]
fn the_funnel_begins_at_the_contexts_through_status_split_export_and_verify() {
    use forcebench::split as fs;
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "p.forcebench", &[("modality", 6), ("scope", 6)], 1, 1);
    // A project without contexts: no key, as before.
    let status = serde_json::to_value(forcebench::status::status(&p).unwrap()).unwrap();
    assert!(status.get("contexts").is_none());

    let ids = [("c1", "A"), ("c2", "A"), ("c3", "B"), ("c4", "B"), ("c5", "B")];
    let file = write(dir.path(), "contexts.csv", qa_csv(&ids));
    contexts::import_file(&mut p, &file, &mut |_, _| {}).unwrap();
    for id in ["c1", "c2", "c4"] {
        contexts::screen(&mut p, id, ScreenDecision::Keep, None, None, "lee").unwrap();
    }
    contexts::screen(&mut p, "c3", ScreenDecision::Drop, Some(ExclusionReason::NoVisibleBoundary), None, "lee")
        .unwrap();
    draft_ok(&mut p, "c1");
    draft_ok(&mut p, "c2");
    draft::exclude(&mut p, "c2", ExclusionReason::OrdinaryAddition, None, "lee").unwrap();
    draft::promote(&mut p, &["c1".into()], false, "lee").unwrap();

    // By hand: 5 imported; c5 unscreened; c3 dropped; c1, c2, c4 kept; c4 not drafted; c1, c2
    // drafted; c2 excluded; c1 promoted. 13 candidates from the file, and c1.
    let status = forcebench::status::status(&p).unwrap();
    assert_eq!(status.candidates, 14);
    let c = status.contexts.unwrap();
    assert_eq!((c.imported, c.unscreened, c.dropped, c.kept, c.awaiting_draft), (5, 1, 1, 3, 1));
    assert_eq!((c.drafted, c.pending, c.excluded, c.promoted), (2, 0, 1, 1));

    let show = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(2), None)).unwrap();
    assert_eq!(show.before_candidacy.as_ref().map(|b| b.promoted), Some(1));
    assert_eq!(fs::show(&p).unwrap().unwrap().before_candidacy, show.before_candidacy);
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    let sheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    for line in [
        "| contexts imported | 5 |\n| ↳ not screened yet | 1 |\n| ↳ dropped at screening | 1 |\n| ↳ ↳ no_visible_boundary | 1 |\n| kept | 3 |\n| ↳ not drafted yet | 1 |\n| drafted | 2 |\n| ↳ excluded before candidacy | 1 |\n| ↳ ↳ ordinary_addition | 1 |\n| promoted to candidates | 1 |\n| candidates | 14 |",
        "The candidate pool holds 14 rows: 1 promoted from contexts and 13 imported as candidate rows.",
        // Both annotators kept the suggested axis of the 13 file rows they labelled.
        "## Suggestions followed through\n\nEach finished annotation whose suggestions were shown (26 annotations; 0 with suggestions hidden left out)",
        // Counts beside both shares, every field over all annotations first.
        "| by | field | kept | edited | compared | kept share | edited share |",
        "| all | axis | 26 | 0 | 26 | 100.0% | 0.0% |",
        "| drafter imported | axis | 26 | 0 | 26 | 100.0% | 0.0% |",
        "| family none | axis | 26 | 0 | 26 | 100.0% | 0.0% |",
    ] {
        assert!(sheet.contains(line), "{line}\n---\n{sheet}");
    }
    fs::verify(&out).unwrap();

    // A manifest whose counts before candidacy do not add up is refused, every hash recomputed.
    let forged = dir.path().join("forged");
    std::fs::create_dir(&forged).unwrap();
    for name in fs::EXPORT_FILES {
        std::fs::copy(out.join(name), forged.join(name)).unwrap();
    }
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(forged.join("manifest.json")).unwrap()).unwrap();
    m["before_candidacy"]["promoted"] = 2.into();
    std::fs::write(forged.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
    crate::split::reseal(&forged);
    let err = fs::verify(&forged).unwrap_err();
    assert_eq!(err.code(), "verify_failed");
    assert!(
        err.to_string().ends_with("before_candidacy: drafted is 2, but pending + excluded + promoted add up to 3"),
        "{err}"
    );
    // So is an uptake whose kept and edited do not make up what was compared.
    let forged = dir.path().join("forged-uptake");
    std::fs::create_dir(&forged).unwrap();
    for name in fs::EXPORT_FILES {
        std::fs::copy(out.join(name), forged.join(name)).unwrap();
    }
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(forged.join("manifest.json")).unwrap()).unwrap();
    m["suggestion_uptake"]["by_field"]["axis"]["accepted"] = 25.into();
    std::fs::write(forged.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
    crate::split::reseal(&forged);
    let err = fs::verify(&forged).unwrap_err();
    assert!(err.to_string().ends_with("suggestion_uptake (all, axis): 25 kept + 0 edited, but 26 compared"), "{err}");
}

#[test]
fn a_promotion_refused_says_nothing_was_promoted_and_never_overwrites_a_candidate() {
    let (dir, mut project) = project_with(&[("c1", "ExpertQA")]);
    contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, None, "lee").unwrap();
    draft::set(&mut project, "c1", "calibrated_claim", "The drug may reduce pain.", "dana").unwrap();
    let err = draft::promote(&mut project, &[], true, "lee").unwrap_err();
    assert_eq!(
        err.to_string(),
        "the drafts to promote: 1 problem found; nothing was promoted\n  draft c1: field `raised_claim`: required field is missing or empty"
    );
    // A candidate imported from a file under the context's id, with other content.
    let file = write(dir.path(), "c.csv", csv_file(&[csv_row("c1")]));
    forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    draft_ok(&mut project, "c1");
    let before = dump(&project);
    let err = draft::promote(&mut project, &["c1".into()], false, "lee").unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert!(err.to_string().contains("draft c1: a candidate with this id is already in the pool with other content (it differs in group_id, source_id, passage"), "{err}");
    assert_eq!(dump(&project), before);
}

#[test]
fn the_demo_project_has_contexts_at_every_stage() {
    let (_dir, _, mut project) = temp_project();
    forcebench::sample::load_demo_project(&mut project).unwrap();
    let stages: Vec<ContextStage> = contexts::list(&project).unwrap().into_iter().map(|r| r.stage).collect();
    for s in [
        ContextStage::Unscreened,
        ContextStage::Dropped,
        ContextStage::Kept,
        ContextStage::Drafted,
        ContextStage::Excluded,
        ContextStage::Promoted,
    ] {
        assert!(stages.contains(&s), "no context at {s:?}: {stages:?}");
    }
    let c = contexts::accounting(project.conn()).unwrap().unwrap();
    assert!(c.mismatches().is_empty());
    assert!(c.dropped_by_reason.values().filter(|n| **n > 0).count() >= 2);
    assert!(c.excluded_by_reason.values().filter(|n| **n > 0).count() >= 2);
    // One waiting draft is ready, one shows what promotion would refuse.
    let waiting: Vec<usize> = draft::list(&project)
        .unwrap()
        .into_iter()
        .filter(|r| r.stage == ContextStage::Drafted)
        .map(|r| r.problems.len())
        .collect();
    assert!(waiting.contains(&0) && waiting.iter().any(|n| *n > 0), "{waiting:?}");
    // The promoted context is a candidate of its own, not assigned; the sample rows are as before.
    let status = forcebench::status::status(&project).unwrap();
    assert_eq!(status.candidates, 107);
    assert_eq!(status.states[&forcebench::vocab::WorkflowState::Imported], 1);
    // Loading the sample contexts again adds nothing.
    let drafts = |p: &Project| -> i64 { p.conn().query_row("SELECT count(*) FROM drafts", [], |r| r.get(0)).unwrap() };
    let n = drafts(&project);
    assert!(!forcebench::sample::load_sample_contexts(&mut project).unwrap());
    assert_eq!((drafts(&project), contexts::accounting(project.conn()).unwrap().unwrap()), (n, c));
}

#[test]
fn the_sample_contexts_match_the_context_schema_once_their_names_are_mapped() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schema/context.schema.json")).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let mut reader = csv::Reader::from_path(root.join("sample-data/contexts.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let field = |name: &str| {
        contexts::FIELD_NAMES.iter().find(|(alias, _)| *alias == name).map_or(name.to_string(), |(_, f)| f.to_string())
    };
    let mut n = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let object: serde_json::Map<String, serde_json::Value> =
            headers.iter().zip(record.iter()).map(|(h, v)| (field(h), v.into())).collect();
        let instance = serde_json::Value::Object(object);
        assert!(v.is_valid(&instance), "{instance}");
        n += 1;
    }
    assert_eq!(n, 10);
    // Every alias the table names is documented in the schema beside its field.
    for (alias, f) in contexts::FIELD_NAMES {
        let text = schema["properties"][f]["description"].as_str().unwrap();
        assert!(text.contains(alias), "{alias} is not documented for {f}");
    }
    assert!(!v.is_valid(&serde_json::json!({"id": "a", "source_dataset": "X", "source_id": "1", "context": "q", "passage": "p", "answers": []})));
}

/// Two rows annotated by ana and ben: `f1` imported from a candidate file, `c1` drafted by hand
/// by dana (a repair added to the drafted fields) and promoted. ana changes the axis of both
/// rows; ben changes the severity of c1 only; every other field is left as suggested.
fn uptake_project() -> (tempfile::TempDir, std::path::PathBuf, forcebench::Project) {
    let (dir, path, mut project) = temp_project();
    let file = write(dir.path(), "c.csv", csv_file(&[csv_row("f1")]));
    forcebench::import::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    let ctx = write(dir.path(), "ctx.csv", qa_csv(&[("c1", "ExpertQA")]));
    contexts::import_file(&mut project, &ctx, &mut |_, _| {}).unwrap();
    contexts::screen(&mut project, "c1", ScreenDecision::Keep, None, None, "lee").unwrap();
    draft_ok(&mut project, "c1");
    draft::set(&mut project, "c1", "repair", "The drug may reduce pain in adults.", "dana").unwrap();
    draft::promote(&mut project, &[], true, "lee").unwrap();
    for (n, role) in [("ana", forcebench::roster::Role::Annotator), ("ben", forcebench::roster::Role::Annotator)] {
        forcebench::roster::add(&project, n, role).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    let ana = write(
        dir.path(),
        "ana.jsonl",
        "{\"id\":\"f1\",\"decision\":\"accept_force_gap\",\"axis\":\"scope\"}\n{\"id\":\"c1\",\"decision\":\"accept_force_gap\",\"axis\":\"scope\"}\n",
    );
    let ben = write(
        dir.path(),
        "ben.jsonl",
        "{\"id\":\"f1\",\"decision\":\"accept_force_gap\"}\n{\"id\":\"c1\",\"decision\":\"accept_force_gap\",\"severity\":3}\n",
    );
    forcebench::annotate::import_jsonl(&mut project, &ana, "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &ben, "ben").unwrap();
    (dir, path, project)
}

#[test]
fn suggestions_followed_through_per_field_drafter_and_family() {
    use forcebench::contexts::uptake;
    let (_dir, _, mut project) = uptake_project();
    let r = uptake::uptake(&project).unwrap();
    assert_eq!((r.annotations, r.hidden), (4, 0));
    // By hand: axis suggested on 4 annotations, ana edited 2 -> 2 kept of 4; severity 1 edit of 4.
    let axis = &r.by_field["axis"];
    assert_eq!((axis.compared, axis.accepted, axis.edited), (4, 2, 2));
    assert_eq!(axis.acceptance_rate, Some(0.5));
    assert_eq!((r.by_field["severity"].accepted, r.by_field["severity"].compared), (3, 4));
    // Both rows suggest a repair, kept by everyone.
    assert_eq!((r.by_field["repair"].compared, r.by_field["repair"].accepted), (4, 4));
    assert_eq!(r.by_field["calibrated_claim"].acceptance_rate, Some(1.0));
    // c1's drafter is dana (hand family); f1's is `imported`, family none.
    assert_eq!((r.by_drafter["dana"]["severity"].compared, r.by_drafter["dana"]["severity"].accepted), (2, 1));
    assert_eq!(r.by_drafter["imported"]["severity"].accepted, 2);
    assert_eq!(r.by_family["hand"]["axis"].edited, 1);
    assert_eq!(r.by_family["none"]["axis"].edited, 1);

    // An annotation last changed with the suggestions hidden is left out: its annotator did not
    // see the suggestion it would be compared with.
    forcebench::settings::set_suggestion_mode(&mut project, forcebench::settings::SuggestionMode::Hidden).unwrap();
    forcebench::annotate::set_field(&mut project, "c1", "ben", forcebench::annotate::Field::Notes, Some("checked"))
        .unwrap();
    let r = uptake::uptake(&project).unwrap();
    assert_eq!((r.annotations, r.hidden), (3, 1));
    assert_eq!(r.by_drafter["dana"]["severity"].compared, 1);
}

#[test]
fn the_agreement_report_carries_the_suggestions_followed_through_with_hidden_ones_counted() {
    use assert_cmd::Command;
    let (dir, path, mut project) = uptake_project();
    // ben's annotation of c1 last changed with suggestions hidden: left out, and counted.
    forcebench::settings::set_suggestion_mode(&mut project, forcebench::settings::SuggestionMode::Hidden).unwrap();
    forcebench::annotate::set_field(&mut project, "c1", "ben", forcebench::annotate::Field::Notes, Some("checked"))
        .unwrap();
    drop(project);
    let fb = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").env("HOME", dir.path()).arg("--project").arg(&path).args(args);
        cmd.output().unwrap()
    };
    // By hand, on ana's f1 and c1 and ben's f1: ana changed both axes, ben kept f1's; nobody
    // changed a severity. dana drafted c1, seen by ana only.
    let out = fb(&["agreement", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let u = &r["suggestion_uptake"];
    assert_eq!((u["annotations"].as_u64(), u["hidden"].as_u64()), (Some(3), Some(1)));
    let axis = &u["by_field"]["axis"];
    assert_eq!(
        (axis["compared"].as_u64(), axis["accepted"].as_u64(), axis["edited"].as_u64()),
        (Some(3), Some(1), Some(2))
    );
    assert!((axis["edit_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(u["by_drafter"]["dana"]["axis"]["edited"].as_u64(), Some(1));
    assert_eq!(u["by_family"]["hand"]["severity"]["accepted"].as_u64(), Some(1));

    let out = fb(&["agreement"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<String> = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    for want in [
        "3 finished annotation(s) compared with the suggestions they started from; 1 made with suggestions hidden left out",
        "all axis kept 1 (33.3%) edited 2 (66.7%) of 3",
        "all severity kept 3 (100.0%) edited 0 (0.0%) of 3",
        "dana axis kept 0 (0.0%) edited 1 (100.0%) of 1",
        "imported axis kept 1 (50.0%) edited 1 (50.0%) of 2",
        "hand severity kept 1 (100.0%) edited 0 (0.0%) of 1",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}\n---\n{text}");
    }
}

// Broke: `agreement --json` carried the suggestions followed through, but the CSV export (the
// app's Export, and now `agreement --out`) ended at `by_week` and left them out.
#[test]
fn the_agreement_csv_carries_the_suggestions_followed_through_counted_by_hand() {
    use assert_cmd::Command;
    let (dir, path, project) = uptake_project();
    drop(project);
    let fb = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").env("HOME", dir.path()).arg("--project").arg(&path).args(args);
        cmd.output().unwrap()
    };
    let csv_path = dir.path().join("agreement.csv");
    let out = fb(&["agreement", "--bootstrap", "0", "--out", csv_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote the agreement report to"));
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = std::collections::BTreeMap::new();
    for r in csv::Reader::from_reader(text.as_bytes()).records() {
        let r = r.unwrap();
        if r[0].starts_with("suggestion_uptake") {
            assert!(lines.insert((r[0].to_string(), r[1].to_string(), r[2].to_string()), r[3].to_string()).is_none());
        }
    }
    let get = |section: &str, statistic: &str, key: &str| {
        lines.get(&(section.into(), statistic.into(), key.into())).cloned().unwrap_or_else(|| {
            panic!("no {section},{statistic},{key} in\n{text}");
        })
    };
    // By hand from the fixture: four finished annotations (ana and ben, f1 and c1), none hidden.
    // ana changed the axis of both rows: axis kept 2 of 4. ben changed c1's severity only:
    // severity kept 3 of 4. Nobody touched a repair: kept 4 of 4.
    assert_eq!(
        (get("suggestion_uptake", "annotations", ""), get("suggestion_uptake", "hidden", "")),
        ("4".into(), "0".into())
    );
    for (field, compared, accepted, edited, acceptance, edit) in [
        ("axis", "4", "2", "2", "0.5", "0.5"),
        ("severity", "4", "3", "1", "0.75", "0.25"),
        ("repair", "4", "4", "0", "1", "0"),
    ] {
        let row = ["compared", "accepted", "edited", "acceptance_rate", "edit_rate"]
            .map(|s| get("suggestion_uptake", s, field));
        assert_eq!(row, [compared, accepted, edited, acceptance, edit].map(String::from), "{field}");
    }
    // c1 was drafted by dana (family hand): seen by ana and ben, ben changed its severity.
    // f1 was imported (family none): both kept its severity, ana changed its axis.
    for (section, key, compared, accepted, edited) in [
        ("suggestion_uptake_by_drafter", "dana|severity", "2", "1", "1"),
        ("suggestion_uptake_by_drafter", "imported|severity", "2", "2", "0"),
        ("suggestion_uptake_by_drafter", "dana|axis", "2", "1", "1"),
        ("suggestion_uptake_by_family", "hand|axis", "2", "1", "1"),
        ("suggestion_uptake_by_family", "none|axis", "2", "1", "1"),
        ("suggestion_uptake_by_family", "none|repair", "2", "2", "0"),
    ] {
        let row = ["compared", "accepted", "edited"].map(|s| get(section, s, key));
        assert_eq!(row, [compared, accepted, edited].map(String::from), "{section} {key}");
    }
    assert_eq!(get("suggestion_uptake_by_family", "edit_rate", "hand|severity"), "0.5");

    // JSON through --out is the --json report; a labels file's report is refused with a code,
    // and so is a format that is neither.
    let json_path = dir.path().join("agreement.json");
    assert!(fb(&["agreement", "--bootstrap", "0", "--out", json_path.to_str().unwrap(), "--format", "json"])
        .status
        .success());
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(saved["suggestion_uptake"]["by_field"]["axis"]["edited"], 2);
    let labels = write(dir.path(), "labels.csv", "item,annotator,label\n1,a,x\n1,b,x\n");
    let out = fb(&["agreement", "--from-csv", labels.to_str().unwrap(), "--out", csv_path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.starts_with("error [invalid_argument]: --out writes the project's report"),
        "{err}"
    );
    let out = fb(&["agreement", "--out", csv_path.to_str().unwrap(), "--format", "xlsx"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error [invalid_argument]: export format `xlsx` is not csv or json"), "{err}");
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), text, "a refused export leaves the file as it was");
}

#[test]
fn the_command_line_screens_drafts_and_promotes_with_coded_errors() {
    use assert_cmd::Command;
    let (dir, path, project) = temp_project();
    drop(project);
    let file = write(dir.path(), "contexts.csv", qa_csv(&[("c1", "ExpertQA"), ("c2", "ELI5")]));
    let fb = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").env("HOME", dir.path()).arg("--project").arg(&path).args(args);
        cmd.output().unwrap()
    };
    let out = fb(&["contexts", "import", file.to_str().unwrap()]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("{}: imported 2 new contexts", file.display()));
    let out = fb(&["contexts", "screen", "c1", "drop"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("error [reason_required]: dropping context `c1` needs a reason"));
    let out = fb(&["contexts", "screen", "c1", "drop", "--reason", "dull"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("error [invalid_argument]: --reason: `dull` is not an exclusion reason"));
    let out = fb(&["contexts", "list", "--stage", "finished"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("error [invalid_argument]: --stage: `finished` is not a stage"));
    assert!(fb(&["contexts", "screen", "c2", "drop", "--reason", "ordinary_addition"]).status.success());
    assert!(fb(&["contexts", "screen", "c1", "keep"]).status.success());
    for (field, value) in [
        ("evidence_span", "may reduce pain"),
        ("calibrated_claim", "The drug may reduce pain."),
        ("raised_claim", "The drug reduces pain."),
    ] {
        assert!(fb(&["draft", "set", "c1", field, value, "--by", "dana"]).status.success());
    }
    let out = fb(&["draft", "promote", "--all", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["promoted"], serde_json::json!(["c1"]));
    let out = fb(&["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["candidates"], 1);
    assert_eq!(
        (
            status["contexts"]["imported"].as_i64(),
            status["contexts"]["dropped_by_reason"]["ordinary_addition"].as_i64()
        ),
        (Some(2), Some(1))
    );
    let out = fb(&["contexts", "list", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (rows[0]["stage"].as_str(), rows[1]["screening"]["reason"].as_str()),
        (Some("promoted"), Some("ordinary_addition"))
    );
    let out = fb(&["draft", "exclude", "nope", "--reason", "ordinary_addition"]);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error [context_not_found]: no context with id `nope`"));
}
