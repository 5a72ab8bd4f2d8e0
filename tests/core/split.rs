//! The evaluation split: the paper's accounting through the CLI, determinism, groups, the lock
//! and verify.

use crate::common::*;
use assert_cmd::Command;
use forcebench::vocab::Axis;
use forcebench::split as fs;
use forcebench::Project;
use serde_json::Value;
use std::collections::BTreeMap;

const SOURCES: [&str; 5] = ["ExpertQA", "AttributedQA", "GaRAGe", "LFQA", "Stanford-GenSearch"];

/// One CSV row on `axis` in group `group`.
fn row(id: &str, group: &str, axis: &str, i: usize) -> String {
    let source = SOURCES[i % SOURCES.len()];
    format!(
        "{id},{group},{source},src-{id},Question {i}?,\"In a trial of adults (row {i}), the drug may reduce pain, the authors said.\",may reduce pain,The drug may reduce pain in adults (row {i}).,The drug reduces pain (row {i}).,The drug may reduce pain in adults.,Drops the hedge.,{axis},{}",
        1 + i % 3
    )
}

/// Writes the candidates and both annotators' labels: `accepted[axis]` rows accepted on each
/// axis, then `rejected` rows rejected. Groups: `group_size` consecutive rows of one axis.
fn files(dir: &std::path::Path, accepted: &[(&str, usize)], rejected: usize, group_size: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut rows = Vec::new();
    let mut labels = String::new();
    let mut i = 0;
    for (axis, n) in accepted {
        for k in 0..*n {
            let id = format!("r{i:04}");
            rows.push(row(&id, &format!("g-{axis}-{}", k / group_size), axis, i));
            labels.push_str(&format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"axis\":\"{axis}\"}}\n"));
            i += 1;
        }
    }
    for _ in 0..rejected {
        let id = format!("r{i:04}");
        rows.push(row(&id, &format!("g-x-{i}"), "scope", i));
        labels.push_str(&format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n"));
        i += 1;
    }
    (write(dir, "c.csv", csv_file(&rows)), write(dir, "labels.jsonl", labels))
}

