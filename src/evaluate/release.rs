//! The evaluation release: what the paper publishes beside the benchmark (the benchmark, the
//! prompts and the outputs), written by [`export`] (`forcebench export`, the app's Export) into
//! the folder `evaluation/` of the split's export, with its own manifest, before the export's
//! folder is put in place: the release is published in the same one step as the split.
//!
//! The split's own files and manifest are untouched (a re-export of a locked version stays the
//! same bytes); `evaluation/` lists what was stored when it was written:
//!
//! | file | what |
//! |---|---|
//! | `manifest.json` | format, split version and content hash, when written, every file below with its sha256, and the runs' manifests |
//! | `guideline.md` | the annotation guideline in force when the split was locked (its label and sha256 in the manifest) |
//! | `baselines.md` | the definitions of the built-in baselines |
//! | `runs/<n>-<name>-<control>/prompt.txt` | the prompt template of judge run n, as sent |
//! | `runs/<n>-<name>-<control>/run.json` | the run's manifest: API target and style, endpoint, model, prompt file and sha256, request count, output cap, decoding, timestamps, parser version, retry counts |
//! | `runs/<n>-<name>-<control>/outputs.jsonl` | every request as sent and the raw response body as received (no key, no header: neither is stored) |
//! | `evaluators/<n>-<name>.jsonl` | every stored evaluator's outputs (score, label, raw) per pair and claim |
//!
//! [`verify`] checks every listed file's sha256 and refuses a file the manifest does not list.

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::project::Project;

/// The folder of an export the release is written into.
pub const RELEASE_DIR: &str = crate::split::RELEASE_DIR;
pub const RELEASE_FORMAT: &str = "forcebench-evaluation-manifest";
pub const RELEASE_VERSION: u32 = 1;

/// What the release holds, as `export` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleaseReport {
    pub dir: String,
    /// Path inside `evaluation/` -> sha256.
    pub files: BTreeMap<String, String>,
    pub runs: usize,
    pub evaluators: usize,
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A name safe as one path component: letters, digits, `-`, `_` and `.` kept, the rest `_`.
fn slug(s: &str) -> String {
    let out: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    out.trim_start_matches('.').chars().take(80).collect()
}

/// The built-in baselines, in words (the rules of [`super::baselines`]).
fn baselines_md() -> String {
    let mut out = String::from(
        "# Baselines\n\nDeterministic scorers run by `forcebench baselines run` (stored as `baseline:<name>`). Each scores a \
         claim against the cited passage with no model; MVR and FS are computed from the two scores of a pair.\n\n\
         | name | score of a claim |\n|---|---|\n",
    );
    for (name, rule) in [
        ("citation_presence", "1 when the passage is not empty: every pair ties, so MVR is 1 and FS 0 (the floor)"),
        ("token_overlap", "the share of the claim's distinct words that occur in the passage"),
        ("entity_overlap", "the share of the claim's names and numbers that occur in the passage (1 when it has none)"),
        ("rule_force", "1 minus 0.25 for each strong word (all, always, proves, will...) the claim uses and the passage does not, at least 0"),
        (
            "axis_lexical",
            "token_overlap minus 1/3 for each limit of the passage the claim drops (a hedge, a range made a point, a date \
             made current, a bounded population generalised, an association made causal), at least 0",
        ),
    ] {
        debug_assert!(super::baselines::NAMES.contains(&name));
        out.push_str(&format!("| `{name}` | {rule} |\n"));
    }
    out
}

/// What `export` wrote: the split's files and, beside them, the release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exported {
    #[serde(flatten)]
    pub split: crate::split::ExportReport,
    pub release: ReleaseReport,
}

