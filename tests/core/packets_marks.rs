//! Packets of format 3 carry an event that only records a row's suggestion as a mark: a return so
//! written merges into exactly what the same return with every value written merges into, a
//! format-2 packet (every value) still opens and merges, a forged mark is refused naming the file,
//! row and field with nothing merged, and the marked return is the smaller file.

use crate::common::*;
use crate::packets::{accept, forge_with_key, issue, packet_for, refused, reject, return_to, rows_of, workspace_at};
use forcebench::annotate::{self, Field};
use forcebench::packets::{self, Blinding};
use forcebench::{workspace, Project};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn events_mut(v: &mut Value) -> impl Iterator<Item = &mut Value> {
    v["rows"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|r| r.get_mut("events").and_then(Value::as_array_mut).into_iter().flatten())
}

fn marked(v: &Value) -> usize {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.get("events").and_then(Value::as_array).into_iter().flatten())
        .filter(|e| e.get("from_suggestion") == Some(&Value::Bool(true)))
        .count()
}

/// The return `v` as a ForceBench of format 2 writes it: version 2, every event with its values
/// (a marked one's computed here from the lead's candidate, independently of the code under test)
/// and every key that version always printed, in its order.
fn as_format_2(v: &Value, lead: &Project) -> Value {
    let mut v = v.clone();
    v["format_version"] = 2.into();
    for row in v["rows"].as_array_mut().unwrap() {
        let id = row["id"].as_str().unwrap().to_string();
        for e in row.get_mut("events").and_then(Value::as_array_mut).into_iter().flatten() {
            let field = e["field"].as_str().unwrap().to_string();
            let (old, new) = if e.get("from_suggestion") == Some(&Value::Bool(true)) {
                let value = suggestion_as_16(lead.conn(), &id, &field);
                assert!(value.is_some(), "a mark stands for a suggestion ({id}, {field})");
                let old = if e["origin"] == "confirm" { value.clone() } else { None };
                (old, value)
            } else {
                (
                    e.get("old_value").and_then(Value::as_str).map(str::to_string),
                    e.get("new_value").and_then(Value::as_str).map(str::to_string),
                )
            };
            let mut full = json!({
                "uid": e["uid"], "field": field, "old_value": old, "new_value": new, "at": e["at"],
                "origin": e["origin"], "undoes": e.get("undoes").cloned().unwrap_or(Value::Null),
            });
            for key in ["suggestion_mode", "guideline_version"] {
                if let Some(x) = e.get(key) {
                    full[key] = x.clone();
                }
            }
            *e = full;
        }
    }
    v
}

fn sign(v: &mut Value, lead: &Project) {
    let secret: String = lead
        .conn()
        .query_row("SELECT secret FROM packets WHERE id = ?1", [v["packet_id"].as_str().unwrap()], |x| x.get(0))
        .unwrap();
    v["mac"] = packets::mac_of(v, &hex::decode(secret).unwrap()).into();
}

/// A copy of the lead's project as it stands (its WAL included).
fn copy_of(project: &Project, dir: &Path, name: &str) -> Project {
    let path = dir.join(name);
    project.conn().execute("VACUUM INTO ?1", [path.display().to_string()]).unwrap();
    Project::open(&path).unwrap()
}

