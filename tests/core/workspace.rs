//! Annotator workspaces: opened from an issued packet and resumed beside it, aware that they are
//! a workspace (and how strictly blinded) without the lead's settings, and refusing the lead's
//! steps and the wrong packet.

use crate::common::*;
use crate::packets::{issue, packet_for};
use forcebench::annotate::{self, Field};
use forcebench::packets::Blinding;
use forcebench::settings::{self, Place, SuggestionMode};
use forcebench::workspace;

#[test]
fn a_workspace_is_resumed_beside_its_packet() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Strict);
    let packet = packet_for(&list, "ana");
    let mut ws = workspace::open_or_resume(&packet).unwrap();
    let first = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    annotate::set_field(&mut ws, &first, "ana", Field::Notes, Some("kept")).unwrap();
    drop(ws);
    let ws = workspace::open_or_resume(&packet).unwrap();
    assert_eq!(annotate::get(&ws, &first, "ana").unwrap().notes.as_deref(), Some("kept"));
    let view = annotate::row_view(&ws, &first, "ana").unwrap();
    assert_eq!(view.position, 1);
    assert_eq!(view.total as usize, annotate::queue(&ws, "ana").unwrap().len());
    assert_eq!((view.suggested_axis, view.source_dataset), (None, None), "strict blinding hides them");
    let lead_view = annotate::row_view(&project, &first, "ana").unwrap();
    assert!(lead_view.source_dataset.is_some() && lead_view.suggested_axis.is_some());
}

// Broke if a workspace were told apart by parsing its whole packet in every queue read, or by
// a setting the lead could change: it is told by the packet stored when it was opened.
#[test]
fn a_workspace_knows_it_is_one_and_how_strictly_blinded() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    assert_eq!(settings::place(project.conn()).unwrap(), Place::Lead);
    let strict = issue(&mut project, &dir.path().join("strict"), Blinding::Strict);
    let standard = issue(&mut project, &dir.path().join("standard"), Blinding::Standard);
    let ws = workspace::open_packet(&packet_for(&strict, "ana"), &dir.path().join("strict.forcebench")).unwrap();
    assert_eq!(settings::place(ws.conn()).unwrap(), Place::Workspace { strict: true });
    let mut ws = workspace::open_packet(&packet_for(&standard, "ben"), &dir.path().join("std.forcebench")).unwrap();
    assert_eq!(settings::place(ws.conn()).unwrap(), Place::Workspace { strict: false });
    // The lead's setting cannot be changed from a workspace.
    let before = dump(&ws);
    let Err(err) = settings::set_suggestion_mode(&mut ws, SuggestionMode::Hidden) else { panic!("refused") };
    assert_eq!(err.code(), "lead_only");
    assert_eq!(dump(&ws), before);
}

#[test]
fn a_lead_project_cannot_return_a_packet_and_a_returned_packet_cannot_be_opened() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let out = dir.path().join("returned.json");
    let Err(err) = workspace::return_packet(&project, &out) else { panic!("refused") };
    assert_eq!(err.code(), "not_a_workspace");
    assert!(!out.exists(), "nothing was written");

    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let mut ws = workspace::open_packet(&packet_for(&list, "ana"), &dir.path().join("ana.forcebench")).unwrap();
    let first = annotate::queue(&ws, "ana").unwrap()[0].id.clone();
    annotate::set_field(&mut ws, &first, "ana", Field::Notes, Some("seen")).unwrap();
    workspace::return_packet(&ws, &out).unwrap();
    let Err(err) = workspace::open_packet(&out, &dir.path().join("again.forcebench")) else { panic!("refused") };
    assert_eq!(err.code(), "wrong_packet");
    assert_eq!(
        err.to_string(),
        format!("{}: this packet was already returned; open the packet as issued", out.display())
    );
    assert!(!dir.path().join("again.forcebench").exists(), "no workspace was made");
}

// Moved from the shell: the app and `packets return` share where a return goes.
#[test]
fn a_return_goes_beside_its_packet_unless_told_otherwise() {
    use std::path::{Path, PathBuf};
    let ws = Path::new("/x/ana.json.workspace.forcebench");
    assert_eq!(workspace::packet_path_of_workspace(ws), Some(PathBuf::from("/x/ana.json")));
    assert_eq!(workspace::packet_path_of_workspace(Path::new("/x/p.forcebench")), None);
    assert_eq!(workspace::packet_path_of_workspace(Path::new("/x/.workspace.forcebench")), None);
    assert_eq!(workspace::default_return_path(Path::new("/x/ana.json")), PathBuf::from("/x/ana.returned.json"));

    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let Err(err) = workspace::default_return_path_of(&project) else { panic!("refused") };
    assert_eq!(err.code(), "not_a_workspace");
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    let beside = workspace::open_or_resume(&packet).unwrap();
    assert_eq!(workspace::default_return_path_of(&beside).unwrap(), Some(workspace::default_return_path(&packet)));
    let elsewhere = workspace::open_packet(&packet_for(&list, "ben"), &dir.path().join("ben.forcebench")).unwrap();
    assert_eq!(workspace::default_return_path_of(&elsewhere).unwrap(), None, "the caller asks for a path");
}

#[test]
fn packets_return_without_out_writes_where_the_app_does_or_asks_for_a_path() {
    use assert_cmd::Command;
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let list = issue(&mut project, dir.path(), Blinding::Standard);
    let packet = packet_for(&list, "ana");
    drop(workspace::open_or_resume(&packet).unwrap());
    let beside = workspace::workspace_path_for(&packet);
    Command::cargo_bin("forcebench")
        .unwrap()
        .arg("--project")
        .arg(&beside)
        .args(["packets", "return"])
        .assert()
        .success();
    assert!(workspace::default_return_path(&packet).exists(), "written beside the packet");

    let elsewhere = dir.path().join("ben.forcebench");
    drop(workspace::open_packet(&packet_for(&list, "ben"), &elsewhere).unwrap());
    Command::cargo_bin("forcebench")
        .unwrap()
        .arg("--project")
        .arg(&elsewhere)
        .args(["packets", "return"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("pass --out FILE"));
}
