//! Agreement statistics against published worked examples and values computed independently
//! (statsmodels 0.15 `cohens_kappa`, Gwet's irrCAC package, the `krippendorff` package), never
//! against this code's own output.

use crate::common::*;
use forcebench::agreement::{self, stats};

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} differs from {b} by more than {tol}");
}

/// Rows (item, annotator, label) from a rater x unit matrix with `None` for missing.
fn long(raters: &[(&str, &[Option<u32>])]) -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    for (name, values) in raters {
        for (i, v) in values.iter().enumerate() {
            if let Some(v) = v {
                rows.push((format!("u{i:02}"), name.to_string(), v.to_string()));
            }
        }
    }
    rows
}

#[test]
fn krippendorff_2011_nominal_example_with_missing_values() {
    // Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011): 4 observers, 12 units,
    // nominal alpha = 0.743. Fleiss and AC1 in Gwet's form from irrCAC: 0.76117 and 0.77544.
    let n = None;
    let s = |v: u32| Some(v);
    let a = [s(1), s(2), s(3), s(3), s(2), s(1), s(4), s(1), s(2), n, n, n];
    let b = [s(1), s(2), s(3), s(3), s(2), s(2), s(4), s(1), s(2), s(5), n, s(3)];
    let c = [n, s(3), s(3), s(3), s(2), s(3), s(4), s(2), s(2), s(5), s(1), n];
    let d = [s(1), s(2), s(3), s(3), s(2), s(4), s(4), s(1), s(2), s(5), s(1), n];
    let report = agreement::report_from_rows(&long(&[("A", &a), ("B", &b), ("C", &c), ("D", &d)]), None);
    close(report.krippendorff_alpha.unwrap(), 0.743, 0.0005);
    close(report.krippendorff_alpha.unwrap(), 0.743_421_052_631_579, 1e-12);
    close(report.fleiss_kappa.unwrap(), 0.76117, 5e-6);
    close(report.pair.kappa.gwet_ac1.unwrap(), 0.77544, 5e-6);
    assert_eq!(report.pair.kappa.n_items, 11, "unit 12 has a single value and carries no agreement information");
    assert_eq!(report.pairs.len(), 6, "every pair of four annotators");
    assert!(report.pair.kappa.cohen_kappa.is_none() && !report.pair.notes.is_empty());
}

#[test]
fn krippendorff_2011_binary_two_observer_example() {
    // Same paper: two observers, ten units, binary data, alpha = 0.095.
    let a: Vec<Option<u32>> = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0].iter().map(|&v| Some(v)).collect();
    let b: Vec<Option<u32>> = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0].iter().map(|&v| Some(v)).collect();
    let report = agreement::report_from_rows(&long(&[("A", &a), ("B", &b)]), None);
    close(report.krippendorff_alpha.unwrap(), 0.095, 0.0005);
    close(report.krippendorff_alpha.unwrap(), 2.0 / 21.0, 1e-12);
}

#[test]
fn cohen_kappa_two_by_two_textbook_example_with_fce_standard_error() {
    // 50 items: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    // SE and interval: statsmodels cohens_kappa (Fleiss, Cohen, Everitt 1969): 0.126996...
    let k = stats::kappa_from_table(&[vec![20, 5], vec![10, 15]]);
    close(k.percent_agreement.unwrap(), 0.7, 1e-12);
    close(k.chance_agreement.unwrap(), 0.5, 1e-12);
    close(k.cohen_kappa.unwrap(), 0.4, 1e-12);
    close(k.kappa_se.unwrap(), 0.126_996_062_931_100_33, 1e-12);
    let [lo, hi] = k.kappa_ci95.unwrap();
    close(lo, 0.151_092_290_476_661, 1e-9);
    close(hi, 0.648_907_709_523_338_9, 1e-9);
    close(k.pabak.unwrap(), 0.4, 1e-12); // (2 * 0.7 - 1) / (2 - 1)
}

#[test]
fn three_category_table_against_statsmodels_and_irrcac() {
    let t = [vec![40, 5, 3], vec![6, 30, 4], vec![2, 3, 7]];
    let k = stats::kappa_from_table(&t);
    close(k.cohen_kappa.unwrap(), 0.617_177_097_203_728_4, 1e-12);
    close(k.kappa_se.unwrap(), 0.067_891_140_632_806_7, 1e-12);
    close(k.gwet_ac1.unwrap(), 0.67129, 5e-6);
    close(k.pabak.unwrap(), (3.0 * 77.0 / 100.0 - 1.0) / 2.0, 1e-12);
    close(stats::quadratic_weighted_kappa(&t).unwrap(), 0.610_336_341_263_330_7, 1e-12);
}

#[test]
fn fleiss_kappa_worked_example() {
    // The ten-subject, fourteen-rater, five-category worked example for Fleiss' kappa (as on
    // Wikipedia's "Fleiss' kappa" page): kappa = 0.210 (statsmodels: 0.2099307044).
    let counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ];
    let units: Vec<Vec<u32>> = counts
        .iter()
        .map(|row| row.iter().enumerate().flat_map(|(k, &n)| std::iter::repeat_n(k as u32, n)).collect())
        .collect();
    let m = stats::multi_rater(&units, 5);
    close(m.fleiss_kappa.unwrap(), 0.210, 0.0005);
    close(m.fleiss_kappa.unwrap(), 0.209_930_704_421_955_22, 1e-12);
}

#[test]
fn undefined_cases_are_said_not_printed_as_nan() {
    // One category only.
    let k = stats::kappa_from_table(&[vec![12]]);
    assert_eq!(k.cohen_kappa, None);
    let rows: Vec<_> = (0..5)
        .flat_map(|i| {
            [
                (format!("i{i}"), "A".to_string(), "yes".to_string()),
                (format!("i{i}"), "B".to_string(), "yes".to_string()),
            ]
        })
        .collect();
    let r = agreement::report_from_rows(&rows, Some((200, 1)));
    assert_eq!(r.pair.kappa.cohen_kappa, None);
    assert!(r.pair.notes.iter().any(|n| n.contains("every label is `yes`")), "{:?}", r.pair.notes);
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("NaN") && json.contains("\"cohen_kappa\":null"), "{json}");
    // No overlapping items.
    let rows = vec![("i1".into(), "A".into(), "x".into()), ("i2".into(), "B".into(), "y".into())];
    let r = agreement::report_from_rows(&rows, None);
    assert_eq!((r.pair.kappa.n_items, r.pair.kappa.cohen_kappa), (0, None));
    assert!(r.pair.notes.iter().any(|n| n.contains("no item was labelled by both")), "{:?}", r.pair.notes);
    // A single annotator.
    let rows = vec![("i1".into(), "A".into(), "x".into()), ("i2".into(), "A".into(), "y".into())];
    let r = agreement::report_from_rows(&rows, None);
    assert!(r.pair.notes.iter().any(|n| n.contains("at least two annotators; this table has 1")), "{:?}", r.pair.notes);
    assert_eq!(r.krippendorff_alpha, None);
}

