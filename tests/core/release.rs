//! The evaluation release an export writes beside the split: prompts, run manifests, raw outputs,
//! the guideline in force at lock and the baselines' definitions, hashed in its own manifest;
//! `verify` catches a tampered prompt or output file; the split's files stay byte-stable.

use crate::judge::{judge_script, locked, no_progress, options, Server};
use forcebench::evaluate::{self, release, runner};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn split_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    forcebench::split::EXPORT_FILES.iter().map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap())).collect()
}

// Broke: the export carried the split only; the prompts, run manifests, raw outputs, the
// guideline in force and the baselines' definitions stayed inside the project.
#[test]
fn an_export_carries_the_release_with_its_own_manifest_and_verify_catches_a_tampered_prompt_or_output() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let server = Server::start(judge_script(&pairs, &[]));
    let mut opts = options(&server, "scripted judge");
    opts.sampling.max_tokens = Some(64);
    runner::run(&mut p, &opts, &mut no_progress(), &AtomicBool::new(false)).unwrap();
    evaluate::run_baselines(&mut p, None).unwrap();

    let out = dir.path().join("v1");
    let release::Exported { split: report, release: rel } = release::export(&p, &out, None, &mut |_, _| {}).unwrap();
    let first = split_files(&out);
    assert_eq!(rel.dir, out.join("evaluation").display().to_string());
    assert_eq!((rel.runs, rel.evaluators), (1, 6), "one judge run; the judge and five baselines stored");
    let root = out.join("evaluation");
    let manifest: Value = serde_json::from_slice(&std::fs::read(root.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["format"], "forcebench-evaluation-manifest");
    assert_eq!(manifest["split"]["content_sha256"].as_str(), Some(report.content_sha256.as_str()));
    // Every listed file hashes as listed, computed here.
    for (name, hash) in manifest["files"].as_object().unwrap() {
        let bytes = std::fs::read(root.join(name)).unwrap();
        assert_eq!(hex::encode(Sha256::digest(&bytes)), hash.as_str().unwrap(), "{name}");
    }
    // The run's manifest: what Appendix G lists, from what the run recorded.
    let run = &manifest["runs"][0];
    let prompt = std::fs::read_to_string(root.join(run["prompt_file"].as_str().unwrap())).unwrap();
    let conn = rusqlite::Connection::open(dir.path().join("judge.forcebench")).unwrap();
    let (text, model, url): (String, String, String) = conn
        .query_row("SELECT template_text, model, base_url FROM judge_runs", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(prompt, text);
    assert_eq!(run["prompt_sha256"].as_str().unwrap(), hex::encode(Sha256::digest(text.as_bytes())));
    assert_eq!((run["model"].as_str(), run["api_target"].as_str()), (Some(model.as_str()), Some(url.as_str())));
    assert_eq!(run["requests"], 20);
    assert_eq!(run["output_cap"], 64);
    // The provider profile the run was sent with: the API style, the endpoint it went to and the
    // field the cap was sent in.
    assert_eq!(run["api"], "chat");
    assert_eq!(run["endpoint"].as_str().unwrap(), format!("{url}/chat/completions"));
    assert_eq!(run["output_cap_field"], "max_tokens");
    assert_eq!(run["extra_fields"], serde_json::json!({}));
    assert!(
        run["decoding"]["temperature"].is_number() && run["started_at"].is_string() && run["finished_at"].is_string()
    );
    assert!(run["parser_version"].is_string() && run["transport_retries"] == 0 && run["answer_retries"] == 0, "{run}");
    let outputs = std::fs::read_to_string(root.join(run["outputs_file"].as_str().unwrap())).unwrap();
    assert_eq!(outputs.lines().count(), 20);
    let line: Value = serde_json::from_str(outputs.lines().next().unwrap()).unwrap();
    assert!(line["raw_response"].as_str().unwrap().contains("scripted") && line["prompt"].is_string(), "{line}");
    assert!(!outputs.to_lowercase().contains("authorization") && !outputs.contains("Bearer"), "no key, no header");
    // The guideline in force at lock and the baselines' definitions.
    let guideline = std::fs::read_to_string(root.join("guideline.md")).unwrap();
    let in_force: String =
        conn.query_row("SELECT text FROM guideline_versions ORDER BY id DESC LIMIT 1", [], |r| r.get(0)).unwrap();
    assert_eq!(guideline, in_force);
    let baselines = std::fs::read_to_string(root.join("baselines.md")).unwrap();
    for name in evaluate::baselines::NAMES {
        assert!(baselines.contains(&format!("`{name}`")), "{name}");
    }
    assert_eq!(forcebench::split::verify(&out).unwrap().content_sha256, report.content_sha256);
    assert_eq!(release::verify(&out).unwrap(), manifest["files"].as_object().unwrap().len() + 1);

    // A re-export (over the earlier one, release and all) leaves the split's files byte for byte.
    release::export(&p, &out, None, &mut |_, _| {}).unwrap();
    assert_eq!(split_files(&out), first);
    release::export(&p, &out, Some(report.version), &mut |_, _| {}).unwrap();
    assert_eq!(split_files(&out), first);

    // A tampered prompt, a tampered output, a file the manifest does not list: each is named.
    let prompt_path = root.join(run["prompt_file"].as_str().unwrap());
    let saved = std::fs::read(&prompt_path).unwrap();
    std::fs::write(&prompt_path, b"Say the raised claim is fine.").unwrap();
    let err = release::verify(&out).unwrap_err();
    assert_eq!(err.code(), "verify_failed");
    assert!(err.to_string().contains("prompt.txt") && err.to_string().contains("sha256 differs"), "{err}");
    std::fs::write(&prompt_path, &saved).unwrap();
    let out_path = root.join(run["outputs_file"].as_str().unwrap());
    let mut o = std::fs::read(&out_path).unwrap();
    o.extend_from_slice(b"{}\n");
    std::fs::write(&out_path, &o).unwrap();
    assert!(release::verify(&out).unwrap_err().to_string().contains("outputs.jsonl"));
    release::export(&p, &out, None, &mut |_, _| {}).unwrap();
    std::fs::write(root.join("evaluators").join("extra.jsonl"), b"{}\n").unwrap();
    let err = release::verify(&out).unwrap_err().to_string();
    assert!(err.contains("extra.jsonl") && err.contains("does not list"), "{err}");
}

#[test]
fn the_command_line_export_writes_the_release_and_verify_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut p, _) = locked(dir.path());
    evaluate::run_baselines(&mut p, None).unwrap();
    drop(p);
    let out = dir.path().join("v1");
    let fb = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("forcebench").unwrap().arg("--project").arg(&path).args(args).assert()
    };
    let text = String::from_utf8(fb(&["export", out.to_str().unwrap()]).success().get_output().stdout.clone()).unwrap();
    assert!(text.contains("evaluation release in") && text.contains("5 stored evaluator(s)"), "{text}");
    let verified =
        String::from_utf8(fb(&["verify", out.to_str().unwrap()]).success().get_output().stdout.clone()).unwrap();
    assert!(verified.contains("the evaluation release's"), "{verified}");
    std::fs::write(out.join("evaluation").join("baselines.md"), "# edited\n").unwrap();
    let err = String::from_utf8(fb(&["verify", out.to_str().unwrap()]).failure().get_output().stderr.clone()).unwrap();
    assert!(err.starts_with("error [verify_failed]") && err.contains("baselines.md"), "{err}");
}

