//! The intervals to read for every coefficient, `agreement --from-csv --ordinal`, and the
//! planner's limits and coefficients. Reference values come from other code (statsmodels and
//! irrCAC through tests/fixtures/agreement/reference.json), from arithmetic written out here, or
//! from simulation; never from the function under test.

use assert_cmd::Command;
use forcebench::agreement;
use forcebench::agreement::coverage::{self, ManyRaters, Method, Population};
use forcebench::agreement::plan::{self, PlanCheck, PlanCoefficient};
use forcebench::agreement::stats::{self, Interval, IntervalMethod};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("../fixtures/agreement/reference.json")).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Fisher's z interval written out: atanh(v) +- t * se / (1 - v^2), mapped back with tanh.
fn fisher_z(v: f64, se: f64, t: f64) -> [f64; 2] {
    let h = t * se / (1.0 - v * v);
    [(v.atanh() - h).tanh(), (v.atanh() + h).tanh()]
}

/// The t quantile irrCAC used for a reference (value - lower end) / SE, when the lower end was not clipped.
fn irrcac_t(r: &Value) -> Option<f64> {
    let (v, se, lo) = (num(&r["value"]), num(&r["se"]), num(&r["ci95"][0]));
    (se > 1e-9 && lo > -1.0 + 1e-9).then(|| (v - lo) / se)
}

fn check(what: &str, case: usize, read: Option<&Interval>, r: &Value, t: Option<f64>, no_disagreement: bool) {
    let read = read.unwrap_or_else(|| panic!("{what} #{case}: no interval to read"));
    if no_disagreement {
        assert_eq!(read.method, IntervalMethod::NoDisagreementBound, "{what} #{case}");
        assert_eq!(read.ci95[1], 1.0);
        return;
    }
    let (v, se) = (num(&r["value"]), num(&r["se"]));
    let Some(t) = t else { return };
    if v.abs() >= 1.0 - 1e-9 || se <= 1e-9 {
        return;
    }
    assert_eq!(read.method, IntervalMethod::FisherZ, "{what} #{case}");
    let want = fisher_z(v, se, t);
    for k in 0..2 {
        assert!(
            (read.ci95[k] - want[k]).abs() < 1e-7,
            "{what} #{case}: {:?} against {want:?} (from the reference's value and SE)",
            read.ci95
        );
    }
}

#[test]
fn every_interval_to_read_is_fisher_z_on_the_reference_packages_value_and_se() {
    let (mut two, mut many) = (0, 0);
    for (i, c) in fixture().iter().enumerate() {
        if c["kind"] == "two_raters" {
            let t: Vec<Vec<u64>> = c["table"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect())
                .collect();
            let q = t.len();
            let no_disagreement = (0..q).all(|a| (0..q).all(|b| a == b || t[a][b] == 0));
            let k = stats::kappa_from_table(&t);
            // irrCAC's t(n - 1) for this table, read off its AC1 interval; statsmodels gives the SEs.
            let tq = irrcac_t(&c["ac1"]);
            check("AC1 (irrCAC)", i, k.gwet_ac1_read_interval.as_ref(), &c["ac1"], tq, no_disagreement);
            let (_, _, read) = stats::weighted_kappa_intervals(&t, &stats::quadratic_weights(q)).unwrap();
            check("quadratic kappa (statsmodels)", i, Some(&read), &c["quadratic"], tq, no_disagreement);
            two += 1;
        } else if c["kind"] == "many_raters" {
            let q = c["q"].as_u64().unwrap() as usize;
            let units: Vec<Vec<u32>> = c["units"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect())
                .collect();
            let no_disagreement = units.iter().all(|u| u.windows(2).all(|w| w[0] == w[1]));
            let m = stats::multi_rater(&units, q);
            check(
                "Fleiss (irrCAC)",
                i,
                m.fleiss_kappa_read_interval.as_ref(),
                &c["fleiss"],
                irrcac_t(&c["fleiss"]),
                no_disagreement,
            );
            check(
                "AC1 (irrCAC)",
                i,
                m.gwet_ac1_read_interval.as_ref(),
                &c["ac1"],
                irrcac_t(&c["ac1"]),
                no_disagreement,
            );
            check(
                "alpha (irrCAC)",
                i,
                m.krippendorff_alpha_read_interval.as_ref(),
                &c["alpha"],
                irrcac_t(&c["alpha"]),
                no_disagreement,
            );
            let ordinal = stats::krippendorff_ordinal_family(&units, q);
            let r = &c["alpha_ordinal"];
            check(
                "ordinal alpha (irrCAC)",
                i,
                ordinal.krippendorff_alpha_read.as_ref(),
                r,
                irrcac_t(r),
                no_disagreement,
            );
            many += 1;
        }
    }
    assert!(two >= 200 && many >= 200);
}