#[test]
fn bootstrap_interval_is_seeded_and_brackets_kappa() {
    let mut pairs = Vec::new();
    for (a, b, n) in [(0u32, 0u32, 40), (0, 1, 5), (1, 0, 10), (1, 1, 45)] {
        pairs.extend(std::iter::repeat_n((a, b), n));
    }
    let ci = stats::bootstrap_kappa_ci(&pairs, 2, 1000, 7).unwrap();
    assert_eq!(ci, stats::bootstrap_kappa_ci(&pairs, 2, 1000, 7).unwrap(), "same seed, same interval");
    assert_ne!(ci, stats::bootstrap_kappa_ci(&pairs, 2, 1000, 8).unwrap());
    let k = stats::kappa_from_table(&stats::table(&pairs, 2));
    assert!(ci[0] < k.cohen_kappa.unwrap() && k.cohen_kappa.unwrap() < ci[1], "{ci:?}");
    // The bootstrap and the normal interval should roughly agree at n = 100.
    let [lo, hi] = k.kappa_ci95.unwrap();
    close(ci[0], lo, 0.06);
    close(ci[1], hi, 0.06);
}

#[test]
fn token_f1_by_hand() {
    // "may reduce pain" vs "reduce pain in adults": 2 common, P = 2/3, R = 2/4, F1 = 4/7.
    close(stats::token_f1("may reduce pain", "reduce pain in adults"), 4.0 / 7.0, 1e-12);
    close(stats::token_f1("A b", "a B"), 1.0, 1e-12);
    close(stats::token_f1("x", "y"), 0.0, 1e-12);
}

#[test]
fn from_csv_reports_and_names_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "labels.csv",
        "item,annotator,label\n1,A,yes\n1,B,yes\n2,A,no\n2,B,yes\n3,A,no\n3,B,no\n4,A,\n4,B,no\n",
    );
    let r = agreement::labels_report(&path, None).unwrap();
    assert_eq!(r.pair.kappa.n_items, 3, "item 4 has a missing label");
    close(r.pair.kappa.percent_agreement.unwrap(), 2.0 / 3.0, 1e-12);
    assert_eq!(r.pair.labels, ["no", "yes"]);
    // Rows: A's label, columns: B's, in label order (no, yes): (yes,yes), (no,yes), (no,no).
    assert_eq!(r.pair.confusion, [vec![1, 1], vec![0, 1]]);
    let bad = write(dir.path(), "dup.csv", "item,annotator,label\n1,A,yes\n1,A,no\n");
    let err = agreement::labels_report(&bad, None).unwrap_err().to_string();
    assert!(err.contains("dup.csv:3: field `label`: annotator `A` labels item `1` twice (first on line 2)"), "{err}");
    // With CRLF line ends (a spreadsheet's CSV) the lines are the file's own too.
    let bad = write(dir.path(), "crlf.csv", "item,annotator,label\r\n1,A,yes\r\n2,A,no\r\n1,A,no\r\n");
    let err = agreement::labels_report(&bad, None).unwrap_err().to_string();
    assert!(err.contains("crlf.csv:4: field `label`: annotator `A` labels item `1` twice (first on line 2)"), "{err}");
    let bad = write(dir.path(), "cols.csv", "id,coder,value\n1,A,yes\n");
    let err = agreement::labels_report(&bad, None).unwrap_err().to_string();
    assert!(err.contains("cols.csv:1: the header must name the columns item, annotator and label"), "{err}");
}

#[test]
fn project_agreement_uses_pre_adjudication_decisions() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(10).map(|r| r.id).collect();
    // Ana: 6 accepts, 4 rejects; Ben agrees on 8 (disagrees on rows 5 and 9).
    let line = |id: &str, accept: bool| {
        if accept {
            format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\"}}\n")
        } else {
            format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n")
        }
    };
    let ana: String = ids.iter().enumerate().map(|(i, id)| line(id, i < 6)).collect();
    let ben: String =
        ids.iter().enumerate().map(|(i, id)| line(id, if i == 5 || i == 9 { i >= 6 } else { i < 6 })).collect();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ana.jsonl", ana), "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ben.jsonl", ben), "ben").unwrap();
    let r = agreement::project_report(&project, None).unwrap();
    assert_eq!(r.decision.kappa.n_items, 10);
    // Ana (added first) is "A": table [[5,1],[1,3]] over (accept, reject), both with 6 accepts:
    // p_o = 0.8, p_e = 0.6*0.6 + 0.4*0.4 = 0.52.
    close(r.decision.kappa.percent_agreement.unwrap(), 0.8, 1e-12);
    close(r.decision.kappa.cohen_kappa.unwrap(), (0.8 - 0.52) / (1.0 - 0.52), 1e-12);
    assert_eq!(r.decision.confusion, [vec![5, 1, 0], vec![1, 3, 0], vec![0, 0, 0]]);
    close(r.accept_vs_not.kappa.cohen_kappa.unwrap(), (0.8 - 0.52) / 0.48, 1e-12);
    assert_eq!(r.axis_when_both_accept.kappa.n_items, 5, "five rows both accepted");
    close(r.axis_when_both_accept.kappa.percent_agreement.unwrap(), 1.0, 1e-12);
    assert_eq!(r.raised_claim_edits.both_kept, 10);
    assert_eq!(r.by_pair.len(), 1);
    assert_eq!(r.by_pair[0].key, "ana + ben");
}

#[test]
fn agreement_json_has_the_documented_keys_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "l.csv", "item,annotator,label\n1,A,yes\n1,B,yes\n2,A,no\n2,B,yes\n3,A,no\n3,B,no\n");
    let out = assert_cmd::Command::cargo_bin("forcebench")
        .unwrap()
        .args(["agreement", "--bootstrap", "100", "--json", "--from-csv"])
        .arg(&csv)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "n_items",
        "cohen_kappa",
        "kappa_se",
        "kappa_ci95",
        "percent_agreement",
        "krippendorff_alpha",
        "gwet_ac1",
        "pabak",
        "confusion",
        "bootstrap_ci95",
        "labels",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {text}");
        assert_eq!(text.matches(&format!("\"{key}\":")).count(), 1, "{key} appears more than once");
    }
    assert_eq!(v["n_items"], 3);
}