/// A project where Ana and Ben agree on every label and Eve confirms them all.
pub fn project_from(dir: &std::path::Path, name: &str, accepted: &[(&str, usize)], rejected: usize, group_size: usize) -> Project {
    let (csv, labels) = files(dir, accepted, rejected, group_size);
    let mut p = Project::create(&dir.join(name), "split test").unwrap();
    forcebench::import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
    for (n, role) in [("ana", forcebench::roster::Role::Annotator), ("ben", forcebench::roster::Role::Annotator), ("eve", forcebench::roster::Role::Adjudicator)] {
        forcebench::roster::add(&p, n, role).unwrap();
    }
    forcebench::assign::assign(&mut p, 1).unwrap();
    forcebench::annotate::import_jsonl(&mut p, &labels, "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut p, &labels, "ben").unwrap();
    forcebench::adjudicate::confirm_agreements(&mut p, "eve").unwrap();
    p
}

/// The paper's accepted counts: relation 100 (capped to 48), modality 49, scope 51, temporal 40,
/// numeric 43: 283 accepted of 433.
const PAPER: [(&str, usize); 5] = [("relation", 100), ("modality", 49), ("scope", 51), ("temporal", 40), ("numeric", 43)];

fn cli(dir: &std::path::Path, project: &std::path::Path) -> impl Fn(&[&str]) -> Command {
    let (dir, project) = (dir.to_path_buf(), project.to_path_buf());
    move |args: &[&str]| {
        let mut cmd = Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").env("HOME", &dir).env("XDG_DATA_HOME", dir.join("data"));
        cmd.arg("--project").arg(&project).args(args);
        cmd
    }
}

fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

fn counts(v: &Value) -> Vec<u64> {
    ["relation", "modality", "scope", "temporal", "numeric"].iter().map(|a| v[a].as_u64().unwrap()).collect()
}

#[test]
fn the_papers_accounting_through_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("paper.forcebench");
    let run = cli(dir.path(), &path);
    let (csv, labels) = files(dir.path(), &PAPER, 150, 1);
    run(&["init"]).assert().success();
    run(&["import", csv.to_str().unwrap()]).assert().success();
    for (n, r) in [("ana", "annotator"), ("ben", "annotator"), ("eve", "adjudicator")] {
        run(&["annotators", "add", n, "--role", r]).assert().success();
    }
    run(&["assign"]).assert().success();
    for who in ["ana", "ben"] {
        run(&["annotate", "import", labels.to_str().unwrap(), "--annotator", who]).assert().success();
    }
    run(&["adjudicate", "confirm-agreements", "--adjudicator", "eve"]).assert().success();
    let status = json_of(&mut run(&["status", "--json"]));
    assert_eq!((status["candidates"].as_u64(), status["funnel"]["accepted"].as_u64()), (Some(433), Some(283)));

    let draft = json_of(&mut run(&["split", "draft", "--cap", "relation=48", "--per-axis", "40", "--seed", "7", "--json"]));
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["capped"].as_array().unwrap().len(), 52);
    assert_eq!(counts(&draft["retained"]), [48, 49, 51, 40, 43]);
    assert_eq!(counts(&draft["eval"]), [40, 40, 40, 40, 40]);
    // Capping is stratified by source: relation's 100 rows are 20 per source, so 48 keeps 10/10/10/9/9.
    let retained: Vec<String> = draft["retained_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let mut per_source = BTreeMap::new();
    for id in retained.iter().filter(|id| id[1..].parse::<usize>().unwrap() < 100) {
        *per_source.entry(id[1..].parse::<usize>().unwrap() % 5).or_insert(0) += 1;
    }
    let mut kept: Vec<i32> = per_source.values().copied().collect();
    kept.sort();
    assert_eq!(kept, [9, 9, 10, 10, 10]);

    // The locality audit removes one selected modality row and one selected temporal row.
    let eval: Vec<String> = draft["eval_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let on = |lo: usize, hi: usize| eval.iter().find(|id| (lo..hi).contains(&id[1..].parse::<usize>().unwrap())).unwrap().clone();
    let (modality, temporal) = (on(100, 149), on(200, 240));
    run(&["locality", "mark", &modality, "--reason", "the raised claim adds a second drug"]).assert().success();
    run(&["locality", "mark", &temporal, "--reason", "the raised claim moves the date and the place"]).assert().success();

    let shown = json_of(&mut run(&["split", "show", "--json"]));
    assert_eq!(counts(&shown["retained"]), [48, 48, 51, 39, 43], "229 retained");
    assert_eq!(counts(&shown["eval"]), [40, 39, 40, 39, 40], "198 for evaluation, nothing back-filled");
    assert_eq!(shown["retained_ids"].as_array().unwrap().len(), 229);
    assert_eq!(shown["eval_ids"].as_array().unwrap().len(), 198);
    let removed: Vec<(&str, &str)> = shown["locality_removed"].as_array().unwrap().iter()
        .map(|r| (r["id"].as_str().unwrap(), r["reason"].as_str().unwrap())).collect();
    assert_eq!(removed.len(), 2);
    assert!(removed.contains(&(modality.as_str(), "the raised claim adds a second drug")));
    let c = &shown["counts"];
    assert_eq!(
        [&c["candidates"], &c["accepted"], &c["capped"], &c["selected"], &c["locality_removed"], &c["retained"], &c["eval"]].map(|v| v.as_u64().unwrap()),
        [433, 283, 52, 200, 2, 229, 198]
    );
    assert_eq!(shown["params"]["caps"]["relation"], 48);

    run(&["split", "lock"]).assert().success().stdout(predicates::str::contains("locked"));
    let locked = json_of(&mut run(&["split", "show", "--json"]));
    assert_eq!(locked["status"], "locked");
    assert_eq!(locked["eval_ids"], shown["eval_ids"]);
    let status = json_of(&mut run(&["status", "--json"]));
    assert_eq!((status["funnel"]["retained"].as_u64(), status["funnel"]["evaluation"].as_u64()), (Some(229), Some(198)));

    // An edit to a locked row's final fields is refused, naming the split.
    let fix = write(dir.path(), "fix.jsonl", format!("{{\"id\":\"{}\",\"severity\":3,\"rationale\":\"x\"}}\n", eval[0]));
    run(&["adjudicate", "import", fix.to_str().unwrap(), "--adjudicator", "eve"]).assert().failure()
        .stderr(predicates::str::contains(format!("row `{}` is in locked split v1", eval[0])));
    run(&["locality", "unmark", &modality]).assert().failure().stderr(predicates::str::contains("locked split v1"));

    let out = dir.path().join("export");
    let report = json_of(&mut run(&["export", out.to_str().unwrap(), "--json"]));
    assert_eq!(report["files"].as_object().unwrap().len(), fs::EXPORT_FILES.len());
    let verified = json_of(&mut run(&["verify", out.to_str().unwrap(), "--json"]));
    assert_eq!((verified["eval_rows"].as_u64(), verified["retained_rows"].as_u64()), (Some(198), Some(229)));
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["counts"]["eval"], 198);
    assert_eq!(manifest["per_axis"][0]["capped"], 52);
    assert_eq!(manifest["agreement_at_lock"]["cohen_kappa"], 1.0);
    assert_eq!(manifest["locality_removed"].as_array().unwrap().len(), 2);
    let first: Value = serde_json::from_str(std::fs::read_to_string(out.join("eval.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    let keys: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "axis", "severity", "source_dataset", "group_id", "context", "passage", "evidence_span", "calibrated_claim", "raised_claim", "repair"]);
    assert!(first["severity"].is_i64());
    let datasheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    assert!(datasheet.contains("| evaluation | 198 |") && datasheet.contains("| relation | 100 | 52 | 0 | 48 | 40 |"), "{datasheet}");
}

#[test]
fn verify_catches_a_one_byte_change_in_any_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "v.forcebench", &[("scope", 12), ("numeric", 9)], 3, 1);
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(5), Some(1))).unwrap();
    let id = fs::show(&p).unwrap().unwrap().eval_ids[0].clone();
    forcebench::locality::mark(&mut p, &id, "adds a place", "eve").unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    // Progress counts every file once, in order, ending at the total.
    let mut seen = Vec::new();
    fs::export(&p, &out, &mut |done, total| seen.push((done, total))).unwrap();
    assert_eq!(seen, (1..=9).map(|d| (d, 9)).collect::<Vec<_>>());
    fs::verify(&out).unwrap();
    for name in fs::EXPORT_FILES {
        let path = out.join(name);
        let original = std::fs::read(&path).unwrap();
        for at in [0, original.len() / 2, original.len() - 2] {
            let mut changed = original.clone();
            changed[at] = if changed[at] == b'x' { b'y' } else { b'x' };
            std::fs::write(&path, &changed).unwrap();
            let err = fs::verify(&out).expect_err(&format!("a change at byte {at} of {name} went unnoticed")).to_string();
            assert!(err.contains(name), "{name}: {err}");
        }
        std::fs::write(&path, &original).unwrap();
    }
    fs::verify(&out).unwrap();
}

