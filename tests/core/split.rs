//! The evaluation split: the paper's accounting through the CLI, determinism, groups, the lock
//! and verify.

use crate::common::*;
use assert_cmd::Command;
use forcebench::split as fs;
use forcebench::vocab::Axis;
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
fn files(
    dir: &std::path::Path,
    accepted: &[(&str, usize)],
    rejected: usize,
    group_size: usize,
) -> (std::path::PathBuf, std::path::PathBuf) {
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
        labels.push_str(&format!(
            "{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n"
        ));
        i += 1;
    }
    (write(dir, "c.csv", csv_file(&rows)), write(dir, "labels.jsonl", labels))
}

/// A project where Ana and Ben agree on every label and Eve confirms them all, affirming the
/// promotion checks of the accepted rows in bulk (so they may enter a split).
pub fn project_from(
    dir: &std::path::Path,
    name: &str,
    accepted: &[(&str, usize)],
    rejected: usize,
    group_size: usize,
) -> Project {
    let mut p = project_confirmed(dir, name, accepted, rejected, group_size);
    forcebench::adjudicate::confirm_and_affirm(&mut p, "eve").unwrap();
    p
}

/// As [`project_from`], but the agreements are bulk-confirmed without affirming anything.
pub fn project_confirmed(
    dir: &std::path::Path,
    name: &str,
    accepted: &[(&str, usize)],
    rejected: usize,
    group_size: usize,
) -> Project {
    let (csv, labels) = files(dir, accepted, rejected, group_size);
    let mut p = Project::create(&dir.join(name), "split test").unwrap();
    forcebench::import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
    for (n, role) in [
        ("ana", forcebench::roster::Role::Annotator),
        ("ben", forcebench::roster::Role::Annotator),
        ("eve", forcebench::roster::Role::Adjudicator),
    ] {
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
const PAPER: [(&str, usize); 5] =
    [("relation", 100), ("modality", 49), ("scope", 51), ("temporal", 40), ("numeric", 43)];

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
    run(&["adjudicate", "confirm-agreements", "--adjudicator", "eve", "--affirm"]).assert().success();
    let status = json_of(&mut run(&["status", "--json"]));
    assert_eq!((status["candidates"].as_u64(), status["funnel"]["accepted"].as_u64()), (Some(433), Some(283)));

    let draft =
        json_of(&mut run(&["split", "draft", "--cap", "relation=48", "--per-axis", "40", "--seed", "7", "--json"]));
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["capped"].as_array().unwrap().len(), 52);
    assert_eq!(counts(&draft["retained"]), [48, 49, 51, 40, 43]);
    assert_eq!(counts(&draft["eval"]), [40, 40, 40, 40, 40]);
    // Capping is stratified by source: relation's 100 rows are 20 per source, so 48 keeps 10/10/10/9/9.
    let retained: Vec<String> =
        draft["retained_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let mut per_source = BTreeMap::new();
    for id in retained.iter().filter(|id| id[1..].parse::<usize>().unwrap() < 100) {
        *per_source.entry(id[1..].parse::<usize>().unwrap() % 5).or_insert(0) += 1;
    }
    let mut kept: Vec<i32> = per_source.values().copied().collect();
    kept.sort();
    assert_eq!(kept, [9, 9, 10, 10, 10]);

    // The locality audit removes one selected modality row and one selected temporal row.
    let eval: Vec<String> =
        draft["eval_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let on = |lo: usize, hi: usize| {
        eval.iter().find(|id| (lo..hi).contains(&id[1..].parse::<usize>().unwrap())).unwrap().clone()
    };
    let (modality, temporal) = (on(100, 149), on(200, 240));
    run(&["locality", "mark", &modality, "--reason", "the raised claim adds a second drug"]).assert().success();
    run(&["locality", "mark", &temporal, "--reason", "the raised claim moves the date and the place"])
        .assert()
        .success();

    let shown = json_of(&mut run(&["split", "show", "--json"]));
    assert_eq!(counts(&shown["retained"]), [48, 48, 51, 39, 43], "229 retained");
    assert_eq!(counts(&shown["eval"]), [40, 39, 40, 39, 40], "198 for evaluation, nothing back-filled");
    assert_eq!(shown["retained_ids"].as_array().unwrap().len(), 229);
    assert_eq!(shown["eval_ids"].as_array().unwrap().len(), 198);
    let removed: Vec<(&str, &str)> = shown["locality_removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(removed.len(), 2);
    assert!(removed.contains(&(modality.as_str(), "the raised claim adds a second drug")));
    let c = &shown["counts"];
    assert_eq!(
        [
            &c["candidates"],
            &c["accepted"],
            &c["capped"],
            &c["selected"],
            &c["locality_removed"],
            &c["retained"],
            &c["eval"]
        ]
        .map(|v| v.as_u64().unwrap()),
        [433, 283, 52, 200, 2, 229, 198]
    );
    assert_eq!(shown["params"]["caps"]["relation"], 48);

    run(&["split", "lock"]).assert().success().stdout(predicates::str::contains("locked"));
    let locked = json_of(&mut run(&["split", "show", "--json"]));
    assert_eq!(locked["status"], "locked");
    assert_eq!(locked["eval_ids"], shown["eval_ids"]);
    let status = json_of(&mut run(&["status", "--json"]));
    assert_eq!(
        (status["funnel"]["retained"].as_u64(), status["funnel"]["evaluation"].as_u64()),
        (Some(229), Some(198))
    );

    // An edit to a locked row's final fields is refused, naming the split.
    let fix =
        write(dir.path(), "fix.jsonl", format!("{{\"id\":\"{}\",\"severity\":3,\"rationale\":\"x\"}}\n", eval[0]));
    run(&["adjudicate", "import", fix.to_str().unwrap(), "--adjudicator", "eve"])
        .assert()
        .failure()
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
    let first: Value =
        serde_json::from_str(std::fs::read_to_string(out.join("eval.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    let keys: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "axis",
            "severity",
            "source_dataset",
            "group_id",
            "context",
            "passage",
            "evidence_span",
            "calibrated_claim",
            "raised_claim",
            "repair",
            // Splits locked since carry them.
            "source_id",
            "construction_family"
        ]
    );
    assert!(first["severity"].is_i64());
    let datasheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    assert!(
        datasheet.contains("| evaluation | 198 |") && datasheet.contains("| relation | 100 | 52 | 0 | 48 | 40 |"),
        "{datasheet}"
    );
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
            let err =
                fs::verify(&out).expect_err(&format!("a change at byte {at} of {name} went unnoticed")).to_string();
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
        assert_eq!(
            (first.eval_ids.clone(), first.capped.clone()),
            (again.eval_ids.clone(), again.capped.clone()),
            "redrafting is stable"
        );
        fs::lock(&mut p).unwrap();
        let out = dir.path().join("out");
        let report = fs::export(&p, &out, &mut |_, _| {}).unwrap();
        let files: Vec<Vec<u8>> =
            ["eval.jsonl", "eval.csv", "benchmark.jsonl", "locality_removed.jsonl", "rejected.jsonl"]
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
            (
                forcebench::annotate::Field::Decision,
                forcebench::adjudicate::Choice::Value(Some("reject_not_force_gap".into())),
            ),
            (
                forcebench::annotate::Field::BoundaryType,
                forcebench::adjudicate::Choice::Value(Some("duplicate".into())),
            ),
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
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/manifest.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let errors: Vec<String> =
        validator.iter_errors(&manifest).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(manifest["locality_removed"][0]["was_eval"], true);
    assert_eq!(manifest["capped"].as_array().unwrap().len(), 3);
    // Which build wrote it: the version and the commit, as `forcebench --version` says.
    assert_eq!(manifest["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["tool"]["commit"], forcebench::software::COMMIT);
    let mut broken = manifest.clone();
    broken["counts"]["eval"] = Value::from(-1);
    assert!(!validator.is_valid(&broken));
}

/// The workflow rule restated in SQL, independently of `rowstate` (the view the schema held
/// until version 6), as a temporary view on the test's connection only: the oracle the core's
/// rule is checked against.
pub(crate) const ORACLE_STATES: &str = "CREATE TEMP VIEW candidate_states AS
SELECT c.id AS candidate_id,
       CASE
         WHEN l.candidate_id IS NOT NULL THEN 'locality_removed'
         WHEN a.decision = 'reject_not_force_gap' THEN 'rejected'
         WHEN a.decision = 'accept_force_gap'
              AND EXISTS (SELECT 1 FROM qc_runs q WHERE q.candidate_id = c.id)
              AND NOT EXISTS (SELECT 1 FROM qc_failures q WHERE q.candidate_id = c.id AND q.severity = 'error')
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
        choices: vec![(
            forcebench::annotate::Field::Decision,
            forcebench::adjudicate::Choice::Value(Some("accept_force_gap".into())),
        )],
        rationale: None,
        checklist: forcebench::adjudicate::Checklist { one_local_axis: Some(false), ..Default::default() },
    };
    forcebench::adjudicate::resolve(&mut p, "r0001", "eve", &res).unwrap();
    forcebench::locality::mark(&mut p, "r0002", "the raised claim names a new population", "eve").unwrap();
    p.conn().execute_batch(ORACLE_STATES).unwrap();
    assert_states_match_the_oracle(&p);
    let status = forcebench::status::status(&p).unwrap();
    for (state, n) in &status.states {
        let want: i64 = p
            .conn()
            .query_row("SELECT count(*) FROM candidate_states WHERE state = ?1", [state.as_str()], |r| r.get(0))
            .unwrap();
        assert_eq!(*n, want, "status count of {}", state.as_str());
    }

    let by_state = |state: &str| -> Vec<String> {
        let mut stmt = p
            .conn()
            .prepare("SELECT candidate_id FROM candidate_states WHERE state = ?1 ORDER BY candidate_id")
            .unwrap();
        stmt.query_map([state], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    let (accepted, adjudicated, imported) = (by_state("accepted"), by_state("adjudicated"), by_state("assigned"));
    assert_eq!(
        (accepted.len(), adjudicated, by_state("locality_removed"), by_state("rejected").len()),
        (12, vec!["r0001".to_string()], vec!["r0002".to_string()], 4)
    );
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
    let mut exported: Vec<(String, String)> = forcebench::adjudicate::export_rows(&p)
        .unwrap()
        .into_iter()
        .map(|r| (r.id, r.state.as_str().to_string()))
        .collect();
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
    // r0002, marked before the draft, is removed as well (it was in no count before).
    assert_eq!(
        s.locality_removed.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        vec![accepted[0].clone(), "r0002".to_string()]
    );
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
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
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
    adj::confirm_and_affirm(&mut p, "Eve").unwrap();
    let queue = adj::queue(&p, &adj::QueueFilter { open_only: true, ..Default::default() }).unwrap();
    let mut resolved = 0;
    for (k, item) in queue.items.iter().enumerate() {
        let choices = item
            .differing
            .iter()
            .enumerate()
            .map(|(i, f)| (*f, if (i + k) % 2 == 0 { Choice::A } else { Choice::B }))
            .collect();
        let checklist =
            adj::Checklist { span_decisive: Some(true), one_local_axis: Some(k % 5 != 0), ..Default::default() };
        let res = adj::Resolution { choices, rationale: None, checklist };
        resolved += usize::from(adj::resolve(&mut p, &item.id, "Eve", &res).is_ok());
    }
    assert!(resolved >= 5, "only {resolved} rows resolved");
    let s = fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(4), Some(1))).unwrap();
    forcebench::locality::mark(&mut p, &s.retained_ids[0], "names a new population", "Eve").unwrap();
    forcebench::split::audit_sample(&mut p, "Eve").unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();

    let mut expected = adj::export_rows(&p).unwrap();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    let lines: Vec<Value> = std::fs::read_to_string(out.join("adjudications.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), expected.len());
    let states: std::collections::BTreeSet<&str> = lines.iter().map(|l| l["state"].as_str().unwrap()).collect();
    assert!(states.len() >= 3, "states seen: {states:?}");
    let sources: std::collections::BTreeSet<&str> = lines.iter().filter_map(|l| l["source_axis"].as_str()).collect();
    assert!(sources.contains("a") && sources.contains("b") && sources.contains("both"), "sources seen: {sources:?}");
    for (line, row) in lines.iter().zip(&expected) {
        let want = serde_json::to_value(row).unwrap();
        for key in [
            "id",
            "state",
            "decision",
            "evidence_span",
            "calibrated_claim",
            "raised_claim",
            "axis",
            "severity",
            "repair",
            "boundary_type",
            "rationale",
            "adjudicator",
            "decided_at",
            "bulk_confirmed",
        ] {
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
    let out = cli(dir.path(), &path)(&["split", "draft", "--cap", "numeric=0"])
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&out).contains("the numeric cap must be at least 1 row"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}

// ---- Atomic export folders, a verify that checks content, inert CSV (items 6, 7, 9) ----

/// A locked split with rejected rows and one locality removal, exported to `DIR/out`; the
/// project is closed again so the command line can open it.
pub(crate) fn exported(dir: &std::path::Path) -> std::path::PathBuf {
    let mut p = project_from(dir, "x.forcebench", &[("scope", 12), ("numeric", 9)], 3, 1);
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(5), Some(1))).unwrap();
    let id = fs::show(&p).unwrap().unwrap().eval_ids[0].clone();
    forcebench::locality::mark(&mut p, &id, "adds a place", "eve").unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    out
}

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// The lines of a JSONL file of an export, as objects (keys in file order).
pub(crate) fn jsonl_of(path: &std::path::Path) -> Vec<serde_json::Map<String, Value>> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

pub(crate) fn write_jsonl(path: &std::path::Path, rows: &[serde_json::Map<String, Value>]) {
    let text: String = rows.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    std::fs::write(path, text).unwrap();
}

/// Rewrites `eval.csv` from `eval.jsonl`, as the export writes it.
fn write_eval_csv(out: &std::path::Path) {
    let mut w = csv::Writer::from_writer(Vec::new());
    let rows = jsonl_of(&out.join("eval.jsonl"));
    w.write_record(rows[0].keys()).unwrap();
    for r in &rows {
        let cells: Vec<String> = r.values().map(|v| v.as_str().map_or(v.to_string(), String::from)).collect();
        w.write_record(cells.iter().map(|c| forcebench::output::inert_cell(c).into_owned())).unwrap();
    }
    std::fs::write(out.join("eval.csv"), w.into_inner().unwrap()).unwrap();
}

/// Recomputes every hash of an export as a forger would: each file's sha256, the content hash
/// (and the datasheet's mention of it), and the manifest's own hash.
pub(crate) fn reseal(out: &std::path::Path) {
    let zero = "0".repeat(64);
    let mut m: Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let ids = |rows: Vec<serde_json::Map<String, Value>>| -> Vec<Value> {
        rows.into_iter().map(|r| r["id"].clone()).collect()
    };
    let content = serde_json::json!({
        "params": m["params"],
        "benchmark_sha256": sha(&std::fs::read(out.join("benchmark.jsonl")).unwrap()),
        "eval_ids": ids(jsonl_of(&out.join("eval.jsonl"))),
        "capped_ids": m["capped"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>(),
        "locality_removed_ids": ids(jsonl_of(&out.join("locality_removed.jsonl"))),
    });
    let content = sha(&serde_json::to_vec(&content).unwrap());
    let sheet = std::fs::read_to_string(out.join("DATASHEET.md")).unwrap();
    std::fs::write(out.join("DATASHEET.md"), sheet.replace(m["content_sha256"].as_str().unwrap(), &content)).unwrap();
    m["content_sha256"] = content.into();
    for name in fs::EXPORT_FILES.iter().filter(|n| **n != "manifest.json") {
        m["files"][name] = sha(&std::fs::read(out.join(name)).unwrap()).into();
    }
    m["manifest_sha256"] = zero.clone().into();
    let text = serde_json::to_string_pretty(&m).unwrap() + "\n";
    let own = sha(text.as_bytes());
    let text =
        text.replacen(&format!("\"manifest_sha256\": \"{zero}\""), &format!("\"manifest_sha256\": \"{own}\""), 1);
    std::fs::write(out.join("manifest.json"), text).unwrap();
}

/// A copy of an export folder to doctor.
fn copy_of(out: &std::path::Path, to: &std::path::Path) -> std::path::PathBuf {
    std::fs::create_dir(to).unwrap();
    for name in fs::EXPORT_FILES {
        std::fs::copy(out.join(name), to.join(name)).unwrap();
    }
    to.to_path_buf()
}

/// The forgery: severity and raised claim changed in eval.jsonl and eval.csv, every hash
/// recomputed. Before, verify said ok (it compared hashes only, and eval ids with eval.csv's).
#[test]
fn verify_refuses_a_consistent_forgery_of_the_evaluation_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    let mut eval = jsonl_of(&out.join("eval.jsonl"));
    let id = eval[0]["id"].as_str().unwrap().to_string();
    let severity = eval[0]["severity"].as_i64().unwrap();
    eval[0]["severity"] = (severity % 3 + 1).into();
    eval[0]["raised_claim"] = "The drug cures pain.".into();
    write_jsonl(&out.join("eval.jsonl"), &eval);
    write_eval_csv(&out);
    reseal(&out);
    let line = jsonl_of(&out.join("benchmark.jsonl")).iter().position(|r| r["id"] == id.as_str()).unwrap() + 1;
    let err = fs::verify(&out).unwrap_err();
    assert_eq!(err.code(), "verify_failed");
    assert_eq!(
        err.to_string(),
        format!(
            "{}: line 1 (id `{id}`): `severity` is {}, but benchmark.jsonl line {line} has {severity}",
            out.join("eval.jsonl").display(),
            severity % 3 + 1
        )
    );
}

/// A file added to an export folder. Before, verify ignored it.
#[test]
fn verify_refuses_a_file_the_manifest_does_not_list() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    std::fs::write(out.join("extra_rows.jsonl"), "{}\n").unwrap();
    let err = fs::verify(&out).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: this file is in the export folder but the manifest does not list it (an export holds only the files its manifest lists)",
            out.join("extra_rows.jsonl").display()
        )
    );
}

/// Each cross-check of verify, each against one file doctored with every hash recomputed.
/// Before, each of these passed verify (only ids and two counts were compared).
#[test]
fn verify_cross_checks_every_file_against_the_others_and_the_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    let eval_ids: Vec<String> =
        jsonl_of(&out.join("eval.jsonl")).iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    let benchmark = jsonl_of(&out.join("benchmark.jsonl"));
    let at = |id: &str| benchmark.iter().position(|r| r["id"] == id).unwrap();
    let outside = benchmark.iter().position(|r| r["in_eval"] == false).unwrap();
    let outside_id = benchmark[outside]["id"].as_str().unwrap().to_string();
    let counts: Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let (n_eval, n_rejected) =
        (counts["counts"]["eval"].as_u64().unwrap(), counts["counts"]["rejected"].as_u64().unwrap());
    let axis_at = counts["per_axis"].as_array().unwrap().iter().position(|t| t["eval"].as_u64() > Some(0)).unwrap();
    let (axis, axis_eval) = (
        counts["per_axis"][axis_at]["axis"].as_str().unwrap().to_string(),
        counts["per_axis"][axis_at]["eval"].as_u64().unwrap(),
    );
    // The accounting of the removal (on the axis of the one removed row).
    let removed_axis = jsonl_of(&out.join("locality_removed.jsonl"))[0]["axis"].as_str().unwrap().to_string();
    let removed_at = counts["per_axis"].as_array().unwrap().iter().position(|t| t["axis"] == removed_axis).unwrap();
    let removed_accepted = counts["per_axis"][removed_at]["accepted"].as_u64().unwrap();
    let (n_accepted, n_adjudicated) =
        (counts["counts"]["accepted"].as_u64().unwrap(), counts["counts"]["adjudicated"].as_u64().unwrap());
    type Edit = Box<dyn Fn(&std::path::Path)>;
    let cases: Vec<(&str, Edit, String)> = vec![
        (
            "eval.csv says another raised claim",
            Box::new(|d| {
                let mut w = csv::Writer::from_writer(Vec::new());
                let mut r = csv::Reader::from_path(d.join("eval.csv")).unwrap();
                w.write_record(r.headers().unwrap()).unwrap();
                for (i, rec) in r.records().enumerate() {
                    let mut cells: Vec<String> = rec.unwrap().iter().map(String::from).collect();
                    if i == 1 {
                        cells[9] = "The drug cures pain.".into();
                    }
                    w.write_record(&cells).unwrap();
                }
                std::fs::write(d.join("eval.csv"), w.into_inner().unwrap()).unwrap();
            }),
            format!("eval.csv: line 3 (id `{}`): `raised_claim` differs from eval.jsonl line 2", eval_ids[1]),
        ),
        (
            "an evaluation row is not in_eval in the benchmark",
            Box::new(|d| {
                let mut b = jsonl_of(&d.join("benchmark.jsonl"));
                let i = b.iter().position(|r| r["in_eval"] == true).unwrap();
                b[i]["in_eval"] = false.into();
                write_jsonl(&d.join("benchmark.jsonl"), &b);
            }),
            format!("benchmark.jsonl: line {} (id `{}`): in_eval is not true, but the row is in eval.jsonl", at(&eval_ids[0]) + 1, eval_ids[0]),
        ),
        (
            "a benchmark row outside the evaluation set is marked in_eval",
            Box::new(move |d| {
                let mut b = jsonl_of(&d.join("benchmark.jsonl"));
                b[outside]["in_eval"] = true.into();
                write_jsonl(&d.join("benchmark.jsonl"), &b);
            }),
            format!("benchmark.jsonl: line {} (id `{outside_id}`): in_eval is true, but the row is not in eval.jsonl", outside + 1),
        ),
        (
            "a rejected row is dropped",
            Box::new(|d| {
                let r = jsonl_of(&d.join("rejected.jsonl"));
                write_jsonl(&d.join("rejected.jsonl"), &r[1..]);
            }),
            format!("rejected.jsonl: {} rows, but the manifest counts {n_rejected} (rejected)", n_rejected - 1),
        ),
        (
            "an evaluation row is dropped from eval.jsonl, eval.csv and the benchmark's in_eval",
            Box::new(|d| {
                let e = jsonl_of(&d.join("eval.jsonl"));
                let gone = e[0]["id"].clone();
                write_jsonl(&d.join("eval.jsonl"), &e[1..]);
                write_eval_csv(d);
                let mut b = jsonl_of(&d.join("benchmark.jsonl"));
                b.iter_mut().filter(|r| r["id"] == gone).for_each(|r| r["in_eval"] = false.into());
                write_jsonl(&d.join("benchmark.jsonl"), &b);
            }),
            format!("eval.jsonl: {} rows, but the manifest counts {n_eval} (eval)", n_eval - 1),
        ),
        (
            "the locality removal is dropped",
            Box::new(|d| std::fs::write(d.join("locality_removed.jsonl"), "").unwrap()),
            "locality_removed.jsonl: 0 rows, but the manifest counts 1 (locality_removed)".to_string(),
        ),
        (
            "a benchmark row moves to another source dataset",
            Box::new(move |d| {
                let mut b = jsonl_of(&d.join("benchmark.jsonl"));
                b[outside]["source_dataset"] = "AAA invented".into();
                write_jsonl(&d.join("benchmark.jsonl"), &b);
            }),
            "benchmark.jsonl: 1 retained and 0 evaluation rows from source `AAA invented`, which the manifest's by_source does not list".to_string(),
        ),
        (
            "the manifest's per-axis evaluation count is raised",
            Box::new(move |d| {
                let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
                m["per_axis"][axis_at]["eval"] = (axis_eval + 1).into();
                std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
            }),
            format!("eval.jsonl: {axis_eval} rows on axis `{axis}` (eval), but the manifest's per_axis counts {}", axis_eval + 1),
        ),
        (
            "the manifest's per_axis leaves the removal out (and its accepted row with it)",
            Box::new(move |d| {
                let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
                for key in ["accepted", "locality_removed"] {
                    m["per_axis"][removed_at][key] = (m["per_axis"][removed_at][key].as_u64().unwrap() - 1).into();
                }
                std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
            }),
            format!("locality_removed.jsonl: 1 rows on axis `{removed_axis}`, but the manifest's per_axis counts 0 (locality_removed)"),
        ),
        (
            "the manifest's accepted count is one short of its axes",
            Box::new(move |d| {
                let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
                m["counts"]["accepted"] = (n_accepted - 1).into();
                std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
            }),
            format!("manifest.json: counts accepted is {}, but its per_axis rows add up to {n_accepted}", n_accepted - 1),
        ),
        (
            "an axis's accepted rows are not its capped, removed and retained rows",
            Box::new(move |d| {
                let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
                m["per_axis"][removed_at]["accepted"] = (m["per_axis"][removed_at]["accepted"].as_u64().unwrap() - 1).into();
                m["counts"]["accepted"] = (n_accepted - 1).into();
                std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
            }),
            format!(
                "manifest.json: axis `{removed_axis}`: {} accepted, but 0 capped + 1 locality-removed + {} retained",
                removed_accepted - 1,
                removed_accepted - 1
            ),
        ),
        (
            "the manifest counts one adjudicated row fewer than adjudications.jsonl holds",
            Box::new(move |d| {
                let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
                m["counts"]["adjudicated"] = (n_adjudicated - 1).into();
                std::fs::write(d.join("manifest.json"), serde_json::to_string_pretty(&m).unwrap() + "\n").unwrap();
            }),
            format!("adjudications.jsonl: {n_adjudicated} rows, but the manifest counts {} (adjudicated)", n_adjudicated - 1),
        ),
    ];
    for (i, (what, edit, expected)) in cases.iter().enumerate() {
        let copy = copy_of(&out, &dir.path().join(format!("case{i}")));
        edit(&copy);
        reseal(&copy);
        let err = fs::verify(&copy).expect_err(what);
        assert_eq!(err.to_string(), format!("{}/{expected}", copy.display()), "{what}");
    }
}

/// A project whose texts begin with what a spreadsheet runs as a formula.
fn hostile_project(dir: &std::path::Path) -> Project {
    let (csv, labels) = files(dir, &[("scope", 6), ("numeric", 4)], 2, 1);
    let text = std::fs::read_to_string(&csv)
        .unwrap()
        .replace("Question ", "=cmd|' /C calc'!A")
        .replace("\"In a trial", "\"@SUM(1) In a trial")
        .replace(",ExpertQA,", ",+ExpertQA,")
        .replace(",GaRAGe,", ",'quoted,");
    std::fs::write(&csv, text).unwrap();
    let mut p = Project::create(&dir.join("h.forcebench"), "hostile").unwrap();
    forcebench::import::import_file(&mut p, &csv, &mut |_, _| {}).unwrap();
    for (n, role) in [
        ("ana", forcebench::roster::Role::Annotator),
        ("ben", forcebench::roster::Role::Annotator),
        ("eve", forcebench::roster::Role::Adjudicator),
    ] {
        forcebench::roster::add(&p, n, role).unwrap();
    }
    forcebench::assign::assign(&mut p, 1).unwrap();
    forcebench::annotate::import_jsonl(&mut p, &labels, "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut p, &labels, "ben").unwrap();
    forcebench::adjudicate::confirm_and_affirm(&mut p, "eve").unwrap();
    p
}

/// Before, eval.csv and the agreement CSV wrote `=cmd|...`, `@SUM(1) ...` and `+ExpertQA` raw:
/// a spreadsheet runs them as formulas.
#[test]
fn spreadsheet_csv_cells_never_start_a_formula_and_jsonl_keeps_the_exact_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = hostile_project(dir.path());
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(10), Some(1))).unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    fs::verify(&out).unwrap();
    let eval = jsonl_of(&out.join("eval.jsonl"));
    assert!(
        eval.iter().any(|r| r["context"].as_str().unwrap().starts_with("=cmd|' /C calc'!A")),
        "eval.jsonl keeps the text"
    );
    assert!(
        eval.iter().any(|r| r["source_dataset"] == "+ExpertQA")
            && eval.iter().any(|r| r["source_dataset"] == "'quoted")
    );
    let mut reader = csv::Reader::from_path(out.join("eval.csv")).unwrap();
    let mut starts = std::collections::BTreeSet::new();
    for (record, row) in reader.records().zip(&eval) {
        for (cell, (key, value)) in record.unwrap().iter().zip(row) {
            assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{key}: {cell:?}");
            let text = value.as_str().map_or(value.to_string(), String::from);
            let expected =
                if text.starts_with(['=', '+', '-', '@', '\t', '\r', '\'']) { format!("'{text}") } else { text };
            assert_eq!(cell, expected, "{key}");
            starts.insert(cell.chars().take(2).collect::<String>());
        }
    }
    for start in ["'=", "'@", "'+", "''"] {
        assert!(starts.contains(start), "no cell starting {start}: {starts:?}");
    }
    let text = std::fs::read_to_string(out.join("eval.csv")).unwrap();
    assert!(text.contains(",'=cmd|' /C calc'!A") && text.contains(",\"'@SUM(1) In a trial"), "{text}");

    let report = forcebench::agreement::project_report(&p, None).unwrap();
    let agreement = forcebench::agreement::export::to_csv(&report).unwrap();
    assert!(
        agreement.contains("\nby_source,n_items,'+ExpertQA,") && agreement.contains("\nby_source,n_items,''quoted,"),
        "{agreement}"
    );
}