#[test]
fn project_field_agreement_on_spans_claims_and_breakdowns() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let rows: Vec<_> = forcebench::candidate::list(&project).unwrap().into_iter().take(4).collect();
    let span0 = forcebench::candidate::get(&project, &rows[1].id)
        .unwrap()
        .candidate
        .evidence_span
        .expect("sample rows carry a span");
    // A prefix ending at a space shares all its tokens with the whole span.
    let prefix = span0.splitn(3, ' ').take(2).collect::<Vec<_>>().join(" ");
    let tokens = |s: &str| s.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).count() as f64;
    let (n, k) = (tokens(&span0), tokens(&prefix));
    assert!(k >= 1.0 && n > k, "{span0}");
    let accept = |id: &str, extra: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"axis\":\"scope\",\"severity\":2{extra}}}\n")
    };
    let reject = |id: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\",\"evidence_span\":null}}\n")
    };
    // Row 0: same span, Ben rewrites the raised claim. Row 1: Ben marks a two-word prefix of the
    // span and both rewrite the calibrated claim. Row 2: Ana rejects without a span. Row 3: same.
    let ana = [
        accept(&rows[0].id, ""),
        accept(&rows[1].id, ",\"calibrated_claim\":\"Ana's own calibrated claim.\""),
        reject(&rows[2].id),
        accept(&rows[3].id, ""),
    ]
    .concat();
    let ben = [
        accept(&rows[0].id, ",\"raised_claim\":\"Ben's raised claim.\""),
        accept(
            &rows[1].id,
            &format!(
                ",\"calibrated_claim\":\"Ben's calibrated claim.\",\"evidence_span\":{}",
                serde_json::json!(prefix)
            ),
        ),
        accept(&rows[2].id, ""),
        accept(&rows[3].id, ""),
    ]
    .concat();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ana.jsonl", ana), "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ben.jsonl", ben), "ben").unwrap();
    let r = agreement::project_report(&project, None).unwrap();
    assert_eq!(r.decision.kappa.n_items, 4);
    // Spans on rows 0, 1 and 3 (row 2: Ana has none); one differs: F1 = 2k / (n + k), k = 2.
    assert_eq!(r.span.n_items, 3);
    close(r.span.exact_match_rate.unwrap(), 2.0 / 3.0, 1e-12);
    close(r.span.mean_token_f1.unwrap(), (2.0 + 2.0 * k / (n + k)) / 3.0, 1e-12);
    assert_eq!(
        (
            r.calibrated_claim_edits.both_kept,
            r.calibrated_claim_edits.one_changed,
            r.calibrated_claim_edits.both_changed
        ),
        (3, 0, 1)
    );
    assert_eq!(
        (r.raised_claim_edits.both_kept, r.raised_claim_edits.one_changed, r.raised_claim_edits.both_changed),
        (3, 1, 0)
    );
    // Three rows both accepted, every one on scope at severity 2.
    assert_eq!(r.axis_when_both_accept.kappa.n_items, 3);
    assert_eq!(r.severity_n_items, 3);
    // Breakdowns partition the rows, in key order.
    for b in [&r.by_source, &r.by_suggested_axis] {
        assert_eq!(b.iter().map(|x| x.n_items).sum::<u64>(), 4);
        assert!(b.windows(2).all(|w| w[0].key < w[1].key));
    }
    let mut sources: Vec<&str> = rows.iter().map(|c| c.source_dataset.as_str()).collect();
    sources.sort();
    sources.dedup();
    assert_eq!(r.by_source.iter().map(|b| b.key.as_str()).collect::<Vec<_>>(), sources);
}

#[test]
fn confusion_cells_open_the_rows_behind_them() {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(3).map(|r| r.id).collect();
    let accept = |id: &str, axis: &str| {
        format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\",\"axis\":\"{axis}\",\"severity\":1}}\n")
    };
    let discuss =
        |id: &str| format!("{{\"id\":\"{id}\",\"decision\":\"needs_discussion\",\"notes\":\"which reading?\"}}\n");
    let ana = [accept(&ids[0], "scope"), accept(&ids[1], "scope"), accept(&ids[2], "numeric")].concat();
    let ben = [accept(&ids[0], "scope"), discuss(&ids[1]), accept(&ids[2], "temporal")].concat();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ana.jsonl", ana), "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ben.jsonl", ben), "ben").unwrap();
    use agreement::ConfusionTable::*;
    let cell = |t, r, c| agreement::cell_rows(&project, t, r, c).unwrap().into_iter().map(|x| x.id).collect::<Vec<_>>();
    // Decisions in schema order: accept 0, reject 1, needs_discussion 2.
    assert_eq!(cell(Decision, 0, 2), [ids[1].clone()]);
    assert_eq!(cell(Decision, 0, 0).len(), 2);
    assert_eq!(cell(AcceptVsNot, 0, 1), [ids[1].clone()]);
    // Axes in schema order: relation, modality, scope 2, temporal 3, numeric 4.
    assert_eq!(cell(AxisWhenBothAccept, 4, 3), [ids[2].clone()]);
    assert_eq!(cell(AxisWhenBothAccept, 2, 2), [ids[0].clone()]);
    assert!(cell(AxisWhenBothAccept, 2, 4).is_empty());
    let first = &agreement::cell_rows(&project, Decision, 0, 2).unwrap()[0];
    assert_eq!((first.annotator_a.as_str(), first.annotator_b.as_str()), ("ana", "ben"));
}

/// Two annotators on ten rows: Ana accepts the first six and rejects the rest; Ben agrees except
/// on rows 5 and 9 (decision table [[5,1,0],[1,3,0],[0,0,0]], kappa = 0.28 / 0.48).
fn ten_row_project() -> (tempfile::TempDir, forcebench::Project) {
    let (dir, _, mut project) = annotated_project(&["ana", "ben"]);
    let ids: Vec<String> = forcebench::candidate::list(&project).unwrap().into_iter().take(10).map(|r| r.id).collect();
    let line = |id: &str, accept: bool| {
        if accept {
            format!("{{\"id\":\"{id}\",\"decision\":\"accept_force_gap\"}}\n")
        } else {
            format!("{{\"id\":\"{id}\",\"decision\":\"reject_not_force_gap\",\"boundary_type\":\"ambiguous\"}}\n")
        }
    };
    let ana: String = ids.iter().enumerate().map(|(i, id)| line(id, i < 6)).collect();
    let ben: String =
        ids.iter().enumerate().map(|(i, id)| line(id, if i == 5 || i == 9 { i >= 6 } else { i < 6 })).collect();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ana.jsonl", ana), "ana").unwrap();
    forcebench::annotate::import_jsonl(&mut project, &write(dir.path(), "ben.jsonl", ben), "ben").unwrap();
    (dir, project)
}

