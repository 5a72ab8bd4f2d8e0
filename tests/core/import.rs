//! Candidate import: the sample files, every bad-input case (message and untouched database),
//! re-import, conflicts and progress.

use crate::common::*;
use forcebench::import::import_file;
use forcebench::{candidate, Error};
use std::path::Path;

fn sample(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data").join(name)
}

fn no_progress() -> impl FnMut(u64, u64) {
    |_, _| {}
}

/// Imports `contents` as `name` into a project that already holds one good row, expects the
/// import to fail, checks the database is byte-for-byte unchanged, and returns the message.
fn rejected(name: &str, contents: impl AsRef<[u8]>) -> String {
    let (dir, _, mut project) = temp_project();
    let seed = write(dir.path(), "seed.csv", csv_file(&[csv_row("seed-1")]));
    import_file(&mut project, &seed, &mut no_progress()).unwrap();
    let before = dump(&project);
    let path = write(dir.path(), name, contents);
    let err = import_file(&mut project, &path, &mut no_progress()).expect_err("import should fail");
    assert_eq!(dump(&project), before, "a failed import changed the database");
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "message does not name the file: {message}");
    message
}

#[test]
fn sample_csv_and_jsonl_import_the_same_rows() {
    let (_dir, _, mut project) = temp_project();
    let report = import_file(&mut project, &sample("candidates.csv"), &mut no_progress()).unwrap();
    assert!(report.inserted >= 80, "sample has at least 80 rows, got {}", report.inserted);
    let again = import_file(&mut project, &sample("candidates.jsonl"), &mut no_progress()).unwrap();
    assert_eq!((again.inserted, again.unchanged), (0, report.inserted), "JSONL must carry the same content as CSV");
    let rows = candidate::list(&project).unwrap();
    assert_eq!(rows.len() as u64, report.inserted);
    let axes: std::collections::BTreeSet<_> = rows.iter().filter_map(|r| r.axis).collect();
    assert_eq!(axes.len(), 5, "sample covers all five axes");
    let sources: std::collections::BTreeSet<_> = rows.iter().map(|r| r.source_dataset.as_str()).collect();
    assert!(sources.len() >= 4);
}

#[test]
fn reimporting_the_same_file_changes_nothing_and_says_so() {
    let (dir, _, mut project) = temp_project();
    let path = write(dir.path(), "c.csv", csv_file(&[csv_row("a"), csv_row("b")]));
    let first = import_file(&mut project, &path, &mut no_progress()).unwrap();
    assert_eq!((first.inserted, first.unchanged), (2, 0));
    let before = dump(&project);
    let second = import_file(&mut project, &path, &mut no_progress()).unwrap();
    assert_eq!((second.inserted, second.unchanged), (0, 2));
    assert!(second.summary().contains("nothing changed"), "{}", second.summary());
    assert_eq!(dump(&project), before, "a no-op import must not even log itself");
}

#[test]
fn new_rows_beside_known_ones_are_added() {
    let (dir, _, mut project) = temp_project();
    let one = write(dir.path(), "one.csv", csv_file(&[csv_row("a")]));
    import_file(&mut project, &one, &mut no_progress()).unwrap();
    let two = write(dir.path(), "two.csv", csv_file(&[csv_row("a"), csv_row("b")]));
    let report = import_file(&mut project, &two, &mut no_progress()).unwrap();
    assert_eq!((report.inserted, report.unchanged), (1, 1));
    let ids: Vec<_> = candidate::list(&project).unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(ids, ["a", "b"], "import order is kept");
}