/// Every file of a folder, by name (symlinks as their target's path); the evaluation release's
/// folder, written after the split is in place and listing what is stored then, is left out.
fn folder(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| !e.as_ref().unwrap().file_type().unwrap().is_dir())
        .map(|e| {
            let e = e.unwrap();
            let bytes = match std::fs::read_link(e.path()) {
                Ok(target) => target.display().to_string().into_bytes(),
                Err(_) => std::fs::read(e.path()).unwrap(),
            };
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Before, the nine files were renamed into place one by one: a kill between two renames left
/// a mix of old and new files that failed verify, and the earlier export was lost.
#[test]
fn a_kill_at_any_step_of_an_export_leaves_the_earlier_or_the_new_export_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.forcebench");
    let mut p = project_from(dir.path(), "k.forcebench", &[("scope", 8), ("temporal", 5)], 2, 1);
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(3), Some(1))).unwrap();
    fs::lock(&mut p).unwrap();
    let out = dir.path().join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    let old = folder(&out);
    // A new version whose export differs in every file.
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(2), Some(7))).unwrap();
    fs::lock(&mut p).unwrap();
    fs::export(&p, &dir.path().join("reference"), &mut |_, _| {}).unwrap();
    let new = folder(&dir.path().join("reference"));
    std::fs::remove_dir_all(dir.path().join("reference")).unwrap();
    drop(p);
    let run = cli(dir.path(), &path);
    let leftovers = || -> Vec<String> { names_in(dir.path()).into_iter().filter(|n| n.starts_with(".out.")).collect() };
    let crash = |point: &str| {
        run(&["export", out.to_str().unwrap()])
            .env(forcebench::crashpoint::ENV, point)
            .assert()
            .failure()
            .stderr(predicates::str::contains(format!("crashing at `{point}`")));
    };
    for (point, placed) in [
        ("export:file:eval.jsonl", false),
        ("export:file:manifest.json", false),
        ("export:staged", false),
        ("export:exchanged", true),
        ("export:placed", true),
    ] {
        // The earlier export at `out` before each try.
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir(&out).unwrap();
        for (name, bytes) in &old {
            std::fs::write(out.join(name), bytes).unwrap();
        }
        crash(point);
        assert!(
            folder(&out) == if placed { new.clone() } else { old.clone() },
            "{point}: not the {} export whole",
            if placed { "new" } else { "earlier" }
        );
        fs::verify(&out).unwrap_or_else(|e| panic!("{point}: {e}"));
        let left = leftovers();
        assert!(left.len() <= 1 && left.iter().all(|n| n.ends_with(".forcebench-export")), "{point}: {left:?}");
    }
    // The next export puts the new one in place and removes what a crash left.
    run(&["export", out.to_str().unwrap()]).assert().success();
    assert!(folder(&out) == new);
    assert_eq!(leftovers(), Vec::<String>::new());

    // A first export killed before its one rename leaves no folder; the next one cleans up.
    std::fs::remove_dir_all(&out).unwrap();
    crash("export:staged");
    assert!(!out.exists());
    assert_eq!(leftovers().len(), 1);
    run(&["export", out.to_str().unwrap()]).assert().success();
    assert!(folder(&out) == new);
    assert_eq!(leftovers(), Vec::<String>::new());
}