/// The CSV export parsed back: (section, statistic, key) -> value, with the header checked.
fn parse_export(text: &str) -> std::collections::HashMap<(String, String, String), String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    assert_eq!(reader.headers().unwrap(), &csv::StringRecord::from(vec!["section", "statistic", "key", "value"]));
    let mut out = std::collections::HashMap::new();
    for record in reader.records() {
        let r = record.expect("every line parses as CSV");
        assert_eq!(r.len(), 4, "{r:?}");
        let previous = out.insert((r[0].to_string(), r[1].to_string(), r[2].to_string()), r[3].to_string());
        assert!(previous.is_none() || r[1] == *"note", "one line per statistic: {r:?}");
    }
    out
}

#[test]
fn agreement_report_exports_as_long_csv_with_real_values() {
    use agreement::export;
    let (_dir, project) = ten_row_project();
    let report = agreement::project_report(&project, Some((200, 3))).unwrap();
    let text = export::to_csv(&report).unwrap();
    let rows = parse_export(&text);
    let get = |section: &str, statistic: &str, key: &str| {
        rows.get(&(section.into(), statistic.into(), key.into()))
            .unwrap_or_else(|| panic!("no {section}/{statistic}/{key} in\n{text}"))
            .clone()
    };
    let num = |section: &str, statistic: &str, key: &str| get(section, statistic, key).parse::<f64>().unwrap();
    assert_eq!(get("decision", "n_items", ""), "10");
    close(num("decision", "cohen_kappa", ""), (0.8 - 0.52) / 0.48, 1e-12);
    close(num("decision", "percent_agreement", ""), 0.8, 1e-12);
    close(num("decision", "chance_agreement", ""), 0.52, 1e-12);
    // Rows of the matrix: Ana (first on the roster); columns: Ben.
    assert_eq!(get("decision", "confusion", "accept_force_gap|accept_force_gap"), "5");
    assert_eq!(get("decision", "confusion", "accept_force_gap|reject_not_force_gap"), "1");
    assert_eq!(get("decision", "confusion", "reject_not_force_gap|reject_not_force_gap"), "3");
    assert_eq!(get("decision", "confusion", "needs_discussion|needs_discussion"), "0");
    let [lo, hi] = report.decision.bootstrap_ci95.unwrap();
    close(num("decision", "bootstrap_ci95_low", ""), lo, 0.0);
    close(num("decision", "bootstrap_ci95_high", ""), hi, 0.0);
    close(num("decision", "kappa_ci95_low", ""), report.decision.kappa.kappa_ci95.unwrap()[0], 0.0);
    close(num("decision", "krippendorff_alpha", ""), report.krippendorff_alpha.unwrap(), 0.0);
    assert_eq!(get("accept_vs_not", "confusion", "accept|not_accept"), "1");
    assert_eq!(get("accept_vs_not", "bootstrap_ci95_low", ""), "", "no bootstrap on accept vs not");
    assert_eq!(get("axis_when_both_accept", "n_items", ""), "5");
    assert_eq!(get("severity", "n_items", ""), "5");
    assert_eq!(get("raised_claim_edits", "both_kept", ""), "10");
    assert_eq!(get("by_pair", "n_items", "ana + ben"), "10");
    close(num("by_pair", "cohen_kappa", "ana + ben"), (0.8 - 0.52) / 0.48, 1e-12);
    // Every annotation here was made in the default mode; the breakdown carries its interval.
    assert_eq!(get("by_suggestion_mode", "n_items", "prefilled"), "10");
    close(
        num("by_suggestion_mode", "kappa_ci95_low", "prefilled"),
        report.decision.kappa.kappa_ci95.unwrap()[0],
        1e-12,
    );
    let sources: u64 =
        report.by_source.iter().map(|b| get("by_source", "n_items", &b.key).parse::<u64>().unwrap()).sum();
    assert_eq!(sources, 10);
    assert!(rows.keys().any(|k| k.0 == "by_suggested_axis"));
    // Every interval as `_se`, `_ci95_low`, `_ci95_high`, `_method` lines, equal to
    // the report's, and the paradox indices.
    let s = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    let ends =
        |i: &Option<agreement::stats::Interval>| (s(i.as_ref().map(|i| i.ci95[0])), s(i.as_ref().map(|i| i.ci95[1])));
    for (section, statistic, interval) in [
        ("decision", "kappa_preferred", &report.decision.kappa_interval),
        ("decision", "gwet_ac1", &report.decision.kappa.gwet_ac1_interval),
        ("decision", "pabak", &report.decision.kappa.pabak_interval),
        ("decision", "krippendorff_alpha", &report.krippendorff_alpha_interval),
        ("decision", "fleiss_kappa", &report.fleiss_kappa_interval),
        ("axis_when_both_accept", "krippendorff_alpha", &report.axis_krippendorff_alpha_interval),
        ("severity", "quadratic_weighted_kappa", &report.severity_weighted_kappa_interval),
        ("severity", "krippendorff_alpha_ordinal", &report.severity_krippendorff_alpha_interval),
        ("span", "exact_match_rate", &report.span.exact_match_interval),
        ("span", "mean_token_f1", &report.span.mean_token_f1_interval),
        // The intervals to read, beside the plain ones.
        ("decision", "gwet_ac1_read", &report.decision.kappa.gwet_ac1_read_interval),
        ("decision", "krippendorff_alpha_read", &report.krippendorff_alpha_read_interval),
        ("decision", "fleiss_kappa_read", &report.fleiss_kappa_read_interval),
        ("axis_when_both_accept", "krippendorff_alpha_read", &report.axis_krippendorff_alpha_read_interval),
        ("severity", "quadratic_weighted_kappa_read", &report.severity_weighted_kappa_read_interval),
        ("severity", "krippendorff_alpha_ordinal_read", &report.severity_krippendorff_alpha_read_interval),
    ] {
        assert!(interval.is_some(), "{section}/{statistic}: defined on these ten rows");
        let (lo, hi) = ends(interval);
        assert_eq!(get(section, &format!("{statistic}_ci95_low"), ""), lo, "{section}/{statistic}");
        assert_eq!(get(section, &format!("{statistic}_ci95_high"), ""), hi, "{section}/{statistic}");
    }
    assert_eq!(get("decision", "krippendorff_alpha_method", ""), "gwet");
    assert_eq!(get("decision", "kappa_preferred_method", ""), "fisher_z");
    assert_eq!(get("span", "mean_token_f1_method", ""), "bootstrap_percentile");
    assert_eq!(get("accept_vs_not", "prevalence_index", ""), s(report.accept_vs_not.kappa.prevalence_index));
    assert_eq!(get("decision", "prevalence_index", ""), "", "three labels: no prevalence index");
    // Ten rows: the report says the plain interval under-covers, in the CSV too.
    assert!(get("decision", "advice", "").contains("covers less often than 95%"), "{text}");
    // Broke: the advice sent the reader to docs/agreement-intervals.md, which an installed app lacks.
    assert!(!text.contains("docs/") && !text.contains(".md"), "no pointer to a documentation file: {text}");
    assert_eq!(get("by_pair", "plain_interval_under_covers", "ana + ben"), "1");
    // Nothing is undefined here, so there is no note and no empty kappa.
    assert!(!rows.keys().any(|k| k.1 == "note"), "{text}");
    assert!(!text.contains("NaN"));
}