#[test]
fn with_no_disagreement_the_interval_to_read_is_the_bound_worked_by_hand() {
    // 25 rows both first label, 5 both second: AC1 = 1, Gwet's chance agreement
    // 2 * (25/30) * (5/30) = 0.27778; the 97.5% bound on the disagreement rate with none in 30 is
    // 1 - 0.025^(1/30) = 0.115703, so AC1's lower end is 1 - 0.115703 / 0.722222 = 0.839796.
    let k = stats::kappa_from_table(&[vec![25, 0], vec![0, 5]]);
    let read = k.gwet_ac1_read_interval.unwrap();
    assert_eq!(read.method, IntervalMethod::NoDisagreementBound);
    assert!((read.ci95[0] - 0.839796).abs() < 2e-6, "{:?}", read.ci95);
    assert_eq!(read.ci95[1], 1.0);
    // The plain interval is the single point 1, which is what under-covers.
    assert_eq!(k.gwet_ac1_interval.unwrap().ci95, [1.0, 1.0]);
}

fn covers(method: Method, pop: Population, n: usize) -> f64 {
    coverage::simulate(pop, n, &[method], 400, 0, 17, 1.0)[0].coverage
}

#[test]
fn the_intervals_to_read_cover_at_n_30_where_the_plain_ones_hold_about_half() {
    let pop = Population { categories: 2, kappa: 0.9, prevalence: 0.85 };
    for (plain, read) in [
        (Method::Ac1Gwet, Method::Ac1FisherZ),
        (Method::AlphaGwet, Method::AlphaFisherZ),
        (Method::QuadraticWald, Method::QuadraticFisherZ),
    ] {
        let p = covers(plain, pop, 30);
        let r = covers(read, pop, 30);
        assert!(p < 0.7, "{} covers {p}: the premise is gone", plain.as_str());
        assert!(r >= 0.93, "{} covers only {r} at n = 30, kappa 0.9, prevalence 0.85", read.as_str());
    }
    // Four raters, a fifth of the ratings missing.
    let many = ManyRaters { population: pop, raters: 4, missing: 0.2 };
    let cells = coverage::simulate_many(many, 30, &Method::MANY, 400, 23);
    for c in cells.iter().filter(|c| c.method.as_str().ends_with("fisher_z")) {
        assert!(c.coverage >= 0.93, "{} covers only {} with four raters at n = 30", c.method.as_str(), c.coverage);
    }
}

#[test]
fn the_intervals_to_read_narrowed_by_a_fifth_fail_the_coverage_check() {
    let pop = Population { categories: 3, kappa: 0.6, prevalence: 0.5 };
    for method in [Method::Ac1FisherZ, Method::AlphaFisherZ, Method::QuadraticFisherZ] {
        let ok = coverage::simulate(pop, 300, &[method], 400, 0, 7, 1.0)[0].coverage;
        assert!((0.92..=0.98).contains(&ok), "{} covers {ok} at n = 300", method.as_str());
        let narrow = coverage::simulate(pop, 300, &[method], 400, 0, 7, 0.8)[0].coverage;
        assert!(narrow < 0.92, "{} narrowed by 20% still covers {narrow}", method.as_str());
    }
}