#[test]
fn same_inputs_give_byte_identical_splits_and_seeds_differ() {
    let accepted = [("relation", 30), ("modality", 14), ("scope", 11), ("temporal", 9), ("numeric", 12)];
    let export = |seed: u64, name: &str| {
        let dir = tempfile::tempdir().unwrap();
        let mut p = project_from(dir.path(), name, &accepted, 5, 1);
        let params = fs::SplitParams::new([(Axis::Relation, 15)].into_iter().collect(), Some(8), Some(seed));
        let first = fs::draft(&mut p, &params).unwrap();
        let again = fs::draft(&mut p, &params).unwrap();
        assert_eq!((first.eval_ids.clone(), first.capped.clone()), (again.eval_ids.clone(), again.capped.clone()), "redrafting is stable");
        fs::lock(&mut p).unwrap();
        let out = dir.path().join("out");
        let report = fs::export(&p, &out, &mut |_, _| {}).unwrap();
        let files: Vec<Vec<u8>> = ["eval.jsonl", "eval.csv", "benchmark.jsonl", "locality_removed.jsonl", "rejected.jsonl"]
            .iter()
            .map(|f| std::fs::read(out.join(f)).unwrap())
            .collect();
        (files, report.content_sha256, first.eval_ids, dir)
    };
    let (a, hash_a, ids_a, _keep_a) = export(3, "a.forcebench");
    let (b, hash_b, ids_b, _keep_b) = export(3, "b.forcebench");
    assert_eq!(a, b, "same project and parameters, byte-identical files");
    assert_eq!(hash_a, hash_b);
    let (_, hash_c, ids_c, _keep_c) = export(4, "c.forcebench");
    assert_eq!(ids_a, ids_b);
    assert_ne!(ids_a, ids_c, "another seed picks other rows");
    assert_ne!(hash_a, hash_c);
}