/// What merging decides, compared between two projects: every event and annotation as stored,
/// each row's history, and decision agreement.
fn outcome(p: &Project, rows: &[String]) -> String {
    let mut out = String::new();
    let conn = p.conn();
    for sql in [
        "SELECT id, candidate_id, annotator_id, field, old_value, new_value, at, origin, undoes, packet_id, uid,
                suggestion_mode, guideline_version, from_suggestion FROM annotation_events ORDER BY id",
        "SELECT candidate_id, annotator_id, decision, evidence_span, span_start, span_end, calibrated_claim,
                raised_claim, axis, severity, boundary_type, repair, notes, finished, seconds_spent, last_event_id
         FROM annotations ORDER BY 1, 2",
    ] {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                (0..n)
                    .map(|i| r.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        for row in rows {
            out.push_str(&row.unwrap().join("|"));
            out.push('\n');
        }
    }
    for row in rows {
        out.push_str(&format!("{:?}\n", annotate::history(p, row, "ana").unwrap()));
    }
    out.push_str(&format!("{:?}\n", forcebench::agreement::decision_agreement_in(conn).unwrap()));
    out
}

/// The lead's project with Ben's labels, Ana's packet issued and copied, and Ana's work done in
/// her workspace and returned (format 3).
struct Returned {
    dir: tempfile::TempDir,
    project: Project,
    packet: PathBuf,
    returned: PathBuf,
    rows: Vec<String>,
}

fn anas_return() -> Returned {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    for (i, q) in annotate::queue(&project, "ben").unwrap().into_iter().enumerate() {
        if i % 3 == 0 {
            reject(&mut project, &q.id, "ben", "too far");
        } else {
            accept(&mut project, &q.id, "ben");
        }
    }
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let mut ws = workspace_at(dir.path(), &packet, "ana");
    let rows = rows_of(&ws, "ana");
    for (i, row) in rows.iter().enumerate() {
        match i % 4 {
            0 | 1 => accept(&mut ws, row, "ana"),
            2 => reject(&mut ws, row, "ana", "the claims say the same"),
            _ => {
                // Confirmed, then changed and the change undone: marks, values and an undo.
                accept(&mut ws, row, "ana");
                annotate::set_field(&mut ws, row, "ana", Field::Severity, Some("3")).unwrap();
                annotate::undo(&mut ws, row, "ana").unwrap();
            }
        }
    }
    let returned = return_to(&ws, dir.path(), "ana.returned.json");
    Returned { dir, project, packet, returned, rows }
}

#[test]
fn a_marked_return_merges_into_what_the_same_return_with_every_value_merges_into() {
    let Returned { dir, project, returned, rows, .. } = anas_return();
    let v3 = read_json(&returned);
    assert_eq!(v3["format_version"], 3);
    assert!(marked(&v3) > rows.len(), "the suggestions travel as marks");
    let mut v2 = as_format_2(&v3, &project);
    sign(&mut v2, &project);
    let old = write(dir.path(), "ana.v2.returned.json", serde_json::to_vec_pretty(&v2).unwrap());

    let mut a = copy_of(&project, dir.path(), "a.forcebench");
    let mut b = copy_of(&project, dir.path(), "b.forcebench");
    let ra = packets::merge(&mut a, std::slice::from_ref(&returned)).unwrap();
    let rb = packets::merge(&mut b, std::slice::from_ref(&old)).unwrap();
    assert_eq!((ra[0].new_events, ra[0].finished_rows), (rb[0].new_events, rb[0].finished_rows));
    assert!(ra[0].finished_rows > rows.len() as u64 / 2, "{:?}", ra[0]);
    assert_eq!(outcome(&a, &rows), outcome(&b, &rows));
    // A start record stands for the marked pre-fills of its fields (one bit each), a marked
    // confirmation for itself.
    let stored_marks: u32 = a
        .conn()
        .prepare("SELECT e.field_set FROM annotation_events e JOIN annotators n ON n.id = e.annotator_id WHERE n.name = 'ana' AND from_suggestion = 1")
        .unwrap()
        .query_map([], |r| r.get::<_, Option<i64>>(0))
        .unwrap()
        .map(|bits| bits.unwrap().map_or(1, |b| b.count_ones()))
        .sum();
    assert_eq!(stored_marks as usize, marked(&v3), "each mark is stored as a mark again");

    // The same packet is smaller with marks than with every value written.
    let (small, full) = (std::fs::metadata(&returned).unwrap().len(), std::fs::metadata(&old).unwrap().len());
    assert!(small * 10 < full * 8, "format 3 is {small} bytes, format 2 {full}");
}

#[test]
fn a_format_2_packet_still_opens_returns_in_format_2_and_merges() {
    let Returned { dir, mut project, packet, .. } = anas_return();
    let mut issued = read_json(&packet);
    issued["format_version"] = 2.into();
    issued.as_object_mut().unwrap().shift_remove("checksum");
    issued["checksum"] = packets::checksum_of(&issued).into();
    let old = write(dir.path(), "ana.v2.packet.json", serde_json::to_vec_pretty(&issued).unwrap());
    let mut ws = workspace_at(dir.path(), &old, "v2");
    let rows = rows_of(&ws, "ana");
    for row in &rows[..3] {
        accept(&mut ws, row, "ana");
    }
    let returned = return_to(&ws, dir.path(), "v2.returned.json");
    let v = read_json(&returned);
    assert_eq!(v["format_version"], 2, "a return keeps its packet's format, which its lead reads");
    assert_eq!(marked(&v), 0);
    let prefill = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.get("events").and_then(Value::as_array).into_iter().flatten())
        .find(|e| e["origin"] == "prefill" && e["field"] == "calibrated_claim")
        .expect("a started row records its pre-fill");
    assert!(prefill["new_value"].is_string(), "format 2 carries the value: {prefill}");
    let report = packets::merge(&mut project, &[returned]).unwrap();
    assert_eq!(report[0].finished_rows, 3);
    for row in &rows[..3] {
        assert!(annotate::get(&project, row, "ana").unwrap().finished);
    }
}

