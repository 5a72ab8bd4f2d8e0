//! `evaluate agreement-paired`: two evaluators' agreement with the adjudicated labels compared on
//! the same claims. Values are worked out here from the scores; the intervals are checked against
//! a jackknife written out here and against what ignoring the pairing would give.

use crate::common::*;
use forcebench::evaluate::agreement_paired::{compare_rows, RowCells};
use serde_json::Value;

/// Kappa and AC1 of a 2x2 table [both supported, human only, judge only, neither], written out.
fn by_hand(t: [f64; 4]) -> (f64, f64) {
    let n: f64 = t.iter().sum();
    let po = (t[0] + t[3]) / n;
    let human = (t[0] + t[1]) / n;
    let judge = (t[0] + t[2]) / n;
    let pe = human * judge + (1.0 - human) * (1.0 - judge);
    let m = (human + judge) / 2.0;
    let pe_g = 2.0 * m * (1.0 - m);
    ((po - pe) / (1.0 - pe), (po - pe_g) / (1.0 - pe_g))
}

#[test]
fn two_evaluators_agreement_with_the_labels_and_its_difference_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _p, pairs) = crate::judge::locked(dir.path());
    // A: right everywhere but two raised claims it supports (score 0.9).
    // B: supports the raised claim of pair 0 too, calls three calibrated claims unsupported
    // (score exactly 0.5 reads as not supported, as in `judge trust`), and has no verdict on the
    // raised claim of pair 9 (left out for both).
    let mut a = String::new();
    let mut b = String::new();
    for (i, p) in pairs.iter().enumerate() {
        let raised_a = if i < 2 { 0.9 } else { 0.1 };
        a.push_str(&format!("{{\"id\":\"{}\",\"claim\":\"safe\",\"score\":0.8}}\n", p.id));
        a.push_str(&format!("{{\"id\":\"{}\",\"claim\":\"raised\",\"score\":{raised_a}}}\n", p.id));
        let safe_b = if (2..5).contains(&i) { 0.5 } else { 1.0 };
        b.push_str(&format!("{{\"id\":\"{}\",\"claim\":\"safe\",\"score\":{safe_b}}}\n", p.id));
        if i != 9 {
            let raised_b = if i == 0 { 0.7 } else { 0.0 };
            b.push_str(&format!("{{\"id\":\"{}\",\"claim\":\"raised\",\"score\":{raised_b}}}\n", p.id));
        }
    }
    let run = |args: &[&str]| {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").arg("--project").arg(&path).args(args);
        cmd
    };
    let fa = write(dir.path(), "a.jsonl", a);
    let fb = write(dir.path(), "b.jsonl", b);
    run(&["evaluate", "--scores", fa.to_str().unwrap(), "--name", "judge-a"]).assert().success();
    run(&["evaluate", "--scores", fb.to_str().unwrap(), "--name", "judge-b"]).assert().success();
    let out = run(&["evaluate", "agreement-paired", "judge-a", "judge-b", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let r: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!((r["claims"].as_u64(), r["left_out"].as_u64(), r["rows"].as_u64()), (Some(19), Some(1), Some(10)));
    // On the 19 shared claims (10 calibrated, 9 raised: pair 9's raised one is left out):
    // A supports all 10 calibrated and 2 raised: [10, 0, 2, 7].
    // B supports 7 calibrated and 1 raised: [7, 3, 1, 8].
    let (ka, aa) = by_hand([10.0, 0.0, 2.0, 7.0]);
    let (kb, ab) = by_hand([7.0, 3.0, 1.0, 8.0]);
    let close = |v: &Value, want: f64| assert!((v.as_f64().unwrap() - want).abs() < 1e-12, "{v} against {want}");
    close(&r["kappa"]["a"], ka);
    close(&r["kappa"]["b"], kb);
    close(&r["kappa"]["difference"], ka - kb);
    close(&r["gwet_ac1"]["a"], aa);
    close(&r["gwet_ac1"]["difference"], aa - ab);
    for coefficient in ["kappa", "gwet_ac1"] {
        let d = r[coefficient]["difference"].as_f64().unwrap();
        for interval in ["bootstrap_ci95", "jackknife_ci95"] {
            let ci = &r[coefficient][interval];
            let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
            assert!(lo < d && d < hi, "{coefficient} {interval} {ci} does not hold {d}");
        }
    }
    // Text output says the same, and names what was left out.
    let out =
        run(&["evaluate", "agreement-paired", "judge-a", "judge-b"]).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("19 claims on 10 rows") && text.contains("1 left out"), "{text}");
    // The same evaluator twice, and an unknown one, are refused in words.
    run(&["evaluate", "agreement-paired", "judge-a", "judge-a"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("compares two different evaluators"));
    run(&["evaluate", "agreement-paired", "judge-a", "nobody"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("no evaluator named `nobody`"));
}

/// Rows of two evaluators that share most of their mistakes (xorshift, the test's own).
fn correlated_rows(n: usize, seed: u64) -> Vec<RowCells> {
    let mut s = seed;
    let mut u = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
            for human in [0usize, 2] {
                // A errs with chance 0.2; B errs whenever A does and 5% more often.
                let a_err = u() < 0.2;
                let b_err = a_err || u() < 0.05;
                a[human + usize::from(a_err ^ (human == 2))] += 1.0;
                b[human + usize::from(b_err ^ (human == 2))] += 1.0;
            }
            (a, b)
        })
        .collect()
}