#[test]
fn an_undefined_report_exports_empty_values_and_says_why() {
    use agreement::export;
    let (_dir, _, project) = annotated_project(&["ana", "ben"]);
    let report = agreement::project_report(&project, Some((200, 3))).unwrap();
    let text = export::to_csv(&report).unwrap();
    let rows = parse_export(&text);
    let get =
        |section: &str, statistic: &str| rows[&(section.to_string(), statistic.to_string(), String::new())].clone();
    assert_eq!(get("decision", "n_items"), "0");
    assert_eq!(get("decision", "cohen_kappa"), "");
    assert_eq!(get("span", "mean_token_f1"), "");
    assert!(get("decision", "note").contains("no item was labelled by both annotators"), "{text}");
    assert!(!text.to_lowercase().contains("nan") && !text.contains("null"), "{text}");
}

#[test]
fn agreement_report_files_are_written_whole_in_either_format() {
    use agreement::export::{self, ExportFormat};
    let (dir, project) = ten_row_project();
    let report = agreement::project_report(&project, None).unwrap();
    let out = dir.path().join("reports");
    std::fs::create_dir(&out).unwrap();

    let csv_path = export::write_report(&report, &out.join("agreement.csv"), "CSV".parse().unwrap()).unwrap();
    assert_eq!(csv_path, out.join("agreement.csv"));
    assert_eq!(std::fs::read_to_string(&csv_path).unwrap(), export::to_csv(&report).unwrap());
    let json_path = export::write_report(&report, &out.join("agreement.json"), ExportFormat::Json).unwrap();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(v, serde_json::to_value(&report).unwrap());
    assert_eq!(v["confusion"][0][1], 1);
    // Writing again replaces the file; no temporary file is left behind.
    std::fs::write(&csv_path, "old").unwrap();
    export::write_report(&report, &csv_path, ExportFormat::Csv).unwrap();
    assert!(std::fs::read_to_string(&csv_path).unwrap().starts_with("section,statistic,key,value\n"));
    let mut names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["agreement.csv", "agreement.json"]);

    let err = export::write_report(&report, &out, ExportFormat::Csv).unwrap_err();
    assert!(err.to_string().contains("is a folder"), "{err}");
    let missing = dir.path().join("no-such-folder/agreement.csv");
    let err = export::write_report(&report, &missing, ExportFormat::Csv).unwrap_err();
    assert!(err.to_string().contains("no-such-folder/agreement.csv: the folder"), "{err}");
    assert!(err.to_string().ends_with("no-such-folder does not exist; create it or choose another"), "{err}");
    let err = export::write_report(&report, &csv_path.join("x.csv"), ExportFormat::Csv).unwrap_err();
    assert!(err.to_string().ends_with("agreement.csv is not a folder"), "{err}");
    let err = "xlsx".parse::<ExportFormat>().unwrap_err();
    assert_eq!(err.to_string(), "export format `xlsx` is not csv or json");
}

/// What a split records at lock time (two narrow scans) is the decision agreement of the full
/// report (the per-row join), on the demo project's simulated annotators.
#[test]
fn the_decision_agreement_at_lock_is_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = forcebench::Project::create(&dir.path().join("d.forcebench"), "demo").unwrap();
    forcebench::sample::load_demo_project(&mut project).unwrap();
    let full = forcebench::agreement::project_report(&project, None).unwrap();
    let at_lock = forcebench::agreement::decision_agreement_in(project.conn()).unwrap();
    assert_eq!(at_lock.decision.kappa.n_items, 80);
    assert_eq!(at_lock.decision, full.decision);
    assert_eq!(at_lock.krippendorff_alpha, full.krippendorff_alpha);
}

/// One annotator's own accept (every field chosen) or reject of a row.
fn label(project: &mut forcebench::Project, id: &str, who: &str, accept: bool) {
    use forcebench::annotate::{set_field, Field};
    let fields: &[(Field, &str)] = if accept {
        &[
            (Field::EvidenceSpan, "may reduce pain"),
            (Field::Axis, "modality"),
            (Field::Severity, "2"),
            (Field::Repair, "The drug may reduce pain in adults."),
            (Field::Decision, "accept_force_gap"),
        ]
    } else {
        &[(Field::Decision, "reject_not_force_gap"), (Field::BoundaryType, "ambiguous")]
    };
    let mut last = None;
    for (field, value) in fields {
        last = Some(set_field(project, id, who, *field, Some(value)).unwrap());
    }
    assert!(last.unwrap().finished);
}