#[test]
fn forged_marks_are_refused_naming_file_row_and_field_and_nothing_merges() {
    let Returned { dir, mut project, packet, returned, .. } = anas_return();
    let mut n = 0;
    let mut forged = |name: &str, edit: &dyn Fn(&mut Value) -> String, needle: &str| {
        n += 1;
        let row = std::cell::RefCell::new(String::new());
        let file = forge_with_key(&returned, &packet, &dir.path().join(format!("forged-{n}-{name}.json")), |v| {
            *row.borrow_mut() = edit(v);
        });
        let message = packets::merge(&mut project, std::slice::from_ref(&file)).unwrap_err().to_string();
        assert!(message.contains(&format!("row {}", row.borrow())), "names the row: {message}");
        refused(&mut project, &file, needle);
    };
    // Edits the first event of `origin` on `field` and returns its row's id.
    fn first(v: &mut Value, origin: &str, field: &str, edit: impl FnOnce(&mut Value)) -> String {
        for row in v["rows"].as_array_mut().unwrap() {
            let id = row["id"].as_str().unwrap().to_string();
            for e in row.get_mut("events").and_then(Value::as_array_mut).into_iter().flatten() {
                if e["origin"] == origin && e["field"] == field {
                    edit(e);
                    return id;
                }
            }
        }
        panic!("no {origin} event on {field}");
    }
    // A mark on the annotator's own decision: it would turn into a suggestion they never saw.
    forged(
        "app",
        &|v| {
            first(v, "app", "decision", |e| {
                e.as_object_mut().unwrap().shift_remove("new_value");
                e["from_suggestion"] = true.into();
            })
        },
        "only a `prefill` or a `confirm`",
    );
    // A mark beside a value that is not the suggestion.
    forged(
        "value",
        &|v| first(v, "prefill", "calibrated_claim", |e| e["new_value"] = "A claim nobody suggested.".into()),
        "also carries `new_value`",
    );
    // A mark on a field the row has no suggestion for.
    forged(
        "notes",
        &|v| first(v, "prefill", "repair", |e| e["field"] = "notes".into()),
        "`notes`, but the row has no suggestion",
    );
    // The packet's suggestion rewritten so the mark stands for other words than the lead's row.
    forged(
        "suggestion",
        &|v| {
            let id = first(v, "prefill", "calibrated_claim", |_| {});
            let row = v["rows"].as_array_mut().unwrap().iter_mut().find(|r| r["id"] == id.as_str()).unwrap();
            row["suggestions"]["calibrated_claim"] = "The drug cures pain.".into();
            id
        },
        "is not the row's as issued",
    );
    // A mark in a packet that says it is of format 2, which carries every value.
    forged(
        "version",
        &|v| {
            v["format_version"] = 2.into();
            first(v, "prefill", "calibrated_claim", |_| {})
        },
        "format version 2",
    );
    assert_eq!(annotate::history(&project, &rows_of(&project, "ana")[0], "ana").unwrap().len(), 0, "nothing merged");
}