fn kappa_of(rows: &[RowCells], skip: Option<usize>, pick: fn(&RowCells) -> [f64; 4]) -> f64 {
    let mut t = [0.0; 4];
    for (i, r) in rows.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        let c = pick(r);
        for k in 0..4 {
            t[k] += c[k];
        }
    }
    by_hand(t).0
}

#[test]
fn the_paired_intervals_match_a_jackknife_written_here_and_are_narrower_than_ignoring_the_pairing() {
    let rows = correlated_rows(300, 0xDEC0DE);
    let (kappa, _) = compare_rows(&rows, Some((2000, 7)));
    // Jackknife of the difference and of each evaluator alone, written out.
    let n = rows.len() as f64;
    let jack = |f: &dyn Fn(Option<usize>) -> f64| -> f64 {
        let v: Vec<f64> = (0..rows.len()).map(|i| f(Some(i))).collect();
        let mean = v.iter().sum::<f64>() / n;
        ((n - 1.0) / n * v.iter().map(|x| (x - mean).powi(2)).sum::<f64>()).sqrt()
    };
    let se_diff = jack(&|s| kappa_of(&rows, s, |r| r.0) - kappa_of(&rows, s, |r| r.1));
    let se_a = jack(&|s| kappa_of(&rows, s, |r| r.0));
    let se_b = jack(&|s| kappa_of(&rows, s, |r| r.1));
    let got = kappa.jackknife_se.unwrap();
    assert!((got - se_diff).abs() < 1e-12, "jackknife SE {got} against {se_diff} written out");
    // The bootstrap, a second method, agrees with the jackknife's width within a fifth.
    let [lo, hi] = kappa.bootstrap_ci95.unwrap();
    let boot_half = (hi - lo) / 2.0;
    let ratio = boot_half / (1.959_963_984_540_054 * se_diff);
    assert!((0.8..1.25).contains(&ratio), "bootstrap half-width {boot_half} against jackknife {}", 1.96 * se_diff);
    // Ignoring that both judged the same rows (variances added) would be far wider here.
    let unpaired = 1.959_963_984_540_054 * (se_a * se_a + se_b * se_b).sqrt();
    assert!(boot_half < 0.7 * unpaired, "paired {boot_half} against unpaired {unpaired}");
    let d = kappa.difference.unwrap();
    assert!(lo < d && d < hi);
}
