//! Guideline versions: the bundled guideline is version 1, a published version is in force and
//! recorded on every label, packets carry theirs and a merge says when a newer one came out, and
//! agreement is read per version and per week.

use crate::common::*;
use crate::packets::{issue, packet_for};
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::{guideline, workspace, Project};

/// The version each of the project's annotation events was recorded under, in order.
fn event_versions(p: &Project) -> Vec<Option<String>> {
    let mut stmt = p.conn().prepare("SELECT guideline_version FROM annotation_events ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
}

fn publish(p: &mut Project, dir: &std::path::Path, label: &str, text: &str, note: &str) {
    let file = write(dir, &format!("guideline-{label}.md"), text);
    guideline::publish(p, &file, label, Some(note), "Lee").unwrap();
}

#[test]
fn a_new_project_starts_on_the_bundled_guideline_and_a_published_version_is_in_force() {
    let (dir, _, mut p) = temp_project();
    // A new project has version 1 and the paper's guideline as version 2, in force.
    let list = guideline::list(&p).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!((list[0].label.as_str(), list[0].current), ("1", false));
    assert_eq!((list[1].label.as_str(), list[1].current), ("2", true));
    assert_eq!(guideline::current(&p).unwrap().text, guideline::GUIDELINE_V2);

    let clarified = guideline::GUIDELINE_V2.replacen("\n", "\nA hedge inside a quotation counts like any other.\n", 1);
    publish(&mut p, dir.path(), "3", &clarified, "hedges in quotations");
    let now = guideline::current(&p).unwrap();
    assert_eq!(
        (now.label.as_str(), now.note.as_deref(), now.published_by.as_str()),
        ("3", Some("hedges in quotations"), "Lee")
    );
    let changed: Vec<(String, String)> = guideline::changes(&p, "3")
        .unwrap()
        .into_iter()
        .filter(|l| l.change != "same")
        .map(|l| (l.change, l.text))
        .collect();
    assert_eq!(changed, [("added".to_string(), "A hedge inside a quotation counts like any other.".to_string())]);
    assert!(guideline::changes(&p, "1").unwrap().is_empty(), "the first version has nothing before it");

    // The same text again, a label in use, an empty file: refused, nothing published.
    let same = write(dir.path(), "same.md", &clarified);
    let Err(err) = guideline::publish(&mut p, &same, "4", None, "Lee") else { panic!("refused") };
    assert_eq!(err.code(), "already_done");
    let other = write(dir.path(), "other.md", "# Another text\n");
    let Err(err) = guideline::publish(&mut p, &other, "3", None, "Lee") else { panic!("refused") };
    assert_eq!(err.to_string(), "guideline version `3` is already published; choose a new label");
    let empty = write(dir.path(), "empty.md", "  \n");
    assert!(guideline::publish(&mut p, &empty, "4", None, "Lee").is_err());
    assert_eq!(guideline::list(&p).unwrap().len(), 3);
}

// Broke before versions: nothing said which guideline a label was given under.
#[test]
fn every_event_and_adjudication_records_the_version_in_force() {
    let (dir, _, mut p) = annotated_project(&["ana", "ben"]);
    forcebench::roster::add(&p, "eve", forcebench::roster::Role::Adjudicator).unwrap();
    let row = forcebench::candidate::list(&p).unwrap()[0].id.clone();
    annotate::set_field(&mut p, &row, "ana", Field::Notes, Some("under one")).unwrap();
    publish(&mut p, dir.path(), "3", "# Guideline, third version\n", "rewritten");
    annotate::set_field(&mut p, &row, "ana", Field::Notes, Some("under three")).unwrap();
    let versions = event_versions(&p);
    assert_eq!(versions.first().unwrap().as_deref(), Some("2"));
    assert_eq!(versions.last().unwrap().as_deref(), Some("3"));

    for who in ["ana", "ben"] {
        let line =
            format!("{{\"id\":\"{row}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n");
        annotate::import_jsonl(&mut p, &write(dir.path(), &format!("{who}.jsonl"), line), who).unwrap();
    }
    forcebench::adjudicate::confirm_agreements(&mut p, "eve").unwrap();
    // A row resolved by hand records the version too: the two annotators differ on severity.
    let other = forcebench::candidate::list(&p).unwrap()[1].id.clone();
    for (who, severity) in [("ana", 1), ("ben", 3)] {
        let line = format!("{{\"id\":\"{other}\",\"decision\":\"accept_force_gap\",\"severity\":{severity}}}\n");
        annotate::import_jsonl(&mut p, &write(dir.path(), &format!("{who}-2.jsonl"), line), who).unwrap();
    }
    let yes = Some(true);
    let res = forcebench::adjudicate::Resolution {
        choices: vec![(Field::Severity, forcebench::adjudicate::Choice::B)],
        rationale: Some("High-impact: the claim changes what a reader would do.".into()),
        checklist: forcebench::adjudicate::Checklist {
            span_decisive: yes,
            calibrated_supported: yes,
            raised_underwarranted: yes,
            one_local_axis: yes,
            no_unrelated_addition: yes,
        },
    };
    forcebench::adjudicate::resolve(&mut p, &other, "eve", &res).unwrap();
    let resolved: Option<String> = p
        .conn()
        .query_row("SELECT guideline_version FROM adjudications WHERE candidate_id = ?1", [&other], |r| r.get(0))
        .unwrap();
    assert_eq!(resolved.as_deref(), Some("3"));
    let (adjudication, events): (Option<String>, i64) = p
        .conn()
        .query_row(
            "SELECT j.guideline_version, (SELECT count(*) FROM adjudication_events e WHERE e.candidate_id = j.candidate_id
                 AND e.guideline_version = '3') FROM adjudications j WHERE j.candidate_id = ?1",
            [&row],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(adjudication.as_deref(), Some("3"));
    assert!(events > 0);
}

#[test]
fn a_packet_carries_its_version_to_the_workspace_and_its_merge_flags_a_newer_one() {
    let (dir, path, mut p) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut p, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let issued = packets::read(&packet).unwrap();
    assert_eq!(
        (issued.guideline_version.as_deref(), issued.guideline.as_deref()),
        (Some("2"), Some(guideline::GUIDELINE_V2))
    );

    // The lead clarifies the guideline while the packet is out.
    publish(&mut p, dir.path(), "3", "# Clarified\n", "clarified");
    let mut ws = workspace::open_packet(&packet, &dir.path().join("ana.forcebench")).unwrap();
    let shown = guideline::in_force(&ws).unwrap();
    assert_eq!(
        (shown.version.label.as_str(), shown.version.text.as_str()),
        ("2", guideline::GUIDELINE_V2),
        "the packet's"
    );
    let first = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    annotate::set_field(&mut ws, &first, "ana", Field::Notes, Some("seen")).unwrap();
    let returned = dir.path().join("ana.returned.json");
    workspace::return_packet(&ws, &returned).unwrap();

    let report = packets::merge(&mut p, std::slice::from_ref(&returned)).unwrap();
    assert_eq!((report[0].guideline_version.as_str(), report[0].newer_guideline.as_deref()), ("2", Some("3")));
    // The command line's text says so too, on a merge of the same file again.
    let out = assert_cmd::Command::cargo_bin("forcebench")
        .unwrap()
        .env_remove("FORCEBENCH_PROJECT")
        .arg("--project")
        .arg(&path)
        .args(["packets", "merge"])
        .arg(&returned)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let file = returned.display();
    assert_eq!(
        text,
        format!("{file}: already merged; nothing changed\n{file}: labelled under guideline version 2; version 3 has been published since\n")
    );
    let merged: Vec<Option<String>> = {
        let mut stmt =
            p.conn().prepare("SELECT guideline_version FROM annotation_events WHERE origin <> 'app'").unwrap();
        stmt.query_map([], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
    };
    assert!(!merged.is_empty() && merged.iter().all(|v| v.as_deref() == Some("2")), "{merged:?}");
}

// Hand-computed: four rows under version 1 where Ana and Ben agree on two (p_o 0.5, each gave
// two accepts and two rejects, p_e 0.5: kappa 0), then four rows under version 2 where they
// agree on all (p_o 1, p_e 0.5: kappa 1).
#[test]
fn agreement_is_read_per_guideline_version_and_per_week() {
    let (dir, _, mut p) = annotated_project(&["ana", "ben"]);
    let ids: Vec<String> = forcebench::candidate::list(&p).unwrap().into_iter().take(8).map(|c| c.id).collect();
    let line = |id: &str, accept: bool| {
        if accept {
            format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"severity\":2}}\n")
        } else {
            format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n")
        }
    };
    let file = |name: &str, rows: &[String], pattern: [bool; 4]| {
        write(dir.path(), name, rows.iter().zip(pattern).map(|(id, a)| line(id, a)).collect::<String>())
    };
    annotate::import_jsonl(&mut p, &file("a1.jsonl", &ids[..4], [true, true, false, false]), "ana").unwrap();
    annotate::import_jsonl(&mut p, &file("b1.jsonl", &ids[..4], [true, false, false, true]), "ben").unwrap();
    publish(&mut p, dir.path(), "3", "# Third\n", "third");
    annotate::import_jsonl(&mut p, &file("a2.jsonl", &ids[4..], [true, true, false, false]), "ana").unwrap();
    annotate::import_jsonl(&mut p, &file("b2.jsonl", &ids[4..], [true, true, false, false]), "ben").unwrap();

    let r = forcebench::agreement::project_report(&p, None).unwrap();
    let by: Vec<(String, u64, Option<f64>)> =
        r.by_guideline_version.iter().map(|b| (b.key.clone(), b.n_items, b.cohen_kappa)).collect();
    assert_eq!(by.len(), 2, "{by:?}");
    assert_eq!((by[0].0.as_str(), by[0].1), ("2", 4));
    assert!(by[0].2.unwrap().abs() < 1e-12, "{by:?}");
    assert_eq!((by[1].0.as_str(), by[1].1), ("3", 4));
    assert!((by[1].2.unwrap() - 1.0).abs() < 1e-12, "{by:?}");
    let week = chrono::Utc::now().format("%G-W%V").to_string();
    assert_eq!(r.by_week.iter().map(|b| (b.key.clone(), b.n_items)).collect::<Vec<_>>(), [(week, 8)]);
}

#[test]
fn the_guideline_commands_publish_list_and_show_what_changed() {
    let (dir, path, p) = temp_project();
    drop(p);
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("forcebench")
            .unwrap()
            .env_remove("FORCEBENCH_PROJECT")
            .arg("--project")
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run(&["guideline"]), guideline::GUIDELINE_V2);
    let file = write(dir.path(), "v3.md", format!("{}Ranges count as ranges.\n", guideline::GUIDELINE_V2));
    let said = run(&["guideline", "publish", file.to_str().unwrap(), "--version", "3", "--note", "ranges"]);
    assert!(said.starts_with("published guideline version 3 (sha256 "), "{said}");
    assert_eq!(run(&["guideline", "--changes"]), "+ Ranges count as ranges.\n");
    assert_eq!(run(&["guideline", "--version", "1"]), guideline::GUIDELINE);
    assert_eq!(run(&["guideline", "--version", "2"]), guideline::GUIDELINE_V2);
    let Err(err) = guideline::get(&Project::open(&path).unwrap(), "7") else { panic!("no version 7") };
    assert_eq!(err.code(), "no_guideline_version");
    assert_eq!(err.to_string(), "there is no guideline version `7` (published: 1, 2, 3)");
    let list: serde_json::Value = serde_json::from_str(&run(&["guideline", "list", "--json"])).unwrap();
    let labels: Vec<(&str, bool)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["label"].as_str().unwrap(), v["current"].as_bool().unwrap()))
        .collect();
    assert_eq!(labels, [("1", false), ("2", false), ("3", true)]);
}