/// The committed coverage table and JSON name exactly the methods the code simulates, and the
/// table's two headers list them in the code's order: a renamed or added method without a
/// regenerated table fails here.
#[test]
fn the_committed_coverage_table_names_the_codes_methods() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let table = std::fs::read_to_string(root.join("docs/coverage-table.md")).unwrap();
    let headers: Vec<Vec<String>> = table
        .lines()
        .filter(|l| l.starts_with("| labels") || l.starts_with("| raters"))
        .map(|l| l.split('|').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect())
        .collect();
    assert_eq!(headers.len(), 2, "two tables (two raters, many raters) in docs/coverage-table.md");
    let two: Vec<String> = Method::ALL.iter().map(|m| m.as_str().to_string()).collect();
    let many: Vec<String> = Method::MANY.iter().map(|m| m.as_str().to_string()).collect();
    assert_eq!(headers[0][4..].to_vec(), two, "the two-rater table's methods");
    assert_eq!(headers[1][5..].to_vec(), many, "the many-rater table's methods");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(root.join("docs/coverage.json")).unwrap()).unwrap();
    let mut in_json: Vec<String> =
        json.as_array().unwrap().iter().map(|c| c["method"].as_str().unwrap().to_string()).collect();
    in_json.sort();
    in_json.dedup();
    let mut in_code: Vec<String> = two.iter().chain(&many).cloned().collect();
    in_code.sort();
    in_code.dedup();
    assert_eq!(in_json, in_code, "docs/coverage.json's methods");
    // The page that explains the table quotes it from the same run.
    let page = std::fs::read_to_string(root.join("docs/agreement-intervals.md")).unwrap();
    for m in &in_code {
        assert!(page.contains(&format!("`{m}`")), "docs/agreement-intervals.md does not say what `{m}` is");
    }
}

fn forcebench(home: &std::path::Path) -> Command {
    let mut cmd = Command::cargo_bin("forcebench").unwrap();
    cmd.env_remove("FORCEBENCH_PROJECT").env("XDG_DATA_HOME", home.join("data")).env("HOME", home);
    cmd
}

