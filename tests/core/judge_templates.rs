//! Templates that say what they are: the battery and its tables read a template's role, label
//! map and place in the paper's design from its own `[template]` section, never from its file
//! name, and a template that declares nothing, or declares labels its instructions do not list,
//! is refused before any request is sent.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::judge::{claim_of, cli, locked, Reply, Server};

/// A judge that answers in the labels the prompt lists: under support labels model `a` ties
/// pairs 0-3 and `b` pairs 0-4; under force labels `a` ties pairs 0-1 and `b` pair 0.
fn server(pairs: &[forcebench::evaluate::Pair]) -> Server {
    let claims: Vec<(String, String)> =
        pairs.iter().map(|p| (p.calibrated_claim.clone(), p.raised_claim.clone())).collect();
    Server::start(move |body: &Value, _| {
        let model = body["model"].as_str().unwrap();
        let prompt = crate::judge::user_message(body);
        let claim = claim_of(body);
        let (i, safe) = claims
            .iter()
            .enumerate()
            .find_map(|(i, (s, r))| (claim == *s).then_some((i, true)).or((claim == *r).then_some((i, false))))
            .unwrap();
        let support = prompt.contains("fully_supported");
        let ties = match (model, support) {
            ("a", true) => i < 4,
            ("b", true) => i < 5,
            ("a", false) => i < 2,
            _ => i < 1,
        };
        let label = match (support, safe || ties) {
            (true, true) => "fully_supported",
            (true, false) => "unsupported",
            (false, true) => "force_calibrated",
            (false, false) => "force_gap",
        };
        Reply::content(&format!("{{\"label\": \"{label}\", \"rationale\": \"scripted\"}}"))
    })
}

fn tables(project: &Path, server: &Server, templates: &str, out: &Path) -> (String, String) {
    let o = cli(project)
        .args(["judge", "battery", "--base-url", &server.base_url, "--models", "a,b", "--templates", templates])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
    (read("table2.json"), read("table3.json"))
}

const OWN: [(&str, &str); 4] = [
    (
        "plain-support",
        "[template]\nrole: support\nprompt: generic\nlabels: fully_supported = 1, partially_supported = 0.5, unsupported = 0, contradicted = 0, irrelevant = 0\nfields: label, rationale\n\n[system]\nRead only the passage below.\n\n[user]\nPassage: {{passage}}\nClaim: {{claim}}\nOne label of fully_supported, partially_supported, unsupported, contradicted, irrelevant, as JSON {\"label\": ..., \"rationale\": ...}.\n",
    ),
    (
        "plain-force",
        "[template]\nrole: force\nprompt: force_aware\nlabels: force_calibrated = 1, force_gap = 0, contradicted = 0, irrelevant = 0\nfields: label, rationale\n\n[user]\nPassage: {{passage}}\nClaim: {{claim}}\nDoes the claim overstate the passage on relation, modality, scope, time or numbers? One label of force_calibrated, force_gap, contradicted, irrelevant, as JSON {\"label\": ..., \"rationale\": ...}.\n",
    ),
    (
        "plain-free",
        "[template]\nrole: force\nprompt: axis_free\nlabels: force_calibrated = 1, force_gap = 0, contradicted = 0, irrelevant = 0\nfields: label\n\n[user]\n{{passage}}\nClaim: {{claim}}\nLabel it force_calibrated, force_gap, contradicted or irrelevant; JSON with a label.\n",
    ),
    (
        "plain-dummy",
        "[template]\nrole: force\nprompt: dummy_axis\nlabels: force_calibrated = 1, force_gap = 0, contradicted = 0, irrelevant = 0\nfields: label\n\n[user]\n{{passage}}\nClaim: {{claim}}\nMind the fluency. Label it force_calibrated, force_gap, contradicted or irrelevant; JSON with a label.\n",
    ),
];

