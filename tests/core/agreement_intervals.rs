//! Every agreement interval against other people's code, a coverage check, and the
//! plan: the reference values in tests/fixtures/agreement/reference.json come from statsmodels,
//! irrCAC and the `krippendorff` package (tests/python/agreement_reference.py draws the tables
//! and calls them; scripts/test-agreement-reference.sh recomputes the file and checks it).

use forcebench::agreement;
use forcebench::agreement::coverage::{self, Method, Population};
use forcebench::agreement::stats::{self, Interval, IntervalMethod};
use serde_json::Value;

fn fixture() -> Vec<Value> {
    let text = include_str!("../fixtures/agreement/reference.json");
    let v: Value = serde_json::from_str(text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Value, SE (when the reference has one) and both interval ends, within `tol`.
fn same(what: &str, case: usize, value: Option<f64>, interval: Option<&Interval>, want: &Value, tol: f64) {
    let value = value.unwrap_or_else(|| panic!("{what} #{case}: no value"));
    let interval = interval.unwrap_or_else(|| panic!("{what} #{case}: no interval"));
    let close = |got: f64, want: f64, part: &str| {
        assert!((got - want).abs() <= tol, "{what} #{case} {part}: {got} against {want} (tolerance {tol})");
    };
    close(value, num(&want["value"]), "value");
    if let Some(se) = want.get("se") {
        close(interval.se.expect("an SE"), num(se), "SE");
    }
    // Ends: irrCAC takes its t quantile from scipy, whose t.ppf is off by up to about 1e-9.
    let ends = tol.max(1e-8);
    assert!(
        (interval.ci95[0] - num(&want["ci95"][0])).abs() <= ends,
        "{what} #{case} lower end: {:?} against {}",
        interval.ci95,
        want["ci95"]
    );
    assert!(
        (interval.ci95[1] - num(&want["ci95"][1])).abs() <= ends,
        "{what} #{case} upper end: {:?} against {}",
        interval.ci95,
        want["ci95"]
    );
}

fn table(v: &Value) -> Vec<Vec<u64>> {
    v.as_array().unwrap().iter().map(|r| r.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect()).collect()
}

#[test]
fn two_rater_intervals_equal_statsmodels_and_irrcac_on_200_tables() {
    let cases: Vec<Value> = fixture().into_iter().filter(|c| c["kind"] == "two_raters").collect();
    assert!(cases.len() >= 200);
    for (i, c) in cases.iter().enumerate() {
        let t = table(&c["table"]);
        let q = t.len();
        let k = stats::kappa_from_table(&t);
        let fce = Interval { se: k.kappa_se, ci95: k.kappa_ci95.unwrap(), method: IntervalMethod::FleissCohenEveritt };
        same("Cohen's kappa (statsmodels)", i, k.cohen_kappa, Some(&fce), &c["cohen"], 1e-10);
        let (wk, wi) = stats::weighted_kappa_interval(&t, &stats::quadratic_weights(q)).unwrap();
        same("quadratic kappa (statsmodels)", i, Some(wk), Some(&wi), &c["quadratic"], 1e-10);
        same("AC1 (irrCAC)", i, k.gwet_ac1, k.gwet_ac1_interval.as_ref(), &c["ac1"], 1e-9);
        same("PABAK (statsmodels Wilson)", i, k.pabak, k.pabak_interval.as_ref(), &c["pabak"], 1e-10);
    }
}

#[test]
fn many_rater_intervals_equal_irrcac_and_the_krippendorff_package_on_200_rating_sets() {
    let cases: Vec<Value> = fixture().into_iter().filter(|c| c["kind"] == "many_raters").collect();
    assert!(cases.len() >= 200);
    for (i, c) in cases.iter().enumerate() {
        let q = c["q"].as_u64().unwrap() as usize;
        let units: Vec<Vec<u32>> = c["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect())
            .collect();
        let m = stats::multi_rater(&units, q);
        same("Fleiss' kappa (irrCAC)", i, m.fleiss_kappa, m.fleiss_kappa_interval.as_ref(), &c["fleiss"], 1e-9);
        same("AC1 (irrCAC)", i, m.gwet_ac1, m.gwet_ac1_interval.as_ref(), &c["ac1"], 1e-9);
        same("alpha (irrCAC)", i, m.krippendorff_alpha, m.krippendorff_alpha_interval.as_ref(), &c["alpha"], 1e-9);
        let (a, ai) = stats::krippendorff_ordinal(&units, q).unwrap();
        same(
            "ordinal alpha (irrCAC, Krippendorff's ordinal weights)",
            i,
            Some(a),
            Some(&ai),
            &c["alpha_ordinal"],
            1e-9,
        );
        let package = num(&c["alpha_ordinal_package"]);
        assert!((a - package).abs() < 1e-9, "ordinal alpha #{i}: {a} against the krippendorff package's {package}");
    }
}

#[test]
fn t_quantiles_are_the_tables() {
    // Student's t, 97.5%, as printed to six decimals in any table (scipy's t.ppf agrees to about
    // 1e-9; at df 5 its own t.sf of its answer is 0.02499999997, so the table is the reference).
    let table = [
        (1.0, 12.706205),
        (2.0, 4.302653),
        (3.0, 3.182446),
        (5.0, 2.570582),
        (10.0, 2.228139),
        (14.0, 2.144787),
        (29.0, 2.045230),
        (100.0, 1.983972),
    ];
    for (df, t) in table {
        let got = stats::t_quantile_975(df);
        assert!((got - t).abs() <= 5e-7, "df {df}: {got} against {t}");
    }
}

/// Coverage of one method at one population, `narrow` scaling its arms.
fn covers(method: Method, pop: Population, n: usize, narrow: f64) -> f64 {
    coverage::simulate(pop, n, &[method], 400, 0, 7, narrow)[0].coverage
}

#[test]
fn short_coverage_simulation_passes_correct_intervals_and_fails_narrowed_ones() {
    // 400 replicates: a 95% interval covers 0.95 +- 0.011 (one SE); the band 0.92-0.98 holds a
    // correct method with room, and an interval 20% too narrow covers about 0.89 and fails.
    let pop = Population { categories: 3, kappa: 0.6, prevalence: 0.5 };
    for method in [Method::KappaWald, Method::KappaFisherZ, Method::Ac1Gwet, Method::AlphaGwet, Method::QuadraticWald] {
        let ok = covers(method, pop, 300, 1.0);
        assert!((0.92..=0.98).contains(&ok), "{} covers {ok} at n = 300", method.as_str());
        let narrow = covers(method, pop, 300, 0.8);
        assert!(
            narrow < 0.92,
            "{} narrowed by 20% still covers {narrow}: the check would not catch it",
            method.as_str()
        );
    }
}

#[test]
fn the_preferred_kappa_interval_covers_where_the_plain_one_does_not() {
    // Small n and kappa near 1: the Fleiss-Cohen-Everitt interval is known to under-cover.
    let pop = Population { categories: 2, kappa: 0.9, prevalence: 0.5 };
    let plain = covers(Method::KappaWald, pop, 30, 1.0);
    let preferred = covers(Method::KappaFisherZ, pop, 30, 1.0);
    assert!(plain < 0.85, "the plain interval covers {plain}: the premise of preferring another is gone");
    assert!(preferred >= 0.93, "the preferred interval covers only {preferred}");
}

#[test]
fn plan_matches_bloch_and_kraemer_worked_by_hand() {
    // Two categories, kappa 0.6, prevalence 0.3: Bloch and Kraemer's (1989) closed form gives
    // n Var = 0.4 * (0.4 * -0.2 + 0.6 * 1.4 / (2 * 0.3 * 0.7)) = 0.4 * (-0.08 + 2) = 0.768, so a
    // half-width of 0.1 needs 1.959964^2 * 0.768 / 0.01 = 295.02, rounded up: 296 rows.
    let p = agreement::plan::plan(0.6, 0.1, 2, &[0.3]).unwrap();
    assert!((p.n_variance - 0.768).abs() < 1e-12, "{}", p.n_variance);
    assert_eq!(p.rows_formula, 296);
    assert!(p.rows >= 296 && p.rows <= 330, "the simulation raises the formula's n a little at most: {}", p.rows);
    assert!(p.simulated_share_reaching.is_some_and(|s| s >= 0.6));
    // Halving the width quadruples the rows (up to rounding).
    let q = agreement::plan::plan(0.6, 0.05, 2, &[0.3]).unwrap();
    assert_eq!(q.rows_formula, (1.959_963_984_540_054f64.powi(2) * 0.768 / 0.0025).ceil() as u64);
    // Shares: one value splits the rest, q - 1 values leave the last the rest, nonsense refused.
    assert_eq!(agreement::plan::marginals(3, &[0.5]).unwrap(), vec![0.5, 0.25, 0.25]);
    assert!((agreement::plan::marginals(3, &[0.6, 0.3]).unwrap()[2] - 0.1).abs() < 1e-12);
    assert!(agreement::plan::plan(0.6, 0.0, 2, &[]).is_err());
    assert!(agreement::plan::plan(1.0, 0.1, 2, &[]).is_err());
    assert!(agreement::plan::marginals(3, &[0.6, 0.3, 0.3]).is_err());
}

#[test]
fn the_planned_rows_give_the_planned_half_width_in_at_least_half_the_replicates() {
    for (q, kappa, prevalence, w) in
        [(2, 0.78, 0.85, 0.1), (2, 0.4, 0.5, 0.1), (3, 0.6, 0.5, 0.08), (3, 0.9, 0.85, 0.05)]
    {
        let p = agreement::plan::plan(kappa, w, q, &[prevalence]).unwrap();
        let pop = Population { categories: q, kappa, prevalence };
        let widths = coverage::half_widths(pop, p.rows as usize, 400, 11);
        let ok = widths.iter().filter(|h| **h <= w).count();
        assert!(
            ok * 2 >= widths.len(),
            "q {q} kappa {kappa}: {ok} of {} at or under {w} with {} rows",
            widths.len(),
            p.rows
        );
        // And the plan is not wastefully large: 30% fewer rows miss W most of the time.
        let fewer = coverage::half_widths(pop, (p.rows as f64 * 0.7) as usize, 400, 12);
        let ok = fewer.iter().filter(|h| **h <= w).count();
        assert!(
            ok * 2 < fewer.len(),
            "q {q} kappa {kappa}: 70% of the rows still reach {w} in {ok} of {}",
            fewer.len()
        );
    }
}

#[test]
fn a_running_project_is_told_how_many_more_rows_its_interval_needs() {
    // 50 rows, kappa 0.4, SE 0.126996 (the textbook 2x2 in agreement.rs): 1.96 SE = 0.24891;
    // reaching +- 0.1 needs 50 * (0.24891 / 0.1)^2 = 309.8, so 310 rows, 260 more.
    let report = agreement::report_from_rows(&pairs_as_rows(&[(0, 0, 20), (0, 1, 5), (1, 0, 10), (1, 1, 15)]), None);
    let g = agreement::plan::progress(&report.pair, 0.1);
    let h = 1.959_963_984_540_054 * 0.126_996_062_931_100_33;
    assert!((g.half_width_now.unwrap() - h).abs() < 1e-12);
    assert_eq!(g.rows_needed, Some((50.0 * (h / 0.1) * (h / 0.1)).ceil() as u64));
    assert_eq!(g.more_rows, Some(g.rows_needed.unwrap() - 50));
    assert_eq!(agreement::plan::progress(&report.pair, 0.5).more_rows, Some(0), "already narrower than 0.5");
}

/// Long rows for two annotators from (label A, label B, count).
fn pairs_as_rows(cells: &[(u32, u32, usize)]) -> Vec<(String, String, String)> {
    let mut rows = Vec::new();
    let mut i = 0;
    for &(a, b, n) in cells {
        for _ in 0..n {
            rows.push((format!("r{i}"), "A".to_string(), format!("l{a}")));
            rows.push((format!("r{i}"), "B".to_string(), format!("l{b}")));
            i += 1;
        }
    }
    rows
}

#[test]
fn skewed_prevalence_is_said_in_words_with_the_indices_beside_kappa() {
    // 80 both-first, 10 both-second, 5 + 5 disagreements: p_o 0.9, PI (80 - 10) / 100 = 0.7,
    // BI 0; p_e 0.85^2 + 0.15^2 = 0.745, kappa 0.155 / 0.255 = 0.608 while PABAK is 0.8.
    let skewed = stats::kappa_from_table(&[vec![80, 5], vec![5, 10]]);
    assert!((skewed.prevalence_index.unwrap() - 0.7).abs() < 1e-12);
    assert!(skewed.bias_index.unwrap().abs() < 1e-12);
    assert!((skewed.cohen_kappa.unwrap() - 0.155 / 0.255).abs() < 1e-12);
    let words = agreement::advice(&skewed, stats::kappa_preferred_interval(&skewed).as_ref());
    assert!(
        words.iter().any(|s| s.contains("prevalence index 0.70") && s.contains("AC1") && s.contains("PABAK")),
        "{words:?}"
    );
    // Balanced: no such sentence.
    let balanced = stats::kappa_from_table(&[vec![45, 5], vec![5, 45]]);
    assert!(balanced.prevalence_index.unwrap().abs() < 1e-12);
    let words = agreement::advice(&balanced, stats::kappa_preferred_interval(&balanced).as_ref());
    assert!(!words.iter().any(|s| s.contains("prevalence")), "{words:?}");
    // Bias: A says first 55 times, B 42: BI (15 - 2) / 100 = 0.13.
    let biased = stats::kappa_from_table(&[vec![40, 15], vec![2, 43]]);
    assert!((biased.bias_index.unwrap() - 0.13).abs() < 1e-12);
    let words = agreement::advice(&biased, stats::kappa_preferred_interval(&biased).as_ref());
    assert!(words.iter().any(|s| s.contains("bias index 0.13")), "{words:?}");
    // Three categories: no indices.
    assert_eq!(stats::kappa_from_table(&[vec![5, 1, 0], vec![1, 5, 0], vec![0, 0, 5]]).prevalence_index, None);
}

#[test]
fn the_under_coverage_sentence_appears_at_small_n_and_high_kappa_only() {
    let small = stats::kappa_from_table(&[vec![14, 1], vec![0, 15]]); // n 30, kappa 0.93
    let words = agreement::advice(&small, stats::kappa_preferred_interval(&small).as_ref());
    assert!(words.iter().any(|s| s.contains("covers less often than 95%")), "{words:?}");
    let large = stats::kappa_from_table(&[vec![375, 125], vec![125, 375]]); // n 1000, kappa 0.5
    let words = agreement::advice(&large, stats::kappa_preferred_interval(&large).as_ref());
    assert!(words.is_empty(), "{words:?}");
    // No disagreement at all: the bound on the disagreement rate, not a zero-width interval.
    let perfect = stats::kappa_from_table(&[vec![20, 0], vec![0, 10]]);
    let i = stats::kappa_preferred_interval(&perfect).unwrap();
    assert_eq!(i.method, IntervalMethod::NoDisagreementBound);
    let bound = 1.0 - 0.025f64.powf(1.0 / 30.0);
    let pe = (20.0 * 20.0 + 10.0 * 10.0) / 900.0;
    assert!((i.ci95[0] - (1.0 - bound / (1.0 - pe))).abs() < 1e-12 && i.ci95[1] == 1.0);
}

#[test]
fn span_f1_bootstrap_brackets_the_mean_and_matches_a_plain_bootstrap() {
    // 300 rows, 240 with equal spans (F1 1) and 60 differing with F1 0.5: mean 0.9. A plain
    // bootstrap (every row drawn) of the same data, here with stats::bootstrap_ci, gives the
    // same interval up to resampling noise; both are near 0.9 +- 1.96 * sd / sqrt(n).
    let f: Vec<f64> = (0..300).map(|i| if i < 60 { 0.5 } else { 1.0 }).collect();
    let plain =
        stats::bootstrap_ci(300, 2000, 5, |m| Some(m.iter().zip(&f).map(|(&k, x)| k as f64 * x).sum::<f64>() / 300.0))
            .unwrap();
    let sd = (0.2f64 * 0.8).sqrt() * 0.5; // values 0.5 or 1 with shares 0.2 / 0.8
    let normal = [0.9 - 1.96 * sd / 300f64.sqrt(), 0.9 + 1.96 * sd / 300f64.sqrt()];
    let quick = agreement::span_f1_interval_for_tests(240, &vec![0.5; 60], 2000, 5).unwrap();
    for (name, ci) in [("plain", plain.ci95), ("skipping", quick.ci95)] {
        assert!(
            (ci[0] - normal[0]).abs() < 0.01 && (ci[1] - normal[1]).abs() < 0.01,
            "{name}: {ci:?} against {normal:?}"
        );
    }
}