/// Exports locked split `version` (the latest when `None`) into `dir` with its release in
/// `dir/evaluation/`: both are written into the export's new folder and put in place by the
/// split export's one step, so a kill at any instant leaves `dir` holding the earlier export
/// (release and all) or the whole new one, never the split without its release.
pub fn export(
    project: &Project,
    dir: &Path,
    version: Option<i64>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Exported> {
    let mut release = None;
    let split = crate::split::export_with(project, dir, version, progress, &mut |folder, version| {
        release = Some(write_into(project, folder, version)?);
        Ok(())
    })?;
    let mut release = release.ok_or_else(|| Error::Internal("the export wrote no evaluation release".into()))?;
    // Named where it now is, not in the staging folder it was written in.
    release.dir = dir.join(RELEASE_DIR).display().to_string();
    Ok(Exported { split, release })
}

/// Writes the release into `dir/evaluation/` (a folder not yet published) for locked split
/// `version`.
fn write_into(project: &Project, dir: &Path, version: i64) -> Result<ReleaseReport> {
    let conn = project.conn();
    let (split_id, locked_at, manifest): (i64, String, String) = conn.query_row(
        "SELECT id, locked_at, manifest_json FROM splits WHERE version = ?1 AND status = 'locked'",
        [version],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    // The split's content hash, as its seal recorded it at lock (the stored manifest predates it).
    let content: Option<String> = conn
        .query_row("SELECT content_sha256 FROM split_seals WHERE split_id = ?1", [split_id], |r| r.get(0))
        .optional()?;
    let content =
        content.or_else(|| serde_json::from_str::<Value>(&manifest).ok()?["content_sha256"].as_str().map(String::from));
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();

    let (label, text, guideline_sha) = conn.query_row(
        // Compared as times, not text: a lock in the same second as a publication may carry
        // fractions of a second the publication's time does not. The first version was in force
        // from the start.
        "SELECT label, text, sha256 FROM guideline_versions
         WHERE julianday(published_at) <= julianday(?1) OR id = (SELECT min(id) FROM guideline_versions)
         ORDER BY id DESC LIMIT 1",
        [&locked_at],
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
    )?;
    files.push(("guideline.md".into(), text.into_bytes()));
    files.push(("baselines.md".into(), baselines_md().into_bytes()));

    let runs = run_files(conn, split_id, &mut files)?;
    let evaluators = evaluator_files(conn, split_id, &mut files)?;

    let listed: BTreeMap<String, String> = files.iter().map(|(n, b)| (n.clone(), sha(b))).collect();
    let manifest = json!({
        "format": RELEASE_FORMAT,
        "format_version": RELEASE_VERSION,
        "tool": { "name": "forcebench", "version": crate::software::VERSION, "commit": crate::software::COMMIT },
        "split": { "version": version, "locked_at": locked_at, "content_sha256": content },
        "written_at": crate::project::now(),
        "guideline": { "label": label, "sha256": guideline_sha, "file": "guideline.md" },
        "runs": runs,
        "evaluators": evaluators,
        "files": listed,
    });
    let mut bytes = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Internal(e.to_string()))?;
    bytes.push(b'\n');

    // Into the export's unpublished folder: the export puts it in place with the split's files.
    // Each file and folder is synced, as the split's files are, before the folder is swapped in.
    let target = dir.join(RELEASE_DIR);
    let mut folders = std::collections::BTreeSet::new();
    for (n, (name, content)) in files.iter().chain(std::iter::once(&("manifest.json".to_string(), bytes))).enumerate() {
        let path = target.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            folders.insert(parent.to_path_buf());
        }
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut file = std::fs::File::create(&path)?;
            file.write_all(content)?;
            file.sync_all()
        };
        write().map_err(|e| Error::io(&path, e))?;
        if n == 0 {
            crate::crashpoint::hit("export:release-begun");
        }
    }
    for folder in &folders {
        crate::output::sync_folder(folder);
    }
    Ok(ReleaseReport {
        dir: target.display().to_string(),
        files: listed,
        runs: runs.len(),
        evaluators: evaluators.len(),
    })
}