/// Before, export wrote `DIR/.NAME.tmp` through a symlink planted there (overwriting a file
/// outside DIR), and replaced export files in a folder holding a person's other files.
#[test]
fn export_never_writes_through_a_planted_symlink_nor_swaps_away_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let mut p = project_from(dir.path(), "s.forcebench", &[("scope", 8), ("temporal", 5)], 2, 1);
    fs::draft(&mut p, &fs::SplitParams::new(BTreeMap::new(), Some(3), Some(1))).unwrap();
    let parent = dir.path().join("exports");
    // A refused export leaves no folder behind, not even the parents it would have made.
    fs::export(&p, &parent.join("deeper/out"), &mut |_, _| {}).unwrap_err();
    assert!(!parent.exists());
    fs::lock(&mut p).unwrap();
    let out = parent.join("out");
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    for name in fs::EXPORT_FILES {
        let victim = outside.path().join(format!("victim-{name}"));
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, out.join(format!(".{name}.tmp"))).unwrap();
    }
    let before = (folder(&out), folder(outside.path()));
    let err = fs::export(&p, &out, &mut |_, _| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: holds files that are not part of a ForceBench export (`.DATASHEET.md.tmp`, `.adjudications.jsonl.tmp`, `.annotations.jsonl.tmp`, `.benchmark.jsonl.tmp`, `.eval.csv.tmp` and 4 more); export into a new or empty folder, or into an earlier export's folder; nothing was written",
            out.display()
        )
    );
    assert!((folder(&out), folder(outside.path())) == before, "a file changed");
    assert_eq!(names_in(&parent), ["out"]);

    // DIR itself a symlink to a folder elsewhere.
    let elsewhere = outside.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, parent.join("linked")).unwrap();
    let err = fs::export(&p, &parent.join("linked"), &mut |_, _| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: is a symbolic link; export into a real folder; nothing was written",
            parent.join("linked").display()
        )
    );
    assert!(names_in(&elsewhere).is_empty());

    // A folder of a person's own files, and a folder whose manifest is not ours.
    let mine = parent.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let err = fs::export(&p, &mine, &mut |_, _| {}).unwrap_err();
    assert_eq!(err.code(), "bad_output_path");
    assert!(
        err.to_string().starts_with(&format!(
            "{}: holds files that are not part of a ForceBench export (`notes.txt`)",
            mine.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
    let theirs = parent.join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("manifest.json"), "{\"format\": \"someone else's\"}").unwrap();
    let err = fs::export(&p, &theirs, &mut |_, _| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}: is not an earlier ForceBench export (its manifest.json is missing or not a ForceBench split manifest); export into a new or empty folder; nothing was written", theirs.display())
    );
    assert_eq!(names_in(&parent), ["linked", "mine", "out", "theirs"]);

    // An empty folder takes an export.
    let empty = parent.join("empty");
    std::fs::create_dir(&empty).unwrap();
    fs::export(&p, &empty, &mut |_, _| {}).unwrap();
    fs::verify(&empty).unwrap();
    assert_eq!(names_in(&parent), ["empty", "linked", "mine", "out", "theirs"]);
}