#[test]
fn no_group_straddles_the_evaluation_set() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "g.forcebench", &[("scope", 30), ("numeric", 21), ("modality", 10)], 0, 3);
    for seed in 1..6 {
        let s = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(7), Some(seed))).unwrap();
        let eval: std::collections::BTreeSet<&str> = s.eval_ids.iter().map(String::as_str).collect();
        let mut groups: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for c in forcebench::candidate::list(&p).unwrap() {
            let e = groups.entry(c.group_id.clone()).or_default();
            e.0 += 1;
            e.1 += usize::from(eval.contains(c.id.as_str()));
        }
        for (g, (n, in_eval)) in groups {
            assert!(in_eval == 0 || in_eval == n, "seed {seed}: group {g} has {in_eval} of {n} rows in eval");
        }
        // Whole groups of 3 can overshoot a quota of 7 by at most 2 per source stratum.
        assert!(s.eval["scope"] >= 7, "{:?}", s.eval);
    }
}

#[test]
fn lock_refuses_a_stale_draft_and_export_a_draft() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "s.forcebench", &[("scope", 6)], 0, 1);
    let s = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(3), Some(1))).unwrap();
    let err = fs::export(&p, &dir.path().join("o"), &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("split v1 is a draft; lock it before exporting"), "{err}");
    // Eve changes her mind about a drafted row: it is rejected now.
    let res = forcebench::adjudicate::Resolution {
        choices: vec![
            (forcebench::annotate::Field::Decision, forcebench::adjudicate::Choice::Value(Some("reject_not_force_gap".into()))),
            (forcebench::annotate::Field::BoundaryType, forcebench::adjudicate::Choice::Value(Some("duplicate".into()))),
        ],
        rationale: Some("duplicate of another row".into()),
        checklist: Default::default(),
    };
    forcebench::adjudicate::resolve(&mut p, &s.retained_ids[0], "eve", &res).unwrap();
    let err = fs::lock(&mut p).unwrap_err().to_string();
    assert!(err.contains("split v1 is out of date: 1 row(s) are no longer accepted"), "{err}");
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(3), Some(1))).unwrap();
    let locked = fs::lock(&mut p).unwrap();
    assert_eq!((locked.version, locked.retained_ids.len()), (1, 5));
    // After a lock, a new draft is a new version; the locked one stays.
    let next = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(2), Some(1))).unwrap();
    assert_eq!((next.version, next.status.as_str()), (2, "draft"));
}

#[test]
fn the_exported_manifest_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "m.forcebench", &[("relation", 9), ("temporal", 6)], 2, 1);
    fs::draft(&mut p, &fs::SplitParams::new([(Axis::Relation, 6)].into_iter().collect(), Some(4), Some(2))).unwrap();
    let id = fs::show(&p).unwrap().unwrap().eval_ids[0].clone();
    forcebench::locality::mark(&mut p, &id, "adds a second place", "eve").unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/manifest.schema.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let errors: Vec<String> = validator.iter_errors(&manifest).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(manifest["locality_removed"][0]["was_eval"], true);
    assert_eq!(manifest["capped"].as_array().unwrap().len(), 3);
    let mut broken = manifest.clone();
    broken["counts"]["eval"] = Value::from(-1);
    assert!(!validator.is_valid(&broken));
}