#[test]
fn changed_row_with_known_id_is_refused_and_listed() {
    let (dir, _, mut project) = temp_project();
    let path = write(dir.path(), "c.csv", csv_file(&[csv_row("a"), csv_row("b")]));
    import_file(&mut project, &path, &mut no_progress()).unwrap();
    let before = dump(&project);
    let changed = csv_row("b").replace("The drug reduces pain.", "The drug cures pain.");
    let path2 = write(dir.path(), "c2.csv", csv_file(&[csv_row("c"), changed]));
    let err = import_file(&mut project, &path2, &mut no_progress()).unwrap_err();
    assert_eq!(err.code(), "import_conflict");
    let message = err.to_string();
    assert!(message.contains("c2.csv:3: id `b` differs in raised_claim"), "{message}");
    assert!(message.contains("nothing was imported"), "{message}");
    assert_eq!(dump(&project), before, "row c must not be imported either");
    assert_eq!(candidate::get(&project, "b").unwrap().candidate.raised_claim, "The drug reduces pain.");
}

#[test]
fn missing_required_field() {
    let row = csv_row("a").replacen("g-a", "", 1);
    let m = rejected("c.csv", csv_file(&[csv_row("ok"), row]));
    assert!(m.contains("c.csv:3: field `group_id`: required field is missing or empty"), "{m}");
}

#[test]
fn missing_required_field_in_jsonl() {
    let m = rejected("c.jsonl", "{\"id\":\"a\",\"group_id\":\"g\",\"source_dataset\":\"S\",\"context\":\"c\",\"calibrated_claim\":\"x\",\"raised_claim\":\"y\"}\n");
    assert!(m.contains("c.jsonl:1: field `passage`: required field is missing or empty"), "{m}");
}

#[test]
fn missing_required_column() {
    let m = rejected("c.csv", "id,group_id,source_dataset,context,passage,calibrated_claim\nx,g,S,c,p,a\n");
    assert!(m.contains("c.csv:1: field `raised_claim`: required column is missing from the header"), "{m}");
}

#[test]
fn unknown_column_is_named() {
    let m = rejected("c.csv", csv_file(&[csv_row("a")]).replacen("group_id", "groupid", 1));
    assert!(m.contains("c.csv:1: field `groupid`: unknown column"), "{m}");
}

#[test]
fn unknown_axis() {
    let m = rejected("c.csv", csv_file(&[csv_row("a").replace(",modality,", ",certainty,")]));
    assert!(
        m.contains(
            "c.csv:2: field `axis`: unknown axis `certainty`; expected relation, modality, scope, temporal or numeric"
        ),
        "{m}"
    );
}

#[test]
fn severity_outside_range() {
    let m = rejected("c.csv", csv_file(&[csv_row("a"), csv_row("b").replace(",modality,2", ",modality,4")]));
    assert!(m.contains("c.csv:3: field `severity`: severity 4 is outside 1-3"), "{m}");
    let m = rejected("c.jsonl", jsonl_row("a").replace("\"severity\":2", "\"severity\":0"));
    assert!(m.contains("c.jsonl:1: field `severity`: severity 0 is outside 1-3"), "{m}");
    let m = rejected("c.csv", csv_file(&[csv_row("a").replace(",modality,2", ",modality,high")]));
    assert!(m.contains("field `severity`: severity `high` is not a whole number 1-3"), "{m}");
}

#[test]
fn span_not_verbatim_in_passage() {
    let m = rejected("c.csv", csv_file(&[csv_row("a").replace(",may reduce pain,", ",might reduce pain,")]));
    assert!(
        m.contains("c.csv:2: field `evidence_span`: suggested span is not a verbatim substring of the passage"),
        "{m}"
    );
    // A near miss (case only) gets a hint.
    let m = rejected("c.csv", csv_file(&[csv_row("a").replace(",may reduce pain,", ",May Reduce pain,")]));
    assert!(m.contains("matches only if case and spacing are ignored"), "{m}");
}

#[test]
fn duplicate_id_within_file() {
    let m = rejected("c.csv", csv_file(&[csv_row("a"), csv_row("b"), csv_row("a")]));
    assert!(m.contains("c.csv:4: field `id`: duplicate id `a` (first used on line 2)"), "{m}");
}