/// Before, verify read whatever stood at a listed name: a FIFO made it wait forever and a link
/// to /dev/zero read until memory ran out.
#[test]
fn verify_reads_regular_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    for (name, make) in [("annotations.jsonl", "fifo"), ("benchmark.jsonl", "zero"), ("manifest.json", "fifo")] {
        let copy = copy_of(&out, &dir.path().join(format!("{name}-{make}")));
        std::fs::remove_file(copy.join(name)).unwrap();
        if make == "fifo" {
            assert!(std::process::Command::new("mkfifo").arg(copy.join(name)).status().unwrap().success());
        } else {
            std::os::unix::fs::symlink("/dev/zero", copy.join(name)).unwrap();
        }
        let err = fs::verify(&copy).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: not a regular file (a symlink, a folder, a device or a pipe); an export holds regular files only",
                copy.join(name).display()
            )
        );
    }
}

/// The leftover folders an export deletes are a crash's, never the folder of an export still
/// running (it holds its folder locked).
#[test]
fn an_export_leaves_the_folder_of_an_export_still_running() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    let p = Project::open(&dir.path().join("x.forcebench")).unwrap();
    let running = dir.path().join(".out.0123456789abcdef.forcebench-export");
    let crashed = dir.path().join(".out.fedcba9876543210.forcebench-export");
    std::fs::create_dir(&running).unwrap();
    std::fs::create_dir(&crashed).unwrap();
    let lock = std::fs::File::open(&running).unwrap();
    lock.lock().unwrap();
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    assert!(running.exists() && !crashed.exists());
    drop(lock);
    fs::export(&p, &out, &mut |_, _| {}).unwrap();
    assert!(!running.exists());
    fs::verify(&out).unwrap();
}

