//! `verify`: re-checks an export folder, its hashes and its content.
//!
//! In order: the manifest (ours, its own sha256), every file it lists (a known export file, its
//! sha256), no file in the folder that the manifest does not list; then the content itself:
//! `eval.jsonl` and `benchmark.jsonl` have the export's keys, `eval.csv` (with the spreadsheet
//! neutralisation undone) says cell for cell what `eval.jsonl` says, every evaluation row is in
//! `benchmark.jsonl` with `in_eval` true and identical fields and no other benchmark row has
//! `in_eval` true, the manifest's counts (stage counts, per axis and severity, per source) match
//! the files, the locality removals match the manifest's list, the accounting adds up (each
//! axis's accepted rows are its capped, removed and retained rows; the stage counts are the
//! sums over the axes and shrink stage by stage), and the content hash is
//! recomputed from the records. A doctored file is caught even when every hash was recomputed
//! to match, unless the forger rewrote every file consistently (no hash can tell that apart:
//! the manifest is not signed).
//!
//! Every problem is a `verify_failed` error naming the file, and the line and row id where
//! there is one. To add a check: one function below, called from [`verify`].

use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use ts_rs::TS;

use super::export::{canonical_content, sha256_hex};
use super::publish::EXPORT_FILES;
use super::{MANIFEST_FORMAT, ZERO_HASH};
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct VerifyReport {
    pub dir: String,
    #[ts(type = "number")]
    pub files_checked: u64,
    pub content_sha256: String,
    #[ts(type = "number")]
    pub eval_rows: u64,
    #[ts(type = "number")]
    pub retained_rows: u64,
}

/// A problem `verify` found, naming the file.
fn mismatch(dir: &Path, file: &str, message: String) -> Error {
    Error::VerifyFailed { file: dir.join(file).display().to_string(), message }
}

/// One JSONL record, with its line number.
struct Record {
    line: usize,
    id: String,
    fields: Map<String, Value>,
}