/// The workflow rule restated in SQL, independently of `rowstate` (the view the schema held
/// until version 6), as a temporary view on the test's connection only: the oracle the core's
/// rule is checked against.
const ORACLE_STATES: &str = "CREATE TEMP VIEW candidate_states AS
SELECT c.id AS candidate_id,
       CASE
         WHEN l.candidate_id IS NOT NULL THEN 'locality_removed'
         WHEN a.decision = 'reject_not_force_gap' THEN 'rejected'
         WHEN a.decision = 'accept_force_gap'
              AND EXISTS (SELECT 1 FROM qc_results q WHERE q.candidate_id = c.id)
              AND NOT EXISTS (SELECT 1 FROM qc_results q
                              WHERE q.candidate_id = c.id AND q.passed = 0 AND q.severity = 'error')
           THEN 'accepted'
         WHEN a.candidate_id IS NOT NULL THEN 'adjudicated'
         WHEN (SELECT count(*) FROM annotations n WHERE n.candidate_id = c.id AND n.finished = 1) >= 2 THEN 'double_annotated'
         WHEN EXISTS (SELECT 1 FROM annotations n WHERE n.candidate_id = c.id AND n.finished = 1) THEN 'annotating'
         WHEN EXISTS (SELECT 1 FROM assignments s WHERE s.candidate_id = c.id) THEN 'assigned'
         ELSE 'imported'
       END AS state
FROM candidates c
LEFT JOIN adjudications a ON a.candidate_id = c.id
LEFT JOIN locality_marks l ON l.candidate_id = c.id";