#[test]
fn invalid_utf8_is_one_problem_naming_line_and_byte() {
    // Before: the CSV gave the byte problem plus a false "required field is missing" for passage.
    let mut bytes = csv_file(&[csv_row("a")]).into_bytes();
    bytes.extend_from_slice(b"b,g,S,,ctx,pass\xFF\xFEage,,c,r,,,,\n");
    let m = rejected("c.csv", &bytes);
    let file = m.split(": ").next().unwrap().to_string();
    assert_eq!(
        m,
        format!(
            "{file}: 1 problem found; nothing was imported\n  {file}:3: byte 16 of this line is not valid UTF-8; \
             the file is in another encoding (perhaps Latin-1 or Windows-1252): save it as UTF-8 and import again"
        )
    );

    let mut bytes = jsonl_row("a").into_bytes();
    bytes.extend_from_slice(b"{\"id\":\"b\xC3\"}\n");
    let m = rejected("c.jsonl", &bytes);
    assert!(m.contains("c.jsonl:2: byte 9 of this line is not valid UTF-8"), "{m}");
}

#[test]
fn ragged_csv_row() {
    let m = rejected("c.csv", csv_file(&[csv_row("a"), "b,g,S".to_string()]));
    assert!(m.contains("c.csv:3: this row has 3 fields but the header has 13"), "{m}");
}

#[test]
fn empty_file() {
    let m = rejected("c.csv", "");
    assert!(m.contains("c.csv: the file is empty"), "{m}");
    let m = rejected("c.jsonl", "\n  \n");
    assert!(m.contains("c.jsonl: the file is empty"), "{m}");
    let m = rejected("c.csv", format!("{HEADER}\n"));
    assert!(m.contains("c.csv: the file has no data rows"), "{m}");
}

#[test]
fn unknown_extension() {
    let m = rejected("c.xlsx", "whatever");
    assert!(m.contains("c.xlsx: unknown extension `.xlsx`; candidate files must end in .csv or .jsonl"), "{m}");
}

#[test]
fn malformed_jsonl_lines() {
    let m = rejected("c.jsonl", format!("{}\n[1,2]\n{{\"id\": \n", jsonl_row("a").trim_end()));
    assert!(m.contains("c.jsonl:2: each line must be one JSON object"), "{m}");
    assert!(m.contains("c.jsonl:3: not valid JSON"), "{m}");
    let m = rejected("c.jsonl", jsonl_row("a").replace("\"context\":\"Does the drug help?\"", "\"context\":7"));
    assert!(m.contains("c.jsonl:1: field `context`: expected a string, found a number"), "{m}");
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let rows = [csv_row("a").replace(",modality,", ",vibes,"), csv_row("b").replace(",modality,2", ",modality,9")];
    let m = rejected("c.csv", csv_file(&rows));
    assert!(m.contains("2 problems found"), "{m}");
    assert!(m.contains("c.csv:2: field `axis`") && m.contains("c.csv:3: field `severity`"), "{m}");
}

#[test]
fn quoted_newlines_keep_the_starting_line_number() {
    let multi = csv_row("b").replace("\"In a trial of adults,", "\"In a trial\nof adults,");
    let bad = csv_row("c").replace(",modality,", ",nope,");
    let m = rejected("c.csv", csv_file(&[csv_row("a"), multi, bad]));
    assert!(m.contains("c.csv:5: field `axis`"), "row c starts on line 5 (row b spans two): {m}");
}