/// Re-checks an export folder (see the module documentation).
pub fn verify(dir: &Path) -> Result<VerifyReport> {
    let fail = |file: &str, message: String| mismatch(dir, file, message);
    // Regular files only: a pipe would be waited on forever, a device read without end.
    let regular = |name: &str| -> Result<u64> {
        let meta = std::fs::symlink_metadata(dir.join(name)).map_err(|e| Error::io(dir.join(name), e))?;
        if !meta.is_file() {
            return Err(fail(
                name,
                "not a regular file (a symlink, a folder, a device or a pipe); an export holds regular files only"
                    .into(),
            ));
        }
        Ok(meta.len())
    };
    let read = |name: &str| {
        regular(name).and_then(|_| std::fs::read(dir.join(name)).map_err(|e| Error::io(dir.join(name), e)))
    };
    if regular("manifest.json")? > MAX_MANIFEST {
        return Err(fail(
            "manifest.json",
            format!("larger than {} MiB: not a manifest ForceBench writes", MAX_MANIFEST >> 20),
        ));
    }
    let manifest = read_manifest(dir, &read("manifest.json")?)?;

    // Hashes, and nothing in the folder beyond what the manifest lists.
    let files = manifest["files"].as_object().ok_or_else(|| fail("manifest.json", "no `files` table".into()))?;
    for name in EXPORT_FILES.iter().filter(|n| **n != "manifest.json") {
        if !files.contains_key(*name) {
            return Err(fail("manifest.json", format!("`files` does not list {name}")));
        }
    }
    let mut checked = 1;
    // The files whose records are checked are kept; the others are hashed as they stream by
    // (the annotations and adjudications are most of a large export).
    let mut bytes: HashMap<&str, Vec<u8>> = HashMap::new();
    let (mut rejected, mut adjudicated) = (0, 0);
    for (name, hash) in files {
        let Some(known) = EXPORT_FILES.iter().find(|n| **n == name && **n != "manifest.json") else {
            return Err(fail("manifest.json", format!("`files` lists `{name}`, which is not a file of an export")));
        };
        let (sha, lines, content) = if KEPT.contains(known) {
            let content = read(name)?;
            (sha256_hex(&content), 0, content)
        } else {
            regular(name)?;
            let counted = matches!(*known, "rejected.jsonl" | "adjudications.jsonl");
            let (sha, lines) = stream_hash(&dir.join(name), counted)?;
            (sha, lines, Vec::new())
        };
        if Some(sha.as_str()) != hash.as_str() {
            return Err(fail(
                name,
                format!("sha256 differs from the manifest's (expected {})", hash.as_str().unwrap_or("?")),
            ));
        }
        if *known == "rejected.jsonl" {
            rejected = lines;
        }
        if *known == "adjudications.jsonl" {
            adjudicated = lines;
        }
        bytes.insert(known, content);
        checked += 1;
    }
    let mut extra: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n != "manifest.json" && !files.contains_key(n))
        // The evaluation release has its own manifest, checked by `evaluate::release::verify`.
        .filter(|n| !(n == super::RELEASE_DIR && dir.join(n).symlink_metadata().is_ok_and(|m| m.is_dir())))
        .collect();
    extra.sort();
    if let Some(name) = extra.first() {
        return Err(fail(name, "this file is in the export folder but the manifest does not list it (an export holds only the files its manifest lists)".into()));
    }

    // The records: the evaluation rows in memory, the benchmark (every retained row) read a line
    // at a time.
    let eval = records(dir, "eval.jsonl", &bytes["eval.jsonl"])?;
    let removed = records(dir, "locality_removed.jsonl", &bytes["locality_removed.jsonl"])?;
    // A split locked with the extra row fields has them in its rows.
    let columns = super::export::eval_columns(manifest["extra_row_fields"].as_array().is_some_and(|a| !a.is_empty()));
    check_keys(dir, "eval.jsonl", &eval, &columns)?;
    check_csv(dir, &bytes["eval.csv"], &eval, &columns)?;
    let benchmark = check_benchmark(dir, &eval, &columns)?;
    check_counts(dir, &manifest, &eval, &benchmark, &removed, [rejected, adjudicated])?;
    check_leakage_audit(dir, &manifest, &eval)?;
    check_before_candidacy(dir, &manifest)?;

    // The content hash, from the records.
    let eval_ids: Vec<String> = eval.iter().map(|r| r.id.clone()).collect();
    let removed_ids: Vec<String> = removed.iter().map(|r| r.id.clone()).collect();
    let capped: Vec<String> = manifest["capped"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str().map(String::from))
        .collect();
    // Its hash was checked against the manifest's above.
    let benchmark_sha256 = files["benchmark.jsonl"].as_str().unwrap_or_default();
    let content =
        sha256_hex(&canonical_content(&manifest["params"], benchmark_sha256, &eval_ids, &capped, &removed_ids));
    if manifest["content_sha256"].as_str() != Some(content.as_str()) {
        return Err(fail("manifest.json", "content_sha256 does not match the exported rows".into()));
    }
    let sheet = String::from_utf8_lossy(&bytes["DATASHEET.md"]);
    if !sheet.contains(&format!("Content sha256 `{content}`")) {
        return Err(fail("DATASHEET.md", format!("it does not name the export's content sha256 {content}")));
    }
    Ok(VerifyReport {
        dir: dir.display().to_string(),
        files_checked: checked,
        content_sha256: content,
        eval_rows: eval.len() as u64,
        retained_rows: benchmark.rows as u64,
    })
}

/// The largest manifest verify reads (one of 100,000 rows is 1.6 MB).
const MAX_MANIFEST: u64 = 256 << 20;

/// The files whose content is read into memory and checked record by record.
const KEPT: [&str; 4] = ["eval.jsonl", "eval.csv", "locality_removed.jsonl", "DATASHEET.md"];

/// The sha256 of a file read in chunks and, if asked, how many lines it has (a last line
/// without a line break counts).
fn stream_hash(path: &Path, count_lines: bool) -> Result<(String, usize)> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let io = |e: std::io::Error| Error::io(path, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut last) = (0, b'\n');
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
        if count_lines {
            lines += buf[..n].iter().filter(|b| **b == b'\n').count();
        }
        last = buf[n - 1];
    }
    Ok((hex::encode(hash.finalize()), lines + usize::from(last != b'\n')))
}