/// Checks `rowstate`'s rule, per row and in bulk, against the SQL oracle on every row.
fn assert_states_match_the_oracle(p: &forcebench::Project) {
    let oracle: Vec<(String, String)> = p
        .conn()
        .prepare("SELECT candidate_id, state FROM candidate_states ORDER BY candidate_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let bulk = forcebench::rowstate::States::load(p.conn()).unwrap();
    for (id, state) in &oracle {
        assert_eq!(bulk.get(id).map(|s| s.as_str()), Some(state.as_str()), "bulk state of {id}");
        let one = forcebench::rowstate::state(p.conn(), id).unwrap().map(|s| s.as_str());
        assert_eq!(one, Some(state.as_str()), "state of {id}");
    }
    assert_eq!(forcebench::rowstate::state(p.conn(), "no-such-row").unwrap(), None);
}

/// The split and the status read row states from `rowstate`'s whole-table scans; on a project
/// holding every state, they must agree with an independent SQL statement of the rule on every
/// row, the accepted pool and the Table 4 counts.
#[test]
fn the_split_sees_the_states_the_rule_derives() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "s.forcebench", &[("scope", 8), ("numeric", 6)], 4, 1);
    // Rows nobody annotated yet, imported later.
    let extra: Vec<String> = (0..3).map(|k| row(&format!("z{k}"), &format!("gz{k}"), "modality", 900 + k)).collect();
    forcebench::import::import_file(&mut p, &write(dir.path(), "more.csv", csv_file(&extra)), &mut |_, _| {}).unwrap();
    // One accepted row held back by QC (a checklist item answered no), one marked nonlocal.
    let res = forcebench::adjudicate::Resolution {
        choices: vec![(forcebench::annotate::Field::Decision, forcebench::adjudicate::Choice::Value(Some("accept_force_gap".into())))],
        rationale: None,
        checklist: forcebench::adjudicate::Checklist { one_local_axis: Some(false), ..Default::default() },
    };
    forcebench::adjudicate::resolve(&mut p, "r0001", "eve", &res).unwrap();
    forcebench::locality::mark(&mut p, "r0002", "the raised claim names a new population", "eve").unwrap();
    p.conn().execute_batch(ORACLE_STATES).unwrap();
    assert_states_match_the_oracle(&p);
    let status = forcebench::status::status(&p).unwrap();
    for (state, n) in &status.states {
        let want: i64 = p.conn().query_row("SELECT count(*) FROM candidate_states WHERE state = ?1", [state.as_str()], |r| r.get(0)).unwrap();
        assert_eq!(*n, want, "status count of {}", state.as_str());
    }

    let by_state = |state: &str| -> Vec<String> {
        let mut stmt = p.conn().prepare("SELECT candidate_id FROM candidate_states WHERE state = ?1 ORDER BY candidate_id").unwrap();
        stmt.query_map([state], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    let (accepted, adjudicated, imported) = (by_state("accepted"), by_state("adjudicated"), by_state("assigned"));
    assert_eq!((accepted.len(), adjudicated, by_state("locality_removed"), by_state("rejected").len()), (12, vec!["r0001".to_string()], vec!["r0002".to_string()], 4));
    assert!(imported.is_empty() && by_state("imported").len() == 3, "the extra rows are imported, not assigned");

    let s = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(100), Some(1))).unwrap();
    assert_eq!(s.retained_ids, accepted, "the pool is the view's accepted rows");
    assert!(s.stale.is_empty());
    let count = |sql: &str| -> u64 { p.conn().query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64 };
    assert_eq!(
        (s.counts.candidates, s.counts.double_annotated, s.counts.adjudicated, s.counts.rejected),
        (
            count("SELECT count(*) FROM candidates"),
            count("SELECT count(*) FROM candidate_states WHERE state NOT IN ('imported', 'assigned', 'annotating')"),
            count("SELECT count(*) FROM adjudications"),
            count("SELECT count(*) FROM candidate_states WHERE state = 'rejected'"),
        )
    );
    assert_eq!((s.counts.candidates, s.counts.double_annotated, s.counts.adjudicated), (21, 18, 18));
    // `adjudicate export` applies the same rule to every adjudicated row.
    let mut exported: Vec<(String, String)> = forcebench::adjudicate::export_rows(&p).unwrap().into_iter().map(|r| (r.id, r.state.as_str().to_string())).collect();
    let mut viewed: Vec<(String, String)> = p
        .conn()
        .prepare("SELECT s.candidate_id, s.state FROM candidate_states s JOIN adjudications j USING (candidate_id)")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    exported.sort();
    viewed.sort();
    assert_eq!(exported, viewed);

    // Marking an accepted drafted row nonlocal moves it out of the draft, as the view says.
    forcebench::locality::mark(&mut p, &accepted[0], "changes the outcome measured", "eve").unwrap();
    assert_states_match_the_oracle(&p);
    let s = fs::show(&p).unwrap().unwrap();
    assert_eq!(s.locality_removed.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), vec![accepted[0].clone()]);
    assert!(s.stale.is_empty(), "a locality removal is not a stale row");
}

/// An export that fails part-way (here one file cannot be created) names the file and leaves the
/// folder's earlier export whole, with no temporary file behind.
#[test]
fn a_failed_export_leaves_the_earlier_one_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "f.forcebench", &[("scope", 8), ("temporal", 5)], 2, 1);
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(3), Some(1))).unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    let before: Vec<Vec<u8>> = fs::EXPORT_FILES.iter().map(|f| std::fs::read(out.join(f)).unwrap()).collect();
    // A new version whose export would differ in every file.
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(2), Some(7))).unwrap();
    fs::lock(&mut p).unwrap();
    // A folder where the adjudications file's temporary copy would go.
    std::fs::create_dir(out.join(".adjudications.jsonl.tmp")).unwrap();
    let err = fs::export(&p, &out, &mut |_, _| {}).unwrap_err().to_string();
    assert!(err.contains("adjudications.jsonl"), "{err}");
    std::fs::remove_dir(out.join(".adjudications.jsonl.tmp")).unwrap();
    let after: Vec<Vec<u8>> = fs::EXPORT_FILES.iter().map(|f| std::fs::read(out.join(f)).unwrap()).collect();
    assert!(before == after, "the earlier export changed");
    let left: Vec<String> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".tmp")).collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    fs::verify(&out).unwrap();
}