// Broke: a bad field after a line break inside a quoted field was reported at the record's first
// line, so a lead looked for it on the wrong line.
#[test]
fn a_bad_field_inside_a_multi_line_record_is_reported_at_its_own_line() {
    // Row b: its passage spans lines 3-5, so its axis and severity sit on line 5.
    let multi = csv_row("b")
        .replace("\"In a trial of adults,", "\"In a trial\nof adults,\n")
        .replace(",modality,2", ",vibes,9");
    let m = rejected("c.csv", csv_file(&[csv_row("a"), multi.clone()]));
    assert!(m.contains("c.csv:5: field `axis`"), "{m}");
    assert!(m.contains("c.csv:5: field `severity`"), "{m}");
    // A field before the break keeps the record's first line; a CRLF file counts the same lines.
    let first = multi.replacen("b,g-b,", ",g-b,", 1);
    let m = rejected("c.csv", csv_file(&[csv_row("a"), first.clone()]));
    assert!(m.contains("c.csv:3: field `id`") && m.contains("c.csv:5: field `axis`"), "{m}");
    let m = rejected("c.csv", csv_file(&[csv_row("a"), first]).replace('\n', "\r\n"));
    assert!(m.contains("c.csv:3: field `id`") && m.contains("c.csv:5: field `axis`"), "{m}");
    // A comma or a doubled quote inside the quoted passage does not shift the count.
    let quoted = csv_row("d")
        .replace("\"In a trial of adults,", "\"In a \"\"trial\"\",\nof adults,\n")
        .replace(",may reduce pain,", ",absent words,");
    let m = rejected("c.csv", csv_file(&[quoted]));
    assert!(m.contains("c.csv:4: field `evidence_span`"), "{m}");
}

#[test]
fn content_hash_matches_an_independent_computation() {
    // Expected value computed outside this code base, with Python:
    // hashlib.sha256(json.dumps(values, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
    let c = forcebench::candidate::Candidate {
        id: "fb-x".into(),
        group_id: "g-1".into(),
        source_dataset: "ExpertQA".into(),
        source_id: "".into(),
        context: "Does it help?".into(),
        passage: "Trials suggest — in Zürich — it \"may\" help.\nSecond paragraph.".into(),
        evidence_span: Some("may\" help".into()),
        calibrated_claim: "It may help.".into(),
        raised_claim: "It helps.".into(),
        repair: None,
        rationale: None,
        axis: Some(forcebench::vocab::Axis::Modality),
        severity: Some(2),
        construction_family: None,
    };
    assert_eq!(c.content_hash(), "55bc4835634c942c180739bf5a99f133c19ef0800713c89d38d8203ab2e38d6c");
    // A construction family is appended as a fourteenth value only when present.
    let c = forcebench::candidate::Candidate { construction_family: Some("template-hedge".into()), ..c };
    assert_eq!(c.content_hash(), "dcb1e6af9d048af3485f04b2f2671eabaa206e0286a85c7464c013150abdb95c");
}

#[test]
fn stored_hash_is_the_hash_of_the_stored_fields() {
    let (_dir, _, mut project) = temp_project();
    import_file(&mut project, &sample("candidates.csv"), &mut no_progress()).unwrap();
    for row in candidate::list(&project).unwrap().iter().take(20) {
        let detail = candidate::get(&project, &row.id).unwrap();
        assert_eq!(detail.content_sha256, detail.candidate.content_hash());
    }
}

#[test]
fn text_is_stored_verbatim_and_identifiers_trimmed() {
    let (dir, _, mut project) = temp_project();
    let row =
        csv_row("a").replacen("a,g-a,ExpertQA", " a , g-a ,ExpertQA", 1).replace(",modality,2", ", modality , 2 ");
    let path = write(dir.path(), "c.csv", csv_file(&[row]));
    import_file(&mut project, &path, &mut no_progress()).unwrap();
    let c = candidate::get(&project, "a").unwrap().candidate;
    assert_eq!((c.id.as_str(), c.group_id.as_str()), ("a", "g-a"));
    assert_eq!(c.passage, "In a trial of adults, the drug may reduce pain, the authors said.");
    assert_eq!(c.axis, Some(forcebench::vocab::Axis::Modality));
}

#[test]
fn optional_suggestions_may_be_empty() {
    let (dir, _, mut project) = temp_project();
    let path = write(dir.path(), "c.csv", format!("{HEADER}\nx,g,S,,ctx,passage,,calibrated,raised,,,,\n"));
    import_file(&mut project, &path, &mut no_progress()).unwrap();
    let c = candidate::get(&project, "x").unwrap().candidate;
    assert_eq!((c.evidence_span, c.axis, c.severity, c.repair), (None, None, None, None));
}