#[test]
fn agreement_is_broken_down_by_the_suggestion_mode_the_rows_were_annotated_in() {
    // Old code: no `by_suggestion_mode`; kappa mixed pre-filled and unaided annotations.
    use forcebench::settings::{set_suggestion_mode, SuggestionMode};
    let (dir, _, mut project) = temp_project();
    let ids: Vec<String> = (0..8).map(|i| format!("r{i}")).collect();
    let file = write(dir.path(), "c.csv", csv_file(&ids.iter().map(|id| csv_row(id)).collect::<Vec<_>>()));
    forcebench::import::import_file(&mut project, &file, &mut |_: u64, _: u64| {}).unwrap();
    for who in ["ana", "ben"] {
        forcebench::roster::add(&project, who, forcebench::roster::Role::Annotator).unwrap();
    }
    forcebench::assign::assign(&mut project, 1).unwrap();
    // Pre-filled, (ana, ben): (acc, acc) (acc, acc) (rej, rej) (acc, rej): p_o = 3/4,
    // p_e = 3/4 * 2/4 + 1/4 * 2/4 = 1/2, kappa = (3/4 - 1/2) / (1 - 1/2) = 0.5.
    // Hidden: (acc, acc) (rej, rej) (acc, rej) (rej, acc): p_o = 1/2, p_e = 1/2, kappa = 0.
    let plan = [
        (true, true),
        (true, true),
        (false, false),
        (true, false),
        (true, true),
        (false, false),
        (true, false),
        (false, true),
    ];
    for (i, (a, b)) in plan.iter().enumerate() {
        if i == 4 {
            set_suggestion_mode(&mut project, SuggestionMode::Hidden).unwrap();
        }
        label(&mut project, &ids[i], "ana", *a);
        label(&mut project, &ids[i], "ben", *b);
    }
    let report = agreement::project_report(&project, None).unwrap();
    let modes: Vec<(&str, u64)> = report.by_suggestion_mode.iter().map(|b| (b.key.as_str(), b.n_items)).collect();
    assert_eq!(modes, [("hidden", 4), ("prefilled", 4)]);
    let (hidden, prefilled) = (&report.by_suggestion_mode[0], &report.by_suggestion_mode[1]);
    close(prefilled.cohen_kappa.unwrap(), 0.5, 1e-12);
    close(prefilled.percent_agreement.unwrap(), 0.75, 1e-12);
    close(hidden.cohen_kappa.unwrap(), 0.0, 1e-12);
    for b in [hidden, prefilled] {
        let [lo, hi] = b.kappa_ci95.unwrap();
        assert!(lo <= b.cohen_kappa.unwrap() && b.cohen_kappa.unwrap() <= hi && lo >= -1.0 && hi <= 1.0, "{b:?}");
    }
}

/// Each row's breakdown keys restated as the per-row statement the bulk read replaced (each
/// annotation's first and last event and the pair's latest time, looked up row by row): the
/// oracle for [`agreement::double_annotated`]'s single scan of the events.
const ORACLE_KEYS: &str = "SELECT c.id,
    (SELECT coalesce(e.suggestion_mode, 'prefilled') FROM annotation_events e
      WHERE e.candidate_id = c.id AND e.annotator_id = s1.annotator_id ORDER BY e.id LIMIT 1),
    (SELECT coalesce(e.suggestion_mode, 'prefilled') FROM annotation_events e
      WHERE e.candidate_id = c.id AND e.annotator_id = s2.annotator_id ORDER BY e.id LIMIT 1),
    (SELECT coalesce(e.guideline_version, '1') FROM annotation_events e
      WHERE e.candidate_id = c.id AND e.annotator_id = s1.annotator_id ORDER BY e.id DESC LIMIT 1),
    (SELECT coalesce(e.guideline_version, '1') FROM annotation_events e
      WHERE e.candidate_id = c.id AND e.annotator_id = s2.annotator_id ORDER BY e.id DESC LIMIT 1),
    (SELECT strftime('%G-W%V', max(e.at)) FROM annotation_events e
      WHERE e.candidate_id = c.id AND e.annotator_id IN (s1.annotator_id, s2.annotator_id))
 FROM candidates c
 JOIN assignments s1 ON s1.candidate_id = c.id AND s1.slot = 1
 JOIN assignments s2 ON s2.candidate_id = c.id AND s2.slot = 2
 JOIN annotations n1 ON n1.candidate_id = c.id AND n1.annotator_id = s1.annotator_id AND n1.finished = 1
 JOIN annotations n2 ON n2.candidate_id = c.id AND n2.annotator_id = s2.annotator_id AND n2.finished = 1
 ORDER BY c.seq";