/// The export's `adjudications.jsonl` is written by its own fast path; on the demo project, with
/// fields taken from A, from B and from both, checklist answers, a QC failure and a locality mark,
/// every line says what `adjudicate export` says of the row.
#[test]
fn exported_adjudications_say_what_the_adjudication_export_says() {
    use forcebench::adjudicate::{self as adj, Choice};
    let dir = tempfile::tempdir().unwrap();
    let mut p = Project::create(&dir.path().join("d.forcebench"), "demo").unwrap();
    forcebench::sample::load_demo_project(&mut p).unwrap();
    adj::confirm_agreements(&mut p, "Eve").unwrap();
    let queue = adj::queue(&p, &adj::QueueFilter { open_only: true, ..Default::default() }).unwrap();
    let mut resolved = 0;
    for (k, item) in queue.items.iter().enumerate() {
        let choices = item.differing.iter().enumerate().map(|(i, f)| (*f, if (i + k) % 2 == 0 { Choice::A } else { Choice::B })).collect();
        let checklist = adj::Checklist { span_decisive: Some(true), one_local_axis: Some(k % 5 != 0), ..Default::default() };
        let res = adj::Resolution { choices, rationale: None, checklist };
        resolved += usize::from(adj::resolve(&mut p, &item.id, "Eve", &res).is_ok());
    }
    assert!(resolved >= 5, "only {resolved} rows resolved");
    let s = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(4), Some(1))).unwrap();
    forcebench::locality::mark(&mut p, &s.retained_ids[0], "names a new population", "Eve").unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();

    let mut expected = adj::export_rows(&p).unwrap();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    let lines: Vec<Value> =
        std::fs::read_to_string(out.join("adjudications.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), expected.len());
    let states: std::collections::BTreeSet<&str> = lines.iter().map(|l| l["state"].as_str().unwrap()).collect();
    assert!(states.len() >= 3, "states seen: {states:?}");
    let sources: std::collections::BTreeSet<&str> = lines.iter().filter_map(|l| l["source_axis"].as_str()).collect();
    assert!(sources.contains("a") && sources.contains("b") && sources.contains("both"), "sources seen: {sources:?}");
    for (line, row) in lines.iter().zip(&expected) {
        let want = serde_json::to_value(row).unwrap();
        for key in ["id", "state", "decision", "evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair", "boundary_type", "rationale", "adjudicator", "decided_at", "bulk_confirmed"] {
            assert_eq!(line[key], want[key], "{}: {key}", row.id);
        }
        for f in adj::FIELDS {
            let f = f.as_str();
            assert_eq!(line[format!("source_{f}")], want["sources"][f], "{}: source_{f}", row.id);
            assert_eq!(line[format!("annotator_{f}")], want["annotators"][f], "{}: annotator_{f}", row.id);
        }
        for (name, _, answer) in row.checklist.items() {
            assert_eq!(line[format!("checklist_{name}")], serde_json::json!(answer), "{}: checklist_{name}", row.id);
        }
    }
}

/// A cap of 0 is refused, by the core as by the app's form, and nothing is drafted.
#[test]
fn a_cap_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.forcebench");
    let mut p = project_from(dir.path(), "z.forcebench", &[("scope", 4), ("numeric", 3)], 0, 1);
    let caps: BTreeMap<Axis, u32> = [(Axis::Numeric, 0)].into_iter().collect();
    let err = fs::draft(&mut p, &fs::SplitParams::new(caps, Some(2), Some(1))).unwrap_err().to_string();
    assert!(err.contains("the numeric cap must be at least 1 row"), "{err}");
    assert!(fs::show(&p).unwrap().is_none(), "nothing drafted");
    drop(p);
    let out = cli(dir.path(), &path)(&["split", "draft", "--cap", "numeric=0"]).assert().failure().get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&out).contains("the numeric cap must be at least 1 row"), "{}", String::from_utf8_lossy(&out));
}