#[test]
fn ordinal_labels_give_quadratic_kappa_and_ordinal_alpha_in_numeric_order() {
    let dir = tempfile::tempdir().unwrap();
    // Grades 1, 2 and 10: as text "10" sorts before "2"; as numbers it is the highest.
    let pairs: [(&str, &str); 12] = [
        ("1", "1"),
        ("1", "1"),
        ("1", "2"),
        ("2", "2"),
        ("2", "2"),
        ("2", "10"),
        ("10", "10"),
        ("10", "10"),
        ("10", "2"),
        ("1", "1"),
        ("2", "1"),
        ("10", "10"),
    ];
    let mut csv = String::from("item,annotator,label\n");
    for (i, (a, b)) in pairs.iter().enumerate() {
        csv.push_str(&format!("r{i},ann,{a}\nr{i},bob,{b}\n"));
    }
    let path = dir.path().join("grades.csv");
    std::fs::write(&path, &csv).unwrap();
    let out = forcebench(dir.path())
        .args(["agreement", "--from-csv", path.to_str().unwrap(), "--ordinal", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let o = &v["ordinal"];
    assert_eq!(o["order"], serde_json::json!(["1", "2", "10"]));
    // Quadratic-weighted kappa written out on ranks 0, 1, 2: weights 1 - (i - j)^2 / 4.
    let rank = |s: &str| match s {
        "1" => 0.0,
        "2" => 1.0,
        _ => 2.0,
    };
    let n = pairs.len() as f64;
    let w = |a: f64, b: f64| 1.0 - (a - b) * (a - b) / 4.0;
    let po: f64 = pairs.iter().map(|(a, b)| w(rank(a), rank(b))).sum::<f64>() / n;
    let mut pe = 0.0;
    for (a, _) in &pairs {
        for (_, b) in &pairs {
            pe += w(rank(a), rank(b));
        }
    }
    pe /= n * n;
    let want = (po - pe) / (1.0 - pe);
    let got = num(&o["quadratic_weighted_kappa"]);
    assert!((got - want).abs() < 1e-12, "quadratic kappa {got} against {want} by hand");
    assert_eq!(o["quadratic_weighted_kappa_read_interval"]["method"], "fisher_z");
    assert_eq!(o["krippendorff_alpha_ordinal_read_interval"]["method"], "fisher_z");
    assert!(o["krippendorff_alpha_ordinal"].is_number());
    // The nominal figures and their intervals to read are still there.
    assert!(v["krippendorff_alpha_read_interval"]["ci95"].is_array());
    assert!(v["gwet_ac1_read_interval"]["ci95"].is_array());

    // A label that is not a number is refused with its line.
    std::fs::write(&path, "item,annotator,label\nr1,ann,1\nr1,bob,high\n").unwrap();
    forcebench(dir.path())
        .args(["agreement", "--from-csv", path.to_str().unwrap(), "--ordinal"])
        .assert()
        .failure()
        .stderr(
            predicates::str::contains("grades.csv:3: field `label`")
                .and(predicates::str::contains("`high` is not a number")),
        );
    // --ordinal without a file says what it is for.
    forcebench(dir.path())
        .args(["agreement", "--ordinal"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--ordinal reads the labels of --from-csv FILE"));
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn the_planner_answers_a_tiny_half_width_quickly_and_refuses_an_impossible_one_in_words() {
    let start = std::time::Instant::now();
    let p = plan::plan(0.6, 0.001, 2, &[]).unwrap();
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    assert_eq!(p.check, PlanCheck::ScaledScatter);
    assert_eq!(p.simulated_share_reaching, None);
    // Bloch and Kraemer at p = 0.5: V = 0.4 (0.4 (1 - 1.2) + 0.6 * 1.4 / 0.5) = 0.64.
    let formula = (1.959_963_984_540_054f64.powi(2) * 0.64 / 1e-6).ceil() as u64;
    assert_eq!(p.rows_formula, formula);
    assert!(p.rows >= formula && (p.rows as f64) < formula as f64 * 1.01, "{} against {formula}", p.rows);
    let err = plan::plan(0.6, 1e-6, 2, &[]).unwrap_err().to_string();
    assert!(err.contains("past the planner's limit") && err.contains("wider half-width"), "{err}");
    // Just past the simulation's limit, the scaled answer still gives half the studies or more.
    let p = plan::plan_for(PlanCoefficient::Kappa, 0.6, 0.0155, 2, &[]).unwrap();
    assert_eq!(p.check, PlanCheck::ScaledScatter, "{} rows", p.rows_formula);
    let widths =
        coverage::half_widths(Population { categories: 2, kappa: 0.6, prevalence: 0.5 }, p.rows as usize, 300, 5);
    let share = widths.iter().filter(|h| **h <= 0.0155).count() as f64 / widths.len() as f64;
    assert!(share >= 0.5, "{share} of studies of {} rows reach +-0.0155", p.rows);
}

#[test]
fn negative_values_are_values_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = forcebench(dir.path())
        .args(["agreement", "plan", "--kappa", "-0.5", "--half-width", "0.1", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["plan"]["kappa"], -0.5);
    assert!(v["plan"]["rows"].as_u64().unwrap() > 2);
    // A negative half-width is now read as a value and refused as one, in words.
    forcebench(dir.path())
        .args(["agreement", "plan", "--kappa", "0.5", "--half-width", "-0.1"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("half-width is between 0 and 1"));
}

#[test]
fn plans_for_ac1_and_alpha_give_their_half_width_in_simulation() {
    for (coefficient, kappa, w, prevalence) in [
        (PlanCoefficient::Ac1, 0.7, 0.1, 0.85),
        (PlanCoefficient::Alpha, 0.6, 0.1, 0.5),
        (PlanCoefficient::Ac1, 0.5, 0.08, 0.5),
    ] {
        let p = plan::plan_for(coefficient, kappa, w, 2, &[prevalence]).unwrap();
        let pop = Population { categories: 2, kappa, prevalence };
        let table = pop.table();
        // Variance of the coefficient's estimate across simulated studies, from the estimates
        // alone (no variance formula): n times it is close to the plan's n_variance.
        let n = 400;
        let mut est = Vec::new();
        // A generator of the test's own (xorshift64*), independent of the code's.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut uniform = || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        };
        let cum: Vec<f64> = table
            .iter()
            .flatten()
            .scan(0.0, |a, x| {
                *a += x;
                Some(*a)
            })
            .collect();
        for _ in 0..3000 {
            let mut t = vec![vec![0u64; 2]; 2];
            for _ in 0..n {
                let u = uniform();
                let c = cum.partition_point(|&c| c <= u).min(3);
                t[c / 2][c % 2] += 1;
            }
            let (po, m0) =
                ((t[0][0] + t[1][1]) as f64 / n as f64, (2 * t[0][0] + t[0][1] + t[1][0]) as f64 / (2 * n) as f64);
            let v = match coefficient {
                // AC1 with two labels: chance 2 m (1 - m).
                PlanCoefficient::Ac1 => (po - 2.0 * m0 * (1.0 - m0)) / (1.0 - 2.0 * m0 * (1.0 - m0)),
                // Alpha with two raters: 1 - (2n - 1) D_o / D_e on the pooled labels.
                _ => {
                    let d_o = (t[0][1] + t[1][0]) as f64 * 2.0;
                    let n0 = (2 * t[0][0] + t[0][1] + t[1][0]) as f64;
                    let n1 = 2.0 * n as f64 - n0;
                    1.0 - (2.0 * n as f64 - 1.0) * d_o / (2.0 * n0 * n1)
                }
            };
            est.push(v);
        }
        let mean = est.iter().sum::<f64>() / est.len() as f64;
        let var = est.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (est.len() - 1) as f64;
        let ratio = var * n as f64 / p.n_variance;
        assert!(
            (0.88..1.12).contains(&ratio),
            "{coefficient:?}: simulated n Var {} against the plan's {}",
            var * n as f64,
            p.n_variance
        );
        assert!(
            (p.value
                - pop.truth(match coefficient {
                    PlanCoefficient::Ac1 => coverage::Coefficient::GwetAc1,
                    _ => coverage::Coefficient::KrippendorffAlpha,
                }))
            .abs()
                < 1e-6
        );
        // The planned rows reach W in at least half of other studies, and 30% fewer miss it most
        // of the time (AC1's SE scatters widely at skewed prevalence, so not always).
        let widths = coverage::coefficient_half_widths(coefficient.simulated(), &table, p.rows as usize, 400, 31);
        let share = widths.iter().filter(|h| **h <= w).count() as f64 / widths.len() as f64;
        assert!(share >= 0.5, "{coefficient:?}: {share} of studies of {} rows reach +-{w}", p.rows);
        let fewer =
            coverage::coefficient_half_widths(coefficient.simulated(), &table, (p.rows as f64 * 0.7) as usize, 400, 32);
        let share = fewer.iter().filter(|h| **h <= w).count() as f64 / fewer.len() as f64;
        assert!(share < 0.5, "{coefficient:?}: 30% fewer rows still reach +-{w} in {share}");
    }
    let _ = agreement::BOOTSTRAP_REPS;
}