/// Parses the manifest and checks that it is ours and that its own sha256 matches.
fn read_manifest(dir: &Path, bytes: &[u8]) -> Result<Value> {
    let fail = |message: String| mismatch(dir, "manifest.json", message);
    let text = std::str::from_utf8(bytes).map_err(|_| fail("not UTF-8".into()))?;
    let manifest: Value = serde_json::from_str(text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
    if manifest["format"] != MANIFEST_FORMAT {
        return Err(fail(format!("not a ForceBench split manifest (no \"format\": \"{MANIFEST_FORMAT}\")")));
    }
    let stated = manifest["manifest_sha256"].as_str().unwrap_or_default().to_string();
    let blanked = text.replacen(
        &format!("\"manifest_sha256\": \"{stated}\""),
        &format!("\"manifest_sha256\": \"{ZERO_HASH}\""),
        1,
    );
    if stated.len() != 64 || sha256_hex(blanked.as_bytes()) != stated {
        return Err(fail("the manifest's own sha256 does not match its contents (it was changed after export)".into()));
    }
    Ok(manifest)
}

/// The text lines of a JSONL file.
fn lines<'a>(dir: &Path, name: &str, bytes: &'a [u8]) -> Result<std::str::Lines<'a>> {
    let text = std::str::from_utf8(bytes).map_err(|_| mismatch(dir, name, "not UTF-8".into()))?;
    Ok(text.lines())
}

/// Every line of a JSONL file as an object with a text `id`.
fn records(dir: &Path, name: &str, bytes: &[u8]) -> Result<Vec<Record>> {
    lines(dir, name, bytes)?.enumerate().map(|(i, l)| record(dir, name, i + 1, l)).collect()
}

/// Line `line` of a JSONL file as an object with a text `id`.
fn record(dir: &Path, name: &str, line: usize, text: &str) -> Result<Record> {
    let fields: Map<String, Value> =
        serde_json::from_str(text).map_err(|e| mismatch(dir, name, format!("line {line}: not a JSON object: {e}")))?;
    let id = fields
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| mismatch(dir, name, format!("line {line}: no text `id`")))?;
    Ok(Record { line, id: id.to_string(), fields })
}

/// Every record has exactly `keys`, in that order, and ids are unique.
fn check_keys(dir: &Path, name: &str, rows: &[Record], keys: &[&str]) -> Result<()> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for r in rows {
        if !r.fields.keys().map(String::as_str).eq(keys.iter().copied()) {
            let found: Vec<&str> = r.fields.keys().map(String::as_str).collect();
            return Err(mismatch(
                dir,
                name,
                format!("line {} (id `{}`): its keys are {}, not {}", r.line, r.id, found.join(", "), keys.join(", ")),
            ));
        }
        if let Some(first) = seen.insert(&r.id, r.line) {
            return Err(mismatch(
                dir,
                name,
                format!("line {} (id `{}`): the id is already on line {first}", r.line, r.id),
            ));
        }
    }
    Ok(())
}

/// The text of a value as a CSV cell holds it.
fn as_cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `eval.csv` holds what `eval.jsonl` holds, row for row and cell for cell.
fn check_csv(dir: &Path, bytes: &[u8], eval: &[Record], columns: &[&str]) -> Result<()> {
    let fail = |message: String| mismatch(dir, "eval.csv", message);
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(bytes);
    let mut rows = reader.records();
    let header = rows.next().transpose().map_err(|e| fail(e.to_string()))?.unwrap_or_default();
    if !header.iter().eq(columns.iter().copied()) {
        return Err(fail(format!("its header is not {}", columns.join(","))));
    }
    let mut n = 0;
    for (i, record) in rows.enumerate() {
        let record = record.map_err(|e| fail(e.to_string()))?;
        let line = record.position().map_or(i + 2, |p| p.line() as usize);
        let Some(row) = eval.get(i) else {
            return Err(fail(format!("line {line}: more rows than eval.jsonl's {}", eval.len())));
        };
        for (column, cell) in columns.iter().zip(record.iter()) {
            let expected = as_cell(&row.fields[*column]);
            if crate::output::literal_cell(cell) != expected {
                return Err(fail(format!(
                    "line {line} (id `{}`): `{column}` differs from eval.jsonl line {}",
                    row.id, row.line
                )));
            }
            // The cell as the export writes it: a formula's neutralising quote removed
            // would let a spreadsheet run it.
            if cell != crate::output::inert_cell(&expected) {
                return Err(fail(format!(
                    "line {line} (id `{}`): `{column}` begins like a spreadsheet formula and has lost the quote \
                     the export puts in front of it, so a spreadsheet would run it",
                    row.id
                )));
            }
        }
        if record.len() != columns.len() {
            return Err(fail(format!("line {line} (id `{}`): {} cells, not {}", row.id, record.len(), columns.len())));
        }
        n += 1;
    }
    if n != eval.len() {
        return Err(fail(format!("{n} rows, but eval.jsonl has {}", eval.len())));
    }
    Ok(())
}