// Broke if reading the frozen rows a slice at a time (so an export's memory does not grow with
// the project) changed a byte: the same split exported one row, two rows, seven rows and every
// row at a time gives the same files, whatever falls on a slice's edge.
#[test]
fn an_export_read_in_slices_of_any_size_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let whole = exported(dir.path());
    let p = Project::open(&dir.path().join("x.forcebench")).unwrap();
    for rows in [1, 2, 7, 1_000_000] {
        let out = dir.path().join(format!("slices-{rows}"));
        let report = fs::export_in_slices(&p, &out, None, rows, &mut |_, _| {}).unwrap();
        assert_eq!(report.files.len(), fs::EXPORT_FILES.len());
        for name in fs::EXPORT_FILES {
            assert_eq!(
                std::fs::read(out.join(name)).unwrap(),
                std::fs::read(whole.join(name)).unwrap(),
                "{name} read {rows} rows at a time"
            );
        }
    }
    // The files hold rows across slices in id order, each row once.
    let ids: Vec<String> =
        jsonl_of(&whole.join("adjudications.jsonl")).iter().map(|l| l["id"].as_str().unwrap().to_string()).collect();
    assert!(ids.len() > 7 && ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
}

// Broke if verify held benchmark.jsonl whole to find repeated ids: it reads the file a line at a
// time, so a repeated or out-of-order row is caught by the export's id order, naming both lines.
#[test]
fn verify_reads_the_benchmark_a_line_at_a_time_and_refuses_a_repeated_or_moved_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = exported(dir.path());
    let b = jsonl_of(&out.join("benchmark.jsonl"));
    let id = |i: usize| b[i]["id"].as_str().unwrap().to_string();
    let repeated = copy_of(&out, &dir.path().join("repeated"));
    let mut rows = b.clone();
    rows.insert(2, b[1].clone());
    write_jsonl(&repeated.join("benchmark.jsonl"), &rows);
    reseal(&repeated);
    assert_eq!(
        fs::verify(&repeated).unwrap_err().to_string(),
        format!("{}/benchmark.jsonl: line 3 (id `{}`): the id is already on line 2", repeated.display(), id(1))
    );
    let moved = copy_of(&out, &dir.path().join("moved"));
    let mut rows = b.clone();
    rows.swap(0, 1);
    write_jsonl(&moved.join("benchmark.jsonl"), &rows);
    reseal(&moved);
    assert_eq!(
        fs::verify(&moved).unwrap_err().to_string(),
        format!(
            "{}/benchmark.jsonl: line 2 (id `{}`): it comes after `{}` on line 1; an export writes rows in id order",
            moved.display(),
            id(0),
            id(1)
        )
    );
}

