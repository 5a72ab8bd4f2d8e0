//! Every agreement interval (issue 32) against other people's code, a coverage check, and the
//! plan: the reference values in tests/fixtures/agreement/reference.json come from statsmodels,
//! irrCAC and the `krippendorff` package (tests/python/agreement_reference.py draws the tables
//! and calls them; scripts/test-agreement-reference.sh recomputes the file and checks it).

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