/// Every judge run on the split: its prompt, its manifest and its requests with the raw answers.
fn run_files(conn: &Connection, split_id: i64, files: &mut Vec<(String, Vec<u8>)>) -> Result<Vec<Value>> {
    let mut stmt = conn.prepare(
        "SELECT id, name, control, base_url, model, template_name, template_text, template_sha256, label_map, params_json,
                started_at, finished_at, parser_version, answer_attempts, template_source
         FROM judge_runs WHERE split_id = ?1 ORDER BY name, control",
    )?;
    let mut runs = Vec::new();
    let mut rows = stmt.query([split_id])?;
    let mut n = 0;
    while let Some(r) = rows.next()? {
        n += 1;
        let (id, name, control): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let folder = format!("runs/{n:03}-{}-{}", slug(&name), slug(&control));
        let template: String = r.get(6)?;
        let params: Value = serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or(Value::Null);
        // Runs recorded before there were API styles were chat completions.
        let api: super::providers::Api = serde_json::from_value(params["api"].clone()).unwrap_or_default();
        let mut requests = conn.prepare_cached(
            "SELECT request_id, seq, system, prompt, attempts, answer_attempts, sent_at, answered_at, http_status,
                    content, raw_response, rejected_answers, last_error
             FROM judge_requests WHERE run_id = ?1 ORDER BY seq",
        )?;
        let mut out = Vec::new();
        let (mut count, mut transport_retries, mut answer_retries) = (0u64, 0i64, 0i64);
        let (mut first_sent, mut last_answered): (Option<String>, Option<String>) = (None, None);
        let mut q = requests.query([id])?;
        while let Some(x) = q.next()? {
            count += 1;
            let (attempts, answer_attempts): (i64, i64) = (x.get(4)?, x.get(5)?);
            let sent: Option<String> = x.get(6)?;
            let answered: Option<String> = x.get(7)?;
            transport_retries += (attempts - answer_attempts.max(i64::from(answered.is_some()))).max(0);
            answer_retries += (answer_attempts - 1).max(0);
            if first_sent.is_none() || sent.is_some() && sent < first_sent {
                first_sent = sent.clone().or(first_sent);
            }
            if answered.is_some() && answered > last_answered {
                last_answered = answered.clone();
            }
            let line = json!({
                "request_id": x.get::<_, String>(0)?, "seq": x.get::<_, i64>(1)?, "system": x.get::<_, Option<String>>(2)?,
                "prompt": x.get::<_, String>(3)?, "attempts": attempts, "answer_attempts": answer_attempts,
                "sent_at": sent, "answered_at": answered, "http_status": x.get::<_, Option<i64>>(8)?,
                "content": x.get::<_, Option<String>>(9)?, "raw_response": x.get::<_, Option<String>>(10)?,
                "rejected_answers": x.get::<_, Option<String>>(11)?, "last_error": x.get::<_, Option<String>>(12)?,
            });
            out.extend(serde_json::to_vec(&line).map_err(|e| Error::Internal(e.to_string()))?);
            out.push(b'\n');
        }
        let prompt_sha = sha(template.as_bytes());
        let manifest = json!({
            "name": name, "control": control,
            "api_target": super::records::shown_url(&r.get::<_, String>(3)?),
            "api": api.as_str(),
            "endpoint": api.url(&super::records::shown_url(&r.get::<_, String>(3)?)),
            "model": r.get::<_, String>(4)?,
            "prompt_file": format!("{folder}/prompt.txt"), "prompt_sha256": prompt_sha,
            "template": r.get::<_, String>(5)?, "template_sha256": r.get::<_, String>(7)?,
            "template_source": r.get::<_, Option<String>>(14)?,
            "label_map": r.get::<_, String>(8)?,
            "requests": count,
            "output_cap": params["max_tokens"],
            "output_cap_field": params["cap_field"].as_str().unwrap_or(api.cap_field()),
            "decoding": {
                // A run sent with no temperature (the provider's named mode in `extra`) says so.
                "temperature": if params["no_temperature"].as_bool() == Some(true) { Value::Null } else { params["temperature"].clone() },
                "seed": params["seed"],
            },
            "extra_fields": params.get("extra").cloned().unwrap_or_else(|| json!({})),
            "api_key_env": params["api_key_env"],
            "started_at": r.get::<_, String>(10)?, "finished_at": r.get::<_, Option<String>>(11)?,
            "first_sent_at": first_sent, "last_answered_at": last_answered,
            "parser_version": r.get::<_, Option<String>>(12)?, "answer_attempts": r.get::<_, Option<i64>>(13)?,
            "transport_retries": transport_retries, "answer_retries": answer_retries,
            "outputs_file": format!("{folder}/outputs.jsonl"),
        });
        let mut run_json = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Internal(e.to_string()))?;
        run_json.push(b'\n');
        files.push((format!("{folder}/prompt.txt"), template.into_bytes()));
        files.push((format!("{folder}/run.json"), run_json));
        files.push((format!("{folder}/outputs.jsonl"), out));
        runs.push(manifest);
    }
    Ok(runs)
}