/// What reading `benchmark.jsonl` found: its rows, and per axis [retained, eval, retained
/// severity 1..3, eval severity 1..3] and per source [retained, eval] (the eval halves filled
/// from `eval.jsonl` by [`check_counts`]).
struct Benchmark {
    rows: usize,
    axes: BTreeMap<String, [u64; 8]>,
    sources: BTreeMap<String, [u64; 2]>,
}

/// Counts a record on its axis (with its severity) and source; `at` is 0 for the benchmark, 1
/// for the evaluation rows.
fn tally(axes: &mut BTreeMap<String, [u64; 8]>, sources: &mut BTreeMap<String, [u64; 2]>, r: &Record, at: usize) {
    let text = |key: &str| r.fields[key].as_str().unwrap_or_default().to_string();
    let a = axes.entry(text("axis")).or_default();
    a[at] += 1;
    if let Some(s @ 1..=3) = r.fields["severity"].as_u64() {
        a[2 + 3 * at + s as usize - 1] += 1;
    }
    sources.entry(text("source_dataset")).or_default()[at] += 1;
}

/// Reads `benchmark.jsonl` a line at a time (it holds every retained row: most of a large
/// export), checking that each line has the benchmark's keys, that ids rise (an export writes
/// rows in id order, so none repeats), that every evaluation row is there with `in_eval` true
/// and the same fields, and that no other row has `in_eval` true.
fn check_benchmark(dir: &Path, eval: &[Record], columns: &[&str]) -> Result<Benchmark> {
    use std::io::BufRead;
    let name = "benchmark.jsonl";
    let fail = |message: String| mismatch(dir, name, message);
    let mut keys = columns.to_vec();
    keys.push("in_eval");
    let by_id: HashMap<&str, &Record> = eval.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut found: HashMap<&str, usize> = HashMap::new();
    let path = dir.join(name);
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut out = Benchmark { rows: 0, axes: BTreeMap::new(), sources: BTreeMap::new() };
    let mut last: Option<(String, usize)> = None;
    for (i, text) in std::io::BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let line = i + 1;
        let text = text.map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => fail("not UTF-8".into()),
            _ => Error::io(&path, e),
        })?;
        let b = record(dir, name, line, &text)?;
        check_keys(dir, name, std::slice::from_ref(&b), &keys)?;
        match &last {
            Some((id, at)) if *id == b.id => {
                return Err(fail(format!("line {line} (id `{}`): the id is already on line {at}", b.id)));
            }
            Some((id, at)) if *id > b.id => {
                return Err(fail(format!(
                    "line {line} (id `{}`): it comes after `{id}` on line {at}; an export writes rows in id order",
                    b.id
                )));
            }
            _ => {}
        }
        match (by_id.get(b.id.as_str()), &b.fields["in_eval"]) {
            (Some(r), Value::Bool(true)) => {
                if let Some(column) = columns.iter().find(|c| r.fields[**c] != b.fields[**c]) {
                    return Err(mismatch(
                        dir,
                        "eval.jsonl",
                        format!(
                            "line {} (id `{}`): `{column}` is {}, but benchmark.jsonl line {line} has {}",
                            r.line, r.id, r.fields[*column], b.fields[*column]
                        ),
                    ));
                }
                found.insert(r.id.as_str(), line);
            }
            (Some(_), _) => {
                return Err(fail(format!(
                    "line {line} (id `{}`): in_eval is not true, but the row is in eval.jsonl",
                    b.id
                )));
            }
            (None, Value::Bool(true)) => {
                return Err(fail(format!(
                    "line {line} (id `{}`): in_eval is true, but the row is not in eval.jsonl",
                    b.id
                )));
            }
            (None, Value::Bool(false)) => {}
            (None, other) => {
                return Err(fail(format!("line {line} (id `{}`): in_eval is {other}, not true or false", b.id)));
            }
        }
        tally(&mut out.axes, &mut out.sources, &b, 0);
        out.rows += 1;
        last = Some((b.id, line));
    }
    if let Some(r) = eval.iter().find(|r| !found.contains_key(r.id.as_str())) {
        return Err(mismatch(
            dir,
            "eval.jsonl",
            format!("line {} (id `{}`): the row is not in benchmark.jsonl", r.line, r.id),
        ));
    }
    Ok(out)
}