#[test]
fn the_bulk_reads_give_every_row_what_the_per_row_statements_gave() {
    use forcebench::annotate::{self, Field};
    use forcebench::settings::{set_suggestion_mode, SuggestionMode};
    use forcebench::{assign, guideline, packets, roster, workspace};
    use std::collections::{BTreeMap, BTreeSet};
    let (dir, _, mut project) = temp_project();
    let ids: Vec<String> = (0..24).map(|i| format!("r{i:02}")).collect();
    // Rows 22 and 23 come with no suggested span.
    let rows: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| if i >= 22 { csv_row(id).replace(",may reduce pain,", ",,") } else { csv_row(id) })
        .collect();
    let file = write(dir.path(), "c.csv", csv_file(&rows));
    forcebench::import::import_file(&mut project, &file, &mut |_: u64, _: u64| {}).unwrap();
    for who in ["ana", "ben", "cy"] {
        roster::add(&project, who, roster::Role::Annotator).unwrap();
    }
    assign::assign(&mut project, 1).unwrap();
    let pair = |p: &forcebench::Project, id: &str| -> Vec<String> {
        let mut s = p
            .conn()
            .prepare("SELECT a.name FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.candidate_id = ?1 ORDER BY s.slot")
            .unwrap();
        s.query_map([id], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    // Events no version of this program writes: a first event from before modes and versions
    // existed, and times in forms other than its own (an offset that moves the date into
    // another ISO week, a space, no time at all, a date SQLite rolls over).
    let raw = |p: &forcebench::Project, id: &str, who: &str, at: &str, mode: Option<&str>, version: Option<&str>| {
        p.conn()
            .execute(
                "INSERT INTO annotation_events (candidate_id, annotator_id, field, new_value, at, origin, uid,
                     suggestion_mode, guideline_version)
                 SELECT ?1, id, 'notes', 'raw', ?3, 'app', lower(hex(randomblob(16))), ?4, ?5 FROM annotators WHERE name = ?2",
                rusqlite::params![id, who, at, mode, version],
            )
            .unwrap();
    };
    let first = pair(&project, &ids[0]);
    raw(&project, &ids[0], &first[0], "2019-05-01T10:00:00Z", None, None);

    // Rows 0-5 pre-filled under version 1, half of them in ana's packet (merged later).
    let list = packets::issue(&mut project, &dir.path().join("packets"), packets::Blinding::Standard).unwrap();
    let ana_packet = list.iter().find(|p| p.annotator == "ana").unwrap().file.clone();
    let mut ws = workspace::open_packet(std::path::Path::new(&ana_packet), &dir.path().join("ws.forcebench")).unwrap();
    for (i, id) in ids.iter().enumerate().take(6) {
        for who in pair(&project, id) {
            if who == "ana" && i % 2 == 0 {
                label(&mut ws, id, &who, i % 3 != 0);
            } else {
                label(&mut project, id, &who, i % 3 != 0);
            }
        }
    }
    // Version 3; ana keeps working offline and returns her packet after it.
    let text = write(dir.path(), "g2.md", "# Guideline\n\nClarified.\n");
    guideline::publish(&mut project, &text, "3", Some("clarified"), "lead").unwrap();
    for (i, id) in ids.iter().enumerate().take(12).skip(6) {
        for who in pair(&project, id) {
            if i == 7 && who == "ana" {
                label(&mut ws, id, &who, true);
            } else {
                label(&mut project, id, &who, i % 4 != 0);
            }
        }
    }
    let returned = dir.path().join("ana-returned.json");
    workspace::return_packet(&ws, &returned).unwrap();
    packets::merge(&mut project, &[returned]).unwrap();
    // Beside, then hidden; one label of each of a few rows changed and undone (the last event
    // is the undo, under the version now in force), one relabelled after a new version.
    set_suggestion_mode(&mut project, SuggestionMode::Beside).unwrap();
    for id in &ids[12..16] {
        for who in pair(&project, id) {
            label(&mut project, id, &who, true);
        }
    }
    set_suggestion_mode(&mut project, SuggestionMode::Hidden).unwrap();
    for id in &ids[16..20] {
        let who = pair(&project, id);
        label(&mut project, id, &who[0], true);
        if id == &ids[17] {
            set_suggestion_mode(&mut project, SuggestionMode::Prefilled).unwrap();
        }
        label(&mut project, id, &who[1], false);
    }
    let text = write(dir.path(), "g3.md", "# Guideline\n\nClarified again.\n");
    guideline::publish(&mut project, &text, "4", None, "lead").unwrap();
    for id in [&ids[1], &ids[13]] {
        let who = pair(&project, id)[1].clone();
        annotate::set_field(&mut project, id, &who, Field::Notes, Some("second look")).unwrap();
        annotate::undo(&mut project, id, &who).unwrap();
    }
    // Row 20: its second annotator labels it, then the slot moves to the third annotator, who
    // labels it too: the first one's events are no longer the row's.
    let who = pair(&project, &ids[20]);
    label(&mut project, &ids[20], &who[0], true);
    label(&mut project, &ids[20], &who[1], true);
    let third = ["ana", "ben", "cy"].into_iter().find(|n| !who.contains(&n.to_string())).unwrap();
    raw(&project, &ids[20], &who[1], "2099-12-31T23:00:00Z", Some("hidden"), Some("9"));
    assign::reassign(&mut project, &ids[20], &who[1], third, "lead", "left the project").unwrap();
    label(&mut project, &ids[20], third, false);
    // Odd times, each the latest of its row; a last event with no version.
    for (id, at) in [
        (&ids[2], "2027-01-04T00:30:00+02:00"),
        (&ids[3], "2029-06-15 12:00:00"),
        (&ids[4], "not a time"),
        (&ids[5], "2028-02-30T10:00:00.000Z"),
        (&ids[6], "2027-01-04T12:00:00Z"), // the offset's local date, in another week
    ] {
        raw(&project, id, &pair(&project, id)[0], at, Some("beside"), None);
    }
    // Spans and claims: one annotator marks another span than the suggested one (rows 8, 9),
    // both mark the same other span (10), two different ones (11); claims edited by one (12) and
    // both (13); no suggested span, the same span (22) and two (23). Row 21 stays single.
    let who = pair(&project, &ids[21]);
    label(&mut project, &ids[21], &who[0], true);
    let set = |p: &mut forcebench::Project, i: usize, slot: usize, field: Field, value: &str| {
        let who = pair(p, &ids[i])[slot].clone();
        annotate::set_field(p, &ids[i], &who, field, Some(value)).unwrap();
    };
    set(&mut project, 8, 0, Field::EvidenceSpan, "reduce pain");
    set(&mut project, 9, 1, Field::EvidenceSpan, "the drug may reduce pain");
    set(&mut project, 10, 0, Field::EvidenceSpan, "the drug may reduce");
    set(&mut project, 10, 1, Field::EvidenceSpan, "the drug may reduce");
    set(&mut project, 11, 0, Field::EvidenceSpan, "the drug may reduce");
    set(&mut project, 11, 1, Field::EvidenceSpan, "reduce pain, the authors said");
    set(&mut project, 12, 1, Field::CalibratedClaim, "The drug may reduce pain in some adults.");
    set(&mut project, 13, 0, Field::RaisedClaim, "The drug always reduces pain.");
    set(&mut project, 13, 1, Field::RaisedClaim, "The drug cures pain.");
    set(&mut project, 12, 0, Field::RaisedClaim, "The drug reduces all pain.");
    set(&mut project, 13, 0, Field::CalibratedClaim, "The drug may ease pain in adults.");
    set(&mut project, 13, 1, Field::CalibratedClaim, "The drug may reduce pain, in adults.");
    for i in [22, 23] {
        for who in pair(&project, &ids[i]) {
            label(&mut project, &ids[i], &who, true);
        }
    }
    set(&mut project, 23, 1, Field::EvidenceSpan, "reduce pain");

    let data = agreement::double_annotated(&project).unwrap();
    let got: Vec<(String, String, String, String)> = (0..data.len())
        .map(|i| {
            let (mode, version, week) = data.keys(i);
            (data.rows[i].id.clone(), mode.to_string(), version.to_string(), week.to_string())
        })
        .collect();
    let mut stmt = project.conn().prepare(ORACLE_KEYS).unwrap();
    let want: Vec<(String, String, String, String)> = stmt
        .query_map([], |r| {
            let either = |a: String, b: String| if a == b { a } else { "mixed".to_string() };
            Ok((
                r.get(0)?,
                either(r.get(1)?, r.get(2)?),
                either(r.get(3)?, r.get(4)?),
                r.get::<_, Option<String>>(5)?.unwrap_or_default(),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(got, want);
    // The project holds what the test is about: every kind of key, and the odd times.
    assert_eq!(want.len(), 23, "rows 0-20, 22 and 23 are double-annotated");
    let keys = |k: fn(&(String, String, String, String)) -> &String| -> BTreeSet<String> {
        want.iter().map(|w| k(w).clone()).collect()
    };
    assert_eq!(keys(|w| &w.1), ["beside", "hidden", "mixed", "prefilled"].map(String::from).into());
    assert_eq!(keys(|w| &w.2), ["2", "3", "4", "mixed"].map(String::from).into());
    let weeks = keys(|w| &w.3);
    let week_of =
        |at: &str| -> String { project.conn().query_row("SELECT strftime('%G-W%V', ?1)", [at], |r| r.get(0)).unwrap() };
    let offset = week_of("2027-01-04T00:30:00+02:00");
    assert_ne!(offset, week_of("2027-01-04T00:30:00Z"), "the offset moves the time into another week");
    let weeks_of = [String::new(), offset, week_of("2027-01-04T12:00:00Z"), week_of("2029-06-15 12:00:00")];
    for week in weeks_of.into_iter().chain([week_of("2028-02-30T10:00:00.000Z")]) {
        assert!(weeks.contains(&week), "{week} in {weeks:?}");
    }
    assert_ne!(want[20].3, week_of("2099-12-31T23:00:00Z"), "a reassigned annotator's events are not the row's");

    // Every other statistic of the rows read, against the per-row statement that compared the
    // two annotations with the suggestion and with each other in SQLite.
    let report = agreement::report_for(&data, None);
    let mut stmt = project
        .conn()
        .prepare(
            "SELECT a1.id > a2.id, a1.name, a2.name, n1.decision, n2.decision, n1.axis, n2.axis,
                    n1.severity IS NOT NULL AND n2.severity IS NOT NULL,
                    n1.calibrated_claim IS c.calibrated_claim, n1.raised_claim IS c.raised_claim,
                    n2.calibrated_claim IS c.calibrated_claim, n2.raised_claim IS c.raised_claim,
                    n1.evidence_span, n2.evidence_span
             FROM candidates c
             JOIN assignments s1 ON s1.candidate_id = c.id AND s1.slot = 1
             JOIN assignments s2 ON s2.candidate_id = c.id AND s2.slot = 2
             JOIN annotations n1 ON n1.candidate_id = c.id AND n1.annotator_id = s1.annotator_id AND n1.finished = 1
             JOIN annotations n2 ON n2.candidate_id = c.id AND n2.annotator_id = s2.annotator_id AND n2.finished = 1
             JOIN annotators a1 ON a1.id = s1.annotator_id
             JOIN annotators a2 ON a2.id = s2.annotator_id
             ORDER BY c.seq",
        )
        .unwrap();
    type Row = (bool, [String; 2], [String; 2], [Option<String>; 2], bool, [[bool; 2]; 2], [Option<String>; 2]);
    let rows: Vec<Row> = stmt
        .query_map([], |r| {
            let swap: bool = r.get(0)?;
            let pair = |i: usize| -> rusqlite::Result<[Option<String>; 2]> {
                let (x, y): (Option<String>, Option<String>) = (r.get(i)?, r.get(i + 1)?);
                Ok(if swap { [y, x] } else { [x, y] })
            };
            let both = |p: [Option<String>; 2]| p.map(Option::unwrap);
            let (k1, k2) = ([r.get(8)?, r.get(9)?], [r.get(10)?, r.get(11)?]);
            Ok((
                swap,
                both(pair(1)?),
                both(pair(3)?),
                pair(5)?,
                r.get(7)?,
                if swap { [k2, k1] } else { [k1, k2] },
                pair(12)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let decisions = ["accept_force_gap", "reject_not_force_gap", "needs_discussion"];
    let mut confusion = vec![vec![0u64; 3]; 3];
    let (mut spans, mut exact, mut f1) = (0u64, 0u64, 0.0f64);
    let mut edits = [[0u64; 3]; 2];
    for (_, _, d, _, _, kept, span) in &rows {
        let at = |x: &String| decisions.iter().position(|d| d == x).unwrap();
        confusion[at(&d[0])][at(&d[1])] += 1;
        if let [Some(a), Some(b)] = span {
            spans += 1;
            if a == b {
                exact += 1;
                f1 += 1.0;
            } else {
                f1 += stats::token_f1(a, b);
            }
        }
        for (claim, e) in edits.iter_mut().enumerate() {
            e[usize::from(!kept[0][claim]) + usize::from(!kept[1][claim])] += 1;
        }
    }
    assert_eq!(report.decision.confusion, confusion);
    assert_eq!(report.span.n_items, spans);
    assert_eq!(report.span.exact_match_rate, Some(exact as f64 / spans as f64));
    assert_eq!(report.span.mean_token_f1, Some(f1 / spans as f64));
    let e = |c: &agreement::ClaimEdits| [c.both_kept, c.one_changed, c.both_changed];
    assert_eq!([e(&report.calibrated_claim_edits), e(&report.raised_claim_edits)], edits);
    let accepted = |r: &&Row| r.2 == ["accept_force_gap", "accept_force_gap"];
    let axes: Vec<[String; 2]> =
        rows.iter().filter(accepted).filter_map(|r| Some([r.3[0].clone()?, r.3[1].clone()?])).collect();
    let axis_names = &report.axis_when_both_accept.labels;
    let mut axis_confusion = vec![vec![0u64; axis_names.len()]; axis_names.len()];
    for [a, b] in &axes {
        let at = |x: &String| axis_names.iter().position(|n| n == x).unwrap();
        axis_confusion[at(a)][at(b)] += 1;
    }
    assert_eq!(report.axis_when_both_accept.confusion, axis_confusion);
    assert_eq!(report.severity_n_items, rows.iter().filter(accepted).filter(|r| r.4).count() as u64);
    let mut pairs: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rows {
        let mut names = r.1.clone();
        names.sort();
        *pairs.entry(format!("{} + {}", names[0], names[1])).or_default() += 1;
    }
    let got: BTreeMap<String, u64> = report.by_pair.iter().map(|b| (b.key.clone(), b.n_items)).collect();
    assert_eq!(got, pairs);
    // Cells open the rows in them, A and B in roster order.
    for (i, r) in rows.iter().enumerate() {
        let at = |x: &String| decisions.iter().position(|d| d == x).unwrap();
        let cell =
            agreement::cell_rows(&project, agreement::ConfusionTable::Decision, at(&r.2[0]), at(&r.2[1])).unwrap();
        let row = cell.iter().find(|c| c.id == data.rows[i].id).unwrap();
        assert_eq!([row.annotator_a.clone(), row.annotator_b.clone()], r.1);
    }
    // The project holds what this part is about.
    assert!(rows.iter().any(|r| r.0) && rows.iter().any(|r| !r.0), "rows in both orders");
    assert!(edits.iter().all(|e| e[0] > 0 && e[1] > 0 && e[2] > 0), "{edits:?}");
    assert!(spans > exact && exact > 0 && spans < rows.len() as u64, "{spans} {exact}");
}