// Broke before: the battery knew judges only by the names `generic` and `force_aware`, so the
// shipped prompts given as files had no Table 2 rows and the force-aware file was read with the
// generic label map (every answer unusable, MVR 1.000).
#[test]
fn the_tables_come_out_the_same_from_shipped_names_renamed_copies_and_prompts_in_other_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ref")).unwrap();
    let (_, p, pairs) = locked(&dir.path().join("ref"));
    drop(p);
    let server = server(&pairs);
    let project = |name: &str| -> PathBuf {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        let (path, ..) = locked(&d);
        path
    };
    let shipped = project("shipped");
    let by_name = tables(&shipped, &server, "generic,force_aware,axis_free,dummy_axis", &dir.path().join("r1"));
    let rows: Value = serde_json::from_str(&by_name.0).unwrap();
    let t2: Vec<(&str, u64, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["prompt"].as_str().unwrap(), r["violations"].as_u64().unwrap(), r["units"].as_u64().unwrap()))
        .collect();
    assert_eq!(t2, [("Generic support", 9, 20), ("Axis-list force-aware", 3, 20)]);

    // The shipped prompts written out and copied under names that say nothing.
    let out = dir.path().join("written");
    assert!(cli(&shipped).args(["judge", "templates", "--out"]).arg(&out).status().unwrap().success());
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let mut list = Vec::new();
    for (from, to) in [("generic", "p1"), ("force_aware", "p2"), ("axis_free", "p3"), ("dummy_axis", "p4")] {
        let to = files.join(format!("{to}.txt"));
        std::fs::copy(out.join(format!("{from}.txt")), &to).unwrap();
        list.push(to.display().to_string());
    }
    let copies = tables(&project("copies"), &server, &list.join(","), &dir.path().join("r2"));
    assert_eq!(copies, by_name, "renamed copies");

    // Prompts in this test's own wording, declaring the same roles.
    let mut own = Vec::new();
    for (name, text) in OWN {
        let path = files.join(format!("{name}.txt"));
        std::fs::write(&path, text).unwrap();
        own.push(path.display().to_string());
    }
    let worded = tables(&project("own"), &server, &own.join(","), &dir.path().join("r3"));
    assert_eq!(worded, by_name, "prompts in other words");
}

#[test]
fn a_template_that_declares_nothing_or_labels_its_instructions_do_not_list_is_refused_before_sending() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let server = server(&pairs);
    let force_body = "[user]\n{{passage}}\nClaim: {{claim}}\nLabel it force_calibrated, force_gap, contradicted or irrelevant; JSON with a label.\n";
    let cases = [
        ("bare", force_body.to_string(), "declares no label map or role"),
        (
            "misread",
            format!("[template]\nrole: support\nlabels: fully_supported = 1, unsupported = 0\nfields: label\n\n{force_body}"),
            "declares the label `fully_supported`, which the instructions never name",
        ),
        (
            "short",
            format!("[template]\nrole: force\nlabels: force_calibrated = 1, contradicted = 0, irrelevant = 0\nfields: label\n\n{force_body}"),
            "the instructions name the label `force_gap`, which the template does not declare",
        ),
        (
            "wrong-prompt",
            format!("[template]\nrole: force\nprompt: generic\nlabels: force_calibrated = 1, force_gap = 0, contradicted = 0, irrelevant = 0\nfields: label\n\n{force_body}"),
            "prompt `generic` is a support prompt, not force",
        ),
        (
            "score-range",
            format!("[template]\nrole: force\nlabels: force_calibrated = 2, force_gap = 0, contradicted = 0, irrelevant = 0\nfields: label\n\n{force_body}"),
            "`2` is not a score from 0 to 1",
        ),
    ];
    for (name, text, expected) in cases {
        let path = dir.path().join(format!("{name}.txt"));
        std::fs::write(&path, text).unwrap();
        for args in [
            vec!["judge", "run", "--model", "a", "--name", "x", "--template", path.to_str().unwrap()],
            vec!["judge", "battery", "--models", "a", "--out", "unused", "--templates", path.to_str().unwrap()],
        ] {
            let o = cli(&project).args(&args).args(["--base-url", &server.base_url]).output().unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(
                !o.status.success() && stderr.contains("error [bad_template]") && stderr.contains(expected),
                "{name}: {stderr}"
            );
        }
    }
    assert_eq!(server.prompts().len(), 0, "nothing sent");
}

// A run begun before the shipped templates carried their declarations resumes: the section
// changed the file's sha256, not the messages the judge was sent.
#[test]
fn a_run_begun_with_an_undeclared_shipped_template_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let server = server(&pairs);
    let run = || {
        cli(&project)
            .args(["judge", "run", "--base-url", &server.base_url, "--model", "a", "--template", "force_aware"])
            .args(["--name", "a"])
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let db = rusqlite::Connection::open(&project).unwrap();
    let text: String = db.query_row("SELECT template_text FROM judge_runs", [], |r| r.get(0)).unwrap();
    let old = &text[text.find("[system]").unwrap()..];
    db.execute(
        "UPDATE judge_runs SET template_text = ?1, template_sha256 = ?2",
        rusqlite::params![old, "0".repeat(64)],
    )
    .unwrap();
    db.execute("UPDATE judge_requests SET answered_at = NULL WHERE seq < 3", []).unwrap();
    drop(db);
    let sent = server.prompts().len();
    let again = run();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(server.prompts().len(), sent + 3, "only the three unanswered requests were sent");
    // Another text is still refused.
    let db = rusqlite::Connection::open(&project).unwrap();
    db.execute("UPDATE judge_runs SET template_text = ?1", [old.replace("Claim:", "Statement:")]).unwrap();
    drop(db);
    let refused = run();
    assert!(String::from_utf8_lossy(&refused.stderr).contains("error [judge_run_differs]"));
}