/// The manifest's counts match the files: stage counts, per axis (with severities), per source,
/// and the locality removals it lists.
fn check_counts(
    dir: &Path,
    manifest: &Value,
    eval: &[Record],
    benchmark: &Benchmark,
    removed: &[Record],
    [rejected, adjudicated]: [usize; 2],
) -> Result<()> {
    let counts = &manifest["counts"];
    for (file, key, n) in [
        ("adjudications.jsonl", "adjudicated", adjudicated),
        ("eval.jsonl", "eval", eval.len()),
        ("benchmark.jsonl", "retained", benchmark.rows),
        ("rejected.jsonl", "rejected", rejected),
        ("locality_removed.jsonl", "locality_removed", removed.len()),
    ] {
        if counts[key].as_u64() != Some(n as u64) {
            return Err(mismatch(dir, file, format!("{n} rows, but the manifest counts {} ({key})", counts[key])));
        }
    }
    let listed = |key: &str| -> Vec<&str> {
        manifest[key].as_array().into_iter().flatten().filter_map(|r| r["id"].as_str()).collect()
    };
    let capped = listed("capped");
    if counts["capped"].as_u64() != Some(capped.len() as u64) {
        return Err(mismatch(
            dir,
            "manifest.json",
            format!("it lists {} capped rows, but counts {}", capped.len(), counts["capped"]),
        ));
    }
    if !removed.iter().map(|r| r.id.as_str()).eq(listed("locality_removed")) {
        return Err(mismatch(
            dir,
            "locality_removed.jsonl",
            "its ids differ from the manifest's `locality_removed` list".into(),
        ));
    }

    // Per axis: [retained, eval, retained severity 1..3, eval severity 1..3]; per source:
    // [retained, eval].
    let (mut axes, mut sources) = (benchmark.axes.clone(), benchmark.sources.clone());
    for r in eval {
        tally(&mut axes, &mut sources, r, 1);
    }
    for t in manifest["per_axis"].as_array().into_iter().flatten() {
        let axis = t["axis"].as_str().unwrap_or_default();
        let found = axes.remove(axis).unwrap_or_default();
        let stated = |key: &str| t[key].as_u64().unwrap_or(u64::MAX);
        let sev = |key: &str, i: usize| t[key][i].as_u64().unwrap_or(u64::MAX);
        let pairs = [
            ("retained", stated("retained"), found[0]),
            ("eval", stated("eval"), found[1]),
            ("retained_severity 1", sev("retained_severity", 0), found[2]),
            ("retained_severity 2", sev("retained_severity", 1), found[3]),
            ("retained_severity 3", sev("retained_severity", 2), found[4]),
            ("eval_severity 1", sev("eval_severity", 0), found[5]),
            ("eval_severity 2", sev("eval_severity", 1), found[6]),
            ("eval_severity 3", sev("eval_severity", 2), found[7]),
        ];
        if let Some((what, stated, found)) = pairs.iter().find(|(_, s, f)| s != f) {
            let file = if what.starts_with("eval") { "eval.jsonl" } else { "benchmark.jsonl" };
            return Err(mismatch(
                dir,
                file,
                format!("{found} rows on axis `{axis}` ({what}), but the manifest's per_axis counts {stated}"),
            ));
        }
    }
    if let Some((axis, _)) = axes.iter().find(|(_, n)| n.iter().any(|x| *x > 0)) {
        return Err(mismatch(
            dir,
            "benchmark.jsonl",
            format!("rows on axis `{axis}`, which the manifest's per_axis does not list"),
        ));
    }
    check_accounting(dir, manifest, removed)?;
    let stated_sources = manifest["by_source"].as_object().cloned().unwrap_or_default();
    for (source, [retained, in_eval]) in &sources {
        let Some(t) = stated_sources.get(source) else {
            return Err(mismatch(
                dir,
                "benchmark.jsonl",
                format!("{retained} retained and {in_eval} evaluation rows from source `{source}`, which the manifest's by_source does not list"),
            ));
        };
        if t["retained"].as_u64() != Some(*retained) || t["eval"].as_u64() != Some(*in_eval) {
            return Err(mismatch(
                dir,
                "benchmark.jsonl",
                format!("{retained} retained and {in_eval} evaluation rows from source `{source}`, but the manifest's by_source says {} and {}", t["retained"], t["eval"]),
            ));
        }
    }
    if let Some(source) = stated_sources
        .iter()
        .find(|(s, t)| !sources.contains_key(*s) && (t["retained"] != 0 || t["eval"] != 0))
        .map(|(s, _)| s)
    {
        return Err(mismatch(
            dir,
            "benchmark.jsonl",
            format!("no rows from source `{source}`, which the manifest's by_source counts"),
        ));
    }
    Ok(())
}