/// Every evaluator stored on the split, its outputs per pair and claim.
fn evaluator_files(conn: &Connection, split_id: i64, files: &mut Vec<(String, Vec<u8>)>) -> Result<Vec<Value>> {
    let evaluators: Vec<(i64, String, String, String)> = conn
        .prepare("SELECT id, name, label_map, imported_at FROM evaluators WHERE split_id = ?1 ORDER BY name")?
        .query_map([split_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (n, (id, name, map, at)) in evaluators.into_iter().enumerate() {
        let file = format!("evaluators/{:03}-{}.jsonl", n + 1, slug(&name));
        let mut bytes = Vec::new();
        let mut stmt = conn.prepare_cached(
            "SELECT candidate_id, claim, score, label, raw FROM evaluator_outputs WHERE evaluator_id = ?1 ORDER BY candidate_id, claim",
        )?;
        let mut rows = stmt.query([id])?;
        while let Some(r) = rows.next()? {
            let line = json!({
                "id": r.get::<_, String>(0)?, "claim": r.get::<_, String>(1)?, "score": r.get::<_, Option<f64>>(2)?,
                "label": r.get::<_, Option<String>>(3)?, "raw": r.get::<_, Option<String>>(4)?,
            });
            bytes.extend(serde_json::to_vec(&line).map_err(|e| Error::Internal(e.to_string()))?);
            bytes.push(b'\n');
        }
        files.push((file.clone(), bytes));
        out.push(json!({ "name": name, "label_map": map, "stored_at": at, "file": file }));
    }
    Ok(out)
}

/// Checks the release in `dir/evaluation/` (when there is one): every file its manifest lists
/// hashes as listed, and it holds nothing else. Answers how many files were checked (0 when the
/// export has no release).
pub fn verify(dir: &Path) -> Result<usize> {
    let root = dir.join(RELEASE_DIR);
    let meta = match std::fs::symlink_metadata(&root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(&root, e)),
        Ok(m) => m,
    };
    let fail =
        |file: &str, message: String| Error::VerifyFailed { file: root.join(file).display().to_string(), message };
    if !meta.is_dir() {
        return Err(fail("", "not a folder: an export's evaluation release is a folder".into()));
    }
    let bytes = std::fs::read(root.join("manifest.json")).map_err(|e| Error::io(root.join("manifest.json"), e))?;
    let manifest: Value =
        serde_json::from_slice(&bytes).map_err(|e| fail("manifest.json", format!("not JSON: {e}")))?;
    if manifest["format"] != RELEASE_FORMAT {
        return Err(fail("manifest.json", format!("not a {RELEASE_FORMAT}")));
    }
    let listed = manifest["files"].as_object().ok_or_else(|| fail("manifest.json", "no `files` table".into()))?;
    let mut found = Vec::new();
    walk(&root, "", &mut found).map_err(|e| Error::io(&root, e))?;
    for (name, regular) in &found {
        if name == "manifest.json" {
            continue;
        }
        if !regular {
            return Err(fail(name, "not a regular file (a symlink, a device or a pipe)".into()));
        }
        if !listed.contains_key(name) {
            return Err(fail(name, "this file is in the release but its manifest does not list it".into()));
        }
    }
    for (name, hash) in listed {
        let path = root.join(name);
        if !found.iter().any(|(n, _)| n == name) {
            return Err(fail(name, "listed in the manifest but missing".into()));
        }
        let content = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        if Some(sha(&content).as_str()) != hash.as_str() {
            return Err(fail(name, format!("sha256 differs from the manifest's {}", hash.as_str().unwrap_or("?"))));
        }
    }
    Ok(listed.len() + 1)
}

/// Every entry under `dir` (files as paths relative to the release, `/`-separated), with whether
/// it is a regular file; folders are walked, symlinks never followed.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, bool)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), &format!("{name}/"), out)?;
        } else {
            out.push((name, kind.is_file()));
        }
    }
    Ok(())
}