#[test]
fn utf8_bom_is_accepted() {
    let (dir, _, mut project) = temp_project();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(csv_file(&[csv_row("a")]).into_bytes());
    let path = write(dir.path(), "excel.csv", bytes);
    assert_eq!(import_file(&mut project, &path, &mut no_progress()).unwrap().inserted, 1);
}

#[test]
fn progress_reaches_the_total() {
    let (dir, _, mut project) = temp_project();
    let rows: Vec<String> = (0..3000).map(|i| csv_row(&format!("r{i}"))).collect();
    let path = write(dir.path(), "big.csv", csv_file(&rows));
    let size = std::fs::metadata(&path).unwrap().len();
    let mut calls = Vec::new();
    import_file(&mut project, &path, &mut |done, total| calls.push((done, total))).unwrap();
    assert!(calls.len() >= 2, "a {size}-byte file reports progress more than once: {calls:?}");
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0), "progress never goes backwards");
    assert_eq!(*calls.last().unwrap(), (size, size));
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let (dir, _, mut project) = temp_project();
    let err = import_file(&mut project, &dir.path().join("gone.csv"), &mut no_progress()).unwrap_err();
    assert!(matches!(err, Error::Io { .. }));
    assert!(err.to_string().contains("gone.csv"));
}

fn jsonl_row(id: &str) -> String {
    format!(
        "{{\"id\":\"{id}\",\"group_id\":\"g\",\"source_dataset\":\"S\",\"source_id\":\"\",\"context\":\"Does the drug help?\",\"passage\":\"It may help.\",\"evidence_span\":\"may help\",\"calibrated_claim\":\"It may help.\",\"raised_claim\":\"It helps.\",\"repair\":null,\"rationale\":null,\"axis\":\"modality\",\"severity\":2}}\n"
    )
}

/// A problem names the file's own line, as an editor numbers it (the header is
/// line 1), whatever the line ends: before, a file saved with CRLF line ends (as spreadsheets save
/// CSV) named the line before (`c.csv:2` for a value on line 3), and a blank line before a row
/// was named instead of the row. A problem in a record spanning lines is named by the line its
/// field is on.
#[test]
fn csv_problems_name_the_files_own_line_with_any_line_ends() {
    let bad_axis = |id: &str| csv_row(id).replace(",modality,", ",certainty,");
    let multi = csv_row("b").replace("\"In a trial of adults,", "\"In a trial\r\nof adults,");
    let crlf = |rows: &[String]| csv_file(rows).replace('\n', "\r\n");
    for (what, text, line) in [
        ("CRLF, second data row", crlf(&[csv_row("a"), bad_axis("b")]), 3),
        ("CRLF, first data row", crlf(&[bad_axis("a")]), 2),
        ("CRLF, after a row spanning lines 3-4", crlf(&[csv_row("a"), multi.clone(), bad_axis("c")]), 5),
        ("LF, a blank line before the row", csv_file(&[csv_row("a"), String::new(), bad_axis("c")]), 4),
        ("CRLF, blank lines before the row", crlf(&[csv_row("a"), String::new(), String::new(), bad_axis("c")]), 5),
        (
            "a record spanning lines 3-4 with the problem on line 4",
            csv_file(&[csv_row("a"), multi.replace(",modality,", ",nope,")]),
            4,
        ),
    ] {
        let m = rejected("c.csv", text);
        assert!(m.contains(&format!("c.csv:{line}: field `axis`: unknown axis")), "{what}: {m}");
        assert!(m.contains("1 problem found"), "{what}: one problem: {m}");
    }
    // A ragged row and a duplicate id name the file's lines too.
    let m = rejected("c.csv", crlf(&[csv_row("a"), csv_row("b"), "x,g,S".to_string()]));
    assert!(m.contains("c.csv:4: this row has 3 fields but the header has 13"), "{m}");
    let m = rejected("c.csv", crlf(&[csv_row("a"), csv_row("b"), csv_row("a")]));
    assert!(m.contains("c.csv:4: field `id`: duplicate id `a` (first used on line 2)"), "{m}");
}