/// Recomputes the leakage audit from `eval.jsonl` and the other rows of
/// `benchmark.jsonl` (groups, normalised passages and normalised raised claims on both sides).
/// A shared one is a `leakage_found` error; counts that differ from the manifest's
/// `leakage_audit` are a `verify_failed` one. Splits locked before the audit existed have no
/// `leakage_audit` and are not audited.
fn check_leakage_audit(dir: &Path, manifest: &Value, eval: &[Record]) -> Result<()> {
    use std::io::BufRead;
    let Some(recorded) = manifest.get("leakage_audit").filter(|v| !v.is_null()) else { return Ok(()) };
    let name = "benchmark.jsonl";
    let path = dir.join(name);
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let eval_ids: std::collections::HashSet<&str> = eval.iter().map(|r| r.id.as_str()).collect();
    let mut rest: Vec<Record> = Vec::new();
    for (i, text) in std::io::BufReader::with_capacity(1 << 20, file).lines().enumerate() {
        let text = text.map_err(|e| Error::io(&path, e))?;
        let r = record(dir, name, i + 1, &text)?;
        if !eval_ids.contains(r.id.as_str()) {
            rest.push(r);
        }
    }
    let text = |r: &Record, key: &str| r.fields.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let owned = |rows: &[Record]| -> Vec<(String, String, String, String)> {
        rows.iter().map(|r| (r.id.clone(), text(r, "group_id"), text(r, "passage"), text(r, "raised_claim"))).collect()
    };
    let (e, o) = (owned(eval), owned(&rest));
    fn view(rows: &[(String, String, String, String)]) -> Vec<super::leakage::AuditRow<'_>> {
        rows.iter()
            .map(|(id, g, p, c)| super::leakage::AuditRow { id, group: g, passage: p, raised_claim: c })
            .collect()
    }
    let audit = super::leakage::audit(&view(&e), &view(&o));
    if !audit.is_clean() {
        return Err(Error::LeakageFound { file: dir.join(name).display().to_string(), message: audit.describe() });
    }
    for key in ["shared_groups", "shared_passages", "shared_raised_claims"] {
        if recorded[key].as_u64() != Some(0) {
            return Err(mismatch(
                dir,
                "manifest.json",
                format!("leakage_audit.{key} is {}, but the rows share none", recorded[key]),
            ));
        }
    }
    Ok(())
}

/// The counts before candidacy add up, when the manifest has them: every context imported was
/// left unscreened, dropped or kept; every kept one is drafted or waiting; every draft is
/// waiting, excluded or promoted; the reasons add up to their totals; and no more contexts were
/// promoted than the pool holds candidates.
fn check_before_candidacy(dir: &Path, manifest: &Value) -> Result<()> {
    let Some(value) = manifest.get("before_candidacy") else { return Ok(()) };
    let fail = |message: String| mismatch(dir, "manifest.json", message);
    let counts: crate::contexts::ContextCounts = serde_json::from_value(value.clone())
        .map_err(|e| fail(format!("before_candidacy is not the counts before candidacy: {e}")))?;
    let all = [
        counts.imported,
        counts.unscreened,
        counts.dropped,
        counts.kept,
        counts.awaiting_draft,
        counts.drafted,
        counts.pending,
        counts.excluded,
        counts.promoted,
    ];
    if all.iter().chain(counts.dropped_by_reason.values()).chain(counts.excluded_by_reason.values()).any(|n| *n < 0) {
        return Err(fail("before_candidacy holds a negative count".into()));
    }
    if let Some(first) = counts.mismatches().into_iter().next() {
        return Err(fail(format!("before_candidacy: {first}")));
    }
    if let Some(u) = manifest.get("suggestion_uptake") {
        let u: crate::contexts::uptake::UptakeReport = serde_json::from_value(u.clone())
            .map_err(|e| fail(format!("suggestion_uptake is not the suggestions followed through: {e}")))?;
        let tables = std::iter::once(("all", &u.by_field))
            .chain(u.by_drafter.iter().map(|(k, t)| (k.as_str(), t)))
            .chain(u.by_family.iter().map(|(k, t)| (k.as_str(), t)));
        for (key, table) in tables {
            for (field, x) in table {
                if x.accepted.checked_add(x.edited) != Some(x.compared) {
                    return Err(fail(format!(
                        "suggestion_uptake ({key}, {field}): {} kept + {} edited, but {} compared",
                        x.accepted, x.edited, x.compared
                    )));
                }
            }
        }
    }
    let candidates = manifest["counts"]["candidates"].as_i64().unwrap_or(-1);
    if counts.promoted > candidates {
        return Err(fail(format!(
            "before_candidacy: {} contexts promoted, more than the {candidates} candidates counted",
            counts.promoted
        )));
    }
    Ok(())
}