#[test]
fn an_issued_packet_carries_the_leads_marked_work_and_the_workspace_folds_to_the_same_label() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let started = annotate::queue(&project, "ana").unwrap()[0].id.clone();
    accept(&mut project, &started, "ana");
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let v = read_json(&packet);
    assert_eq!(v["format_version"], 3);
    assert!(marked(&v) > 0, "the carried pre-fills and confirmations travel as marks");
    let ws = workspace_at(dir.path(), &packet, "carried");
    assert_eq!(crate::packets::label(&ws, &started, "ana"), crate::packets::label(&project, &started, "ana"));
    assert_eq!(
        annotate::history(&ws, &started, "ana")
            .unwrap()
            .iter()
            .map(|e| (&e.field, &e.old_value, &e.new_value))
            .collect::<Vec<_>>(),
        annotate::history(&project, &started, "ana")
            .unwrap()
            .iter()
            .map(|e| (&e.field, &e.old_value, &e.new_value))
            .collect::<Vec<_>>()
    );

    // An issued packet whose mark is forged (its checksum recomputed) is refused, naming the row.
    let mut forged = v.clone();
    for e in events_mut(&mut forged) {
        if e["origin"] == "app" {
            e.as_object_mut().unwrap().shift_remove("new_value");
            e["from_suggestion"] = true.into();
        }
    }
    forged.as_object_mut().unwrap().shift_remove("checksum");
    forged["checksum"] = packets::checksum_of(&forged).into();
    let bad = write(dir.path(), "forged.packet.json", serde_json::to_vec_pretty(&forged).unwrap());
    let Err(err) = workspace::open_packet(&bad, &dir.path().join("forged.forcebench")) else {
        panic!("a forged mark in an issued packet was carried into a workspace")
    };
    let err = err.to_string();
    assert!(err.contains(&format!("row {started}")) && err.contains("only a `prefill` or a `confirm`"), "{err}");
}

#[test]
fn a_span_with_quotes_escapes_and_a_second_occurrence_travels_as_a_mark_and_merges_as_stored() {
    // The packet's rule for a span (JSON at its first occurrence) must give the project's text to
    // the byte: a quote, a backslash, a tab, multi-byte letters and a repeated span are its edges.
    let (dir, _, mut project) = temp_project();
    let passage = "Intro: the \"drug\" — may \\ reduce\tpain; later the \"drug\" — may \\ reduce\tpain é.";
    let span = "the \"drug\" — may \\ reduce\tpain";
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let row = format!(
        "r1,g1,ExpertQA,s1,Does it help?,{},{},The drug may reduce pain.,The drug reduces pain.,The drug may help.,Drops the hedge.,modality,2",
        q(passage),
        q(span)
    );
    let csv = write(dir.path(), "c.csv", csv_file(&[row]));
    forcebench::import::import_file(&mut project, &csv, &mut |_: u64, _: u64| {}).unwrap();
    for n in ["ana", "ben"] {
        forcebench::roster::add(&project, n, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let mut ws = workspace_at(dir.path(), &packet, "span");
    accept(&mut ws, "r1", "ana");
    let returned = return_to(&ws, dir.path(), "span.returned.json");
    let v = read_json(&returned);
    let span_events: Vec<&Value> =
        v["rows"][0]["events"].as_array().unwrap().iter().filter(|e| e["field"] == "evidence_span").collect();
    assert_eq!(span_events.len(), 2, "a pre-fill and a confirmation");
    assert!(
        span_events.iter().all(|e| e["from_suggestion"] == true && e.get("new_value").is_none()),
        "{span_events:?}"
    );
    packets::merge(&mut project, &[returned]).unwrap();
    let stored: Vec<(Option<String>, Option<i64>)> = project
        .conn()
        .prepare("SELECT e.new_value, e.from_suggestion FROM annotation_events e JOIN annotators a ON a.id = e.annotator_id WHERE a.name = 'ana' AND (field = 'evidence_span' OR e.field_set & 1)")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored, [(None, Some(1)), (None, Some(1))], "merged and stored as marks");
    let a = annotate::get(&project, "r1", "ana").unwrap();
    let start = passage.find(span).unwrap() as u32;
    let got = a.evidence_span.unwrap();
    assert_eq!((got.text.as_str(), got.start, got.end), (span, start, start + span.len() as u32));
    assert_eq!(start, 7);
}