// ---- A row marked nonlocal before the draft (item 7) ----

/// A row marked nonlocal before the split is drafted is drawn and removed just as one marked
/// after: both are in `locality_removed` (split show, the manifest and `locality_removed.jsonl`),
/// the pool counts them, the accounting adds up (adjudicated = accepted + rejected here, where
/// QC holds nothing back), and the export is the same whichever came first. Before, the row
/// marked first was in no count and no file, and verify passed.
#[test]
fn a_row_marked_before_the_draft_is_removed_as_one_marked_after() {
    let dir = tempfile::tempdir().unwrap();
    let data: &[(&str, usize)] = &[("scope", 12), ("numeric", 9)];
    let params = fs::SplitParams::new(BTreeMap::new(), Some(5), Some(3));
    // The order the audit ran in: both marks after the draft, or the first before it.
    for sub in ["a", "b"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let mut after = project_from(&dir.path().join("a"), "after.forcebench", data, 3, 1);
    let first = fs::draft(&mut after, &params).unwrap();
    // One row selected for evaluation and one retained row outside it.
    let (x, y) =
        (first.eval_ids[0].clone(), first.retained_ids.iter().find(|id| !first.eval_ids.contains(id)).unwrap().clone());
    forcebench::locality::mark(&mut after, &x, "adds a place", "eve").unwrap();
    forcebench::locality::mark(&mut after, &y, "names a new population", "eve").unwrap();

    let mut before = project_from(&dir.path().join("b"), "before.forcebench", data, 3, 1);
    forcebench::locality::mark(&mut before, &x, "adds a place", "eve").unwrap();
    let drafted = fs::draft(&mut before, &params).unwrap();
    assert_eq!(
        drafted.locality_removed.iter().map(|r| (r.id.as_str(), r.was_eval)).collect::<Vec<_>>(),
        vec![(x.as_str(), true)],
        "the row marked before the draft is in the draft's removals, as selected"
    );
    forcebench::locality::mark(&mut before, &y, "names a new population", "eve").unwrap();

    let (a, b) = (fs::show(&after).unwrap().unwrap(), fs::show(&before).unwrap().unwrap());
    let mut removed: Vec<(String, bool)> = vec![(x.clone(), true), (y.clone(), false)];
    removed.sort();
    for s in [&a, &b] {
        assert_eq!(s.locality_removed.iter().map(|r| (r.id.clone(), r.was_eval)).collect::<Vec<_>>(), removed);
        let c = &s.counts;
        assert_eq!((c.adjudicated, c.accepted, c.rejected, c.locality_removed), (24, 21, 3, 2));
        assert_eq!(c.adjudicated, c.accepted + c.rejected, "every adjudicated row is accepted or rejected");
        assert_eq!(c.accepted, c.capped + c.locality_removed + c.retained);
        assert_eq!(c.selected, c.eval + 1, "one selected row was removed");
        assert!(!s.retained_ids.contains(&x) && !s.eval_ids.contains(&x));
    }
    assert_eq!(
        (&a.counts, &a.per_axis, &a.retained_ids, &a.eval_ids),
        (&b.counts, &b.per_axis, &b.retained_ids, &b.eval_ids)
    );

    // Locked and exported: the same files (the manifest differs only in its times and hashes).
    let mut outs = Vec::new();
    for (p, name) in [(&mut after, "a"), (&mut before, "b")] {
        fs::lock(p).unwrap();
        let out = dir.path().join(name).join("out");
        fs::export(p, &out, &mut |_, _| {}).unwrap();
        fs::verify(&out).unwrap();
        outs.push(out);
    }
    for file in ["eval.jsonl", "benchmark.jsonl", "locality_removed.jsonl", "rejected.jsonl"] {
        assert_eq!(std::fs::read(outs[0].join(file)).unwrap(), std::fs::read(outs[1].join(file)).unwrap(), "{file}");
    }
    let removed_file: Vec<String> = jsonl_of(&outs[1].join("locality_removed.jsonl"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(removed_file, removed.iter().map(|r| r.0.clone()).collect::<Vec<_>>());
    let manifests: Vec<Value> = outs
        .iter()
        .map(|o| serde_json::from_slice(&std::fs::read(o.join("manifest.json")).unwrap()).unwrap())
        .collect();
    for key in ["counts", "per_axis", "locality_removed", "capped", "by_source"] {
        assert_eq!(manifests[0][key], manifests[1][key], "manifest {key}");
    }
    assert_eq!(manifests[1]["counts"]["locality_removed"], 2);
    // The split's accounting and the status's funnel count the same two removals.
    let funnel = forcebench::status::status(&before).unwrap();
    assert_eq!(funnel.funnel.total.locality_removed, 2);
}