/// Every file under `dir`, by its path inside it (`/`-separated).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{name}/"), out);
            } else {
                out.insert(name, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

fn put_tree(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    let _ = std::fs::remove_dir_all(dir);
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

// Broke: the release was written only after the split's folder had been put in place, so a kill
// between the two left the locked split exported with no `evaluation/` (and the earlier
// export's release gone with the folder it was in).
#[test]
fn a_kill_at_any_instant_of_an_export_leaves_the_earlier_export_or_the_new_one_with_its_release() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut p, _) = locked(dir.path());
    drop(p);
    let out = dir.path().join("out");
    let run = |crash: Option<&str>| {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.arg("--project").arg(&path).args(["export", out.to_str().unwrap()]);
        match crash {
            Some(point) => cmd
                .env(forcebench::crashpoint::ENV, point)
                .assert()
                .failure()
                .stderr(predicates::str::contains(format!("crashing at `{point}`"))),
            None => cmd.assert().success(),
        };
    };
    // The earlier export: its release lists no stored evaluator.
    run(None);
    let old = tree(&out);
    assert!(old.contains_key("evaluation/manifest.json"), "{:?}", old.keys());
    p = forcebench::project::Project::open(&path).unwrap();
    evaluate::run_baselines(&mut p, None).unwrap();
    drop(p);
    let evaluators = |out: &Path| -> usize {
        assert!(out.join("evaluation/manifest.json").is_file(), "the split is in place without its release");
        let m: Value = serde_json::from_slice(&std::fs::read(out.join("evaluation/manifest.json")).unwrap()).unwrap();
        m["evaluators"].as_array().unwrap().len()
    };
    // The new export is whole: the split's files (the same bytes: the split is locked), and a
    // release that lists the five baselines stored since and checks out.
    let new_whole = |point: &str| {
        assert_eq!(split_files(&out), split_files_of(&old), "{point}");
        assert_eq!(evaluators(&out), 5, "{point}: the new release");
        forcebench::split::verify(&out).unwrap_or_else(|e| panic!("{point}: {e}"));
        release::verify(&out).unwrap_or_else(|e| panic!("{point}: {e}"));
    };
    for (point, placed) in [
        ("export:file:manifest.json", false),
        ("export:release-begun", false),
        ("export:staged", false),
        ("export:exchanged", true),
        ("export:placed", true),
    ] {
        put_tree(&out, &old);
        run(Some(point));
        if placed {
            new_whole(point);
        } else {
            assert!(tree(&out) == old, "{point}: not the earlier export whole");
        }
    }
    // A first export killed once its folder is in place has its release too.
    std::fs::remove_dir_all(&out).unwrap();
    run(Some("export:placed"));
    new_whole("first export, export:placed");
}

fn split_files_of(tree: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    forcebench::split::EXPORT_FILES.iter().map(|n| (n.to_string(), tree[*n].clone())).collect()
}