/// The manifest's accounting adds up: on every axis the accepted pool is its capped,
/// locality-removed and retained rows, with the removals on each axis as `locality_removed.jsonl`
/// has them; the stage counts are the sums over the axes; the selected rows are the evaluation
/// rows and the selected rows the audit removed; and no stage holds more rows than the one
/// before it (accepted and rejected rows are adjudicated rows, which were double-annotated).
fn check_accounting(dir: &Path, manifest: &Value, removed: &[Record]) -> Result<()> {
    let fail = |file: &str, message: String| mismatch(dir, file, message);
    let n = |v: &Value| v.as_u64().unwrap_or(u64::MAX);
    let counts = &manifest["counts"];
    let mut removed_on: BTreeMap<&str, u64> = BTreeMap::new();
    for r in removed {
        *removed_on.entry(r.fields.get("axis").and_then(Value::as_str).unwrap_or_default()).or_default() += 1;
    }
    let mut sums: BTreeMap<&str, u64> = BTreeMap::new();
    for t in manifest["per_axis"].as_array().into_iter().flatten() {
        let axis = t["axis"].as_str().unwrap_or_default();
        let (accepted, capped, gone, retained) =
            (n(&t["accepted"]), n(&t["capped"]), n(&t["locality_removed"]), n(&t["retained"]));
        if Some(accepted) != capped.checked_add(gone).and_then(|x| x.checked_add(retained)) {
            return Err(fail(
                "manifest.json",
                format!("axis `{axis}`: {accepted} accepted, but {capped} capped + {gone} locality-removed + {retained} retained"),
            ));
        }
        let listed = removed_on.remove(axis).unwrap_or(0);
        if listed != gone {
            return Err(fail(
                "locality_removed.jsonl",
                format!("{listed} rows on axis `{axis}`, but the manifest's per_axis counts {gone} (locality_removed)"),
            ));
        }
        for key in ["accepted", "capped", "locality_removed", "retained", "eval"] {
            *sums.entry(key).or_default() += n(&t[key]);
        }
    }
    if let Some((axis, k)) = removed_on.iter().next() {
        return Err(fail(
            "locality_removed.jsonl",
            format!("{k} rows on axis `{axis}`, which the manifest's per_axis does not list"),
        ));
    }
    for (key, sum) in &sums {
        if n(&counts[*key]) != *sum {
            return Err(fail(
                "manifest.json",
                format!("counts {key} is {}, but its per_axis rows add up to {sum}", counts[*key]),
            ));
        }
    }
    let removed_selected = removed.iter().filter(|r| r.fields.get("was_eval") == Some(&Value::Bool(true))).count();
    if n(&counts["selected"]) != n(&counts["eval"]).saturating_add(removed_selected as u64) {
        return Err(fail(
            "manifest.json",
            format!(
                "counts selected is {}, but {} evaluation rows + {removed_selected} selected rows the locality audit removed",
                counts["selected"], counts["eval"]
            ),
        ));
    }
    let (accepted, rejected) = (n(&counts["accepted"]), n(&counts["rejected"]));
    let stages = [
        ("accepted + rejected", accepted.saturating_add(rejected)),
        ("adjudicated", n(&counts["adjudicated"])),
        ("double_annotated", n(&counts["double_annotated"])),
        ("candidates", n(&counts["candidates"])),
    ];
    if let Some(w) = stages.windows(2).find(|w| w[0].1 > w[1].1) {
        return Err(fail(
            "manifest.json",
            format!("counts {} is {}, more than {} ({})", w[0].0, w[0].1, w[1].0, w[1].1),
        ));
    }
    Ok(())
}
