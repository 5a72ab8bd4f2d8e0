//! The MVR-FS plot: every evaluator shown has its own colour and marker, points with the same
//! scores are all visible, the legend follows the plot from top to bottom, and past twenty
//! evaluators every point carries its name.

use forcebench::evaluate::{plots, EvaluatorReport, Metrics};
use std::collections::{BTreeMap, HashSet};

fn report(name: &str, mvr: Option<f64>, fs: Option<f64>) -> EvaluatorReport {
    EvaluatorReport {
        name: name.into(),
        label_map: "force".into(),
        split_version: 1,
        overall: Metrics {
            n_pairs: 10,
            mvr,
            fs,
            violations: 0,
            missing: 0,
            unanswered: 0,
            mvr_ci95: None,
            fs_ci95: None,
        },
        per_axis: BTreeMap::new(),
        per_severity: BTreeMap::new(),
        per_source: BTreeMap::new(),
        per_family: BTreeMap::new(),
        missing_pairs: Vec::new(),
        completeness: Default::default(),
    }
}

/// Every `<g class="CLASS" …>` element's attribute `attr`, in document order.
fn attrs(svg: &str, class: &str, attr: &str) -> Vec<String> {
    svg.split(&format!("<g class=\"{class}"))
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let from = tag.find(&format!("{attr}=\"")).map(|i| i + attr.len() + 2);
            from.map(|i| tag[i..i + tag[i..].find('"').unwrap()].to_string()).unwrap_or_default()
        })
        .collect()
}

/// Each point's centre as drawn: the first number pair of its marker.
fn centres(svg: &str) -> Vec<(String, f64, f64)> {
    svg.split("<g class=\"point\"")
        .skip(1)
        .map(|rest| {
            let name = rest[rest.find("data-evaluator=\"").unwrap() + 16..].split('"').next().unwrap().to_string();
            let body = &rest[rest.find('>').unwrap() + 1..rest.find("</g>").unwrap()];
            let num = |key: &str| -> f64 {
                let i = body.find(key).unwrap() + key.len();
                body[i..].split('"').next().unwrap().parse().unwrap()
            };
            let (x, y) = if body.starts_with("<circle") {
                (num("cx=\""), num("cy=\""))
            } else if body.starts_with("<rect") {
                (num("x=\"") + num("width=\"") / 2.0, num("y=\"") + num("height=\"") / 2.0)
            } else {
                // A path: its first point is the apex, straight above or below the centre; the
                // x is the centre's, the y is compared only between points of the same shape.
                let d = body[body.find("d=\"M").unwrap() + 4..].split(' ').take(2).collect::<Vec<_>>();
                (d[0].parse().unwrap(), d[1].trim_start_matches('L').parse().unwrap())
            };
            (name, x, y)
        })
        .collect()
}

// Broke: with 10-11 evaluators colours came round again (example-judge was drawn in
// alpha@generic's colour, with the same circle), and a reader took one judge's point for another's.
#[test]
fn eleven_evaluators_get_eleven_colours_and_no_two_share_colour_and_marker() {
    let reports: Vec<EvaluatorReport> =
        (0..11).map(|i| report(&format!("judge-{i}"), Some(0.05 * i as f64), Some(0.5 - 0.07 * i as f64))).collect();
    let svg = plots::scatter_svg(&reports);
    let colours = attrs(&svg, "point", "data-colour");
    let markers = attrs(&svg, "point", "data-marker");
    assert_eq!(colours.len(), 11);
    assert_eq!(colours.iter().collect::<HashSet<_>>().len(), 11, "a colour each: {colours:?}");
    let pairs: HashSet<(&String, &String)> = colours.iter().zip(&markers).collect();
    assert_eq!(pairs.len(), 11);
    assert!(markers.iter().collect::<HashSet<_>>().len() > 1, "more than one marker shape");
    // Twenty still have a colour each, and no point needs a label.
    let twenty: Vec<EvaluatorReport> =
        (0..20).map(|i| report(&format!("e{i}"), Some(0.04 * i as f64), Some(0.3))).collect();
    let svg = plots::scatter_svg(&twenty);
    assert_eq!(attrs(&svg, "point", "data-colour").iter().collect::<HashSet<_>>().len(), 20);
    assert!(!svg.contains("font-size=\"10\">e3<"), "no labels on the points up to twenty");
}

// Broke: two judges with the same MVR and FS were drawn on the same spot: one hid the other.
#[test]
fn points_with_the_same_scores_are_all_visible_around_their_value() {
    let reports = vec![
        report("alpha@generic", Some(0.25), Some(0.40)),
        report("example-judge", Some(0.25), Some(0.40)),
        report("third", Some(0.25), Some(0.40)),
        report("apart", Some(0.80), Some(-0.20)),
    ];
    let svg = plots::scatter_svg(&reports);
    let at = centres(&svg);
    assert_eq!(at.len(), 4);
    for i in 0..3 {
        for j in i + 1..3 {
            let d = (at[i].1 - at[j].1).hypot(at[i].2 - at[j].2);
            assert!(d >= 8.0, "{} and {} are drawn {d:.1} px apart: {at:?}", at[i].0, at[j].0);
        }
    }
    // The shared value is marked, and the plot says what the ring means.
    assert!(svg.contains("r=\"1.8\""), "a dot at the shared value");
    assert!(svg.contains("drawn on a small ring"));
    // A point alone stays exactly on its value: MVR 0.8 is 70 + 0.8 * 380 px across.
    let apart = at.iter().find(|p| p.0 == "apart").unwrap();
    assert!((apart.1 - (70.0 + 0.8 * 380.0)).abs() < 0.11, "{apart:?}");
}

#[test]
fn the_legend_lists_evaluators_from_the_top_of_the_plot_down_then_those_without_a_score() {
    let reports = vec![
        report("low", Some(0.9), Some(-0.5)),
        report("unscored", None, None),
        report("high", Some(0.1), Some(0.8)),
        report("middle", Some(0.5), Some(0.1)),
    ];
    let svg = plots::scatter_svg(&reports);
    assert_eq!(attrs(&svg, "legend", "data-evaluator"), ["high", "middle", "low", "unscored"]);
    assert!(svg.contains(">unscored: no score<"));
}

#[test]
fn past_twenty_evaluators_every_point_carries_its_name() {
    let reports: Vec<EvaluatorReport> =
        (0..25).map(|i| report(&format!("judge-{i:02}"), Some(0.03 * i as f64), Some(0.2))).collect();
    let svg = plots::scatter_svg(&reports);
    for i in 0..25 {
        assert!(svg.contains(&format!("font-size=\"10\">judge-{i:02}<")), "judge-{i:02} is labelled on the plot");
    }
    // The legend fits: the picture grows to hold 25 lines.
    let height: f64 = svg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(height >= 40.0 + 25.0 * 20.0, "height {height}");
}
