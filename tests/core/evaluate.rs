//! Scoring evaluators: MVR and FS by hand, label maps, the output parser and the baselines.

use crate::common::*;
use forcebench::evaluate::{self, baselines, LabelMap};
use std::collections::BTreeSet;

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

#[test]
fn mvr_and_fs_on_hand_computed_pairs_with_a_tie_and_a_missing_output() {
    // (safe, raised): a clean pair (margin 0.7), a tie (a violation, margin 0), an inversion
    // (violation, margin -0.3) and a pair with no raised score (violation, margin 0).
    let pairs = [
        evaluate::outcome(Some(0.9), Some(0.2)),
        evaluate::outcome(Some(0.5), Some(0.5)),
        evaluate::outcome(Some(0.3), Some(0.6)),
        evaluate::outcome(Some(1.0), None),
    ];
    let m = evaluate::metrics(&pairs, None);
    assert_eq!((m.n_pairs, m.violations, m.missing), (4, 3, 1));
    close(m.mvr.unwrap(), 0.75);
    close(m.fs.unwrap(), (0.7 + 0.0 - 0.3 + 0.0) / 4.0);
    let b = evaluate::metrics(&pairs, Some((500, 1)));
    let [lo, hi] = b.mvr_ci95.unwrap();
    assert!(lo <= 0.75 && 0.75 <= hi && lo >= 0.0 && hi <= 1.0, "{lo} {hi}");
    assert_eq!(b.mvr_ci95, evaluate::metrics(&pairs, Some((500, 1))).mvr_ci95, "seeded");
    let empty = evaluate::metrics(&[], None);
    assert_eq!((empty.mvr, empty.fs), (None, None));
}

fn ids(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn each_label_map_and_a_custom_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "o.jsonl",
        concat!(
            "{\"id\":\"a\",\"claim\":\"safe\",\"label\":\"fully_supported\"}\n",
            "{\"id\":\"a\",\"claim\":\"raised\",\"label\":\"partially_supported\"}\n",
            "{\"id\":\"b\",\"claim\":\"safe\",\"label\":\"force_calibrated\"}\n",
            "{\"id\":\"b\",\"claim\":\"raised\",\"label\":\"force_gap\"}\n",
            "{\"id\":\"c\",\"claim\":\"safe\",\"label\":\"not_supported\"}\n",
            "{\"id\":\"c\",\"claim\":\"raised\",\"label\":\"refused\",\"raw\":\"I cannot help with that.\"}\n",
        ),
    );
    let scores = |map: &str| -> Vec<Option<f64>> {
        evaluate::read_outputs(&file, &LabelMap::named(map).unwrap(), &ids(&["a", "b", "c"]))
            .unwrap()
            .iter()
            .map(|o| o.score)
            .collect()
    };
    assert_eq!(scores("generic"), [Some(1.0), Some(0.5), None, None, None, None]);
    assert_eq!(scores("force"), [None, None, Some(1.0), Some(0.0), None, None]);
    assert_eq!(scores("audit"), [Some(1.0), Some(0.5), None, None, Some(0.0), None]);
    let custom = write(dir.path(), "map.json", "{\"force_gap\": 0.25, \"refused\": 0}");
    assert_eq!(scores(custom.to_str().unwrap()), [None, None, None, Some(0.25), None, Some(0.0)]);
    let bad = write(dir.path(), "bad.json", "{\"x\": \"high\"}");
    let err = LabelMap::named(bad.to_str().unwrap()).unwrap_err().to_string();
    assert!(err.contains("label `x`: \"high\" is not a number"), "{err}");
}

#[test]
fn the_parser_names_malformed_lines_and_keeps_refusals_as_unscored() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "o.jsonl",
        concat!(
            "{\"id\":\"a\",\"claim\":\"safe\",\"score\":\"0.7\"}\n",
            "not json\n",
            "{\"id\":\"a\",\"claim\":\"middle\",\"score\":1}\n",
            "{\"id\":\"zz\",\"claim\":\"safe\",\"score\":1}\n",
            "{\"id\":\"a\",\"claim\":\"safe\",\"score\":1}\n",
            "{\"id\":\"a\",\"claim\":\"raised\",\"score\":0.2,\"confidence\":1}\n",
        ),
    );
    let err =
        evaluate::read_outputs(&file, &LabelMap::named("generic").unwrap(), &ids(&["a"])).unwrap_err().to_string();
    for needle in [
        "o.jsonl:1: field `score`: expected a number, found the string \"0.7\"; write numbers without quotes",
        "o.jsonl:2: not valid JSON",
        "o.jsonl:3: field `claim`: must be \"safe\" or \"raised\"",
        "o.jsonl:4: field `id`: `zz` is not in the locked split's evaluation set",
        "o.jsonl:5: field `id`: a second output for `a` (safe) (first on line 1)",
        "o.jsonl:6: field `confidence`: unknown key",
    ] {
        assert!(err.contains(needle), "missing {needle}: {err}");
    }
    let ok = write(dir.path(), "ok.jsonl", "{\"id\":\"a\",\"claim\":\"safe\",\"score\":0.7}\n{\"id\":\"a\",\"claim\":\"raised\",\"score\":\"n/a\",\"raw\":{\"error\":\"timeout\"}}\n");
    let outs = evaluate::read_outputs(&ok, &LabelMap::named("generic").unwrap(), &ids(&["a"])).unwrap();
    assert_eq!(outs[0].score, Some(0.7));
    assert_eq!(outs[1].score, None, "an unparsable score is kept as unscored");
    assert_eq!(outs[1].raw.as_deref(), Some("{\"error\":\"timeout\"}"));
}

#[test]
fn each_baseline_shows_the_behaviour_it_documents() {
    let passage = "In a 2019 trial of adults, the drug may reduce pain by between 12 and 18 percent.";
    close(baselines::citation_presence(passage, "anything"), 1.0);
    close(baselines::citation_presence("  ", "anything"), 0.0);
    // token_overlap: "the drug may reduce pain" all in the passage; "cures" and "migraine" are not.
    close(baselines::token_overlap(passage, "The drug may reduce pain."), 1.0);
    close(baselines::token_overlap(passage, "The drug cures migraine."), 2.0 / 4.0);
    // entity_overlap: a new place name and a new number.
    close(baselines::entity_overlap(passage, "The drug helps."), 1.0);
    close(baselines::entity_overlap(passage, "In Norway the drug cut pain by 12 percent."), 1.0 / 2.0);
    // rule_force: two strong words absent from the passage.
    close(baselines::rule_force(passage, "The drug always cures pain."), 0.5);
    close(baselines::rule_force(passage, "The drug may reduce pain."), 1.0);
    // axis_lexical: each dropped limit fires on its own, and the calibrated claim keeps them all.
    let calibrated = "In a 2019 trial of adults, the drug may reduce pain by between 12 and 18 percent.";
    assert!(
        baselines::dropped_limits(passage, calibrated).is_empty(),
        "{:?}",
        baselines::dropped_limits(passage, calibrated)
    );
    for (claim, check) in [
        ("In a 2019 trial of adults, the drug reduces pain by between 12 and 18 percent.", "hedge_removed"),
        ("In a 2019 trial of adults, the drug may reduce pain by 15 percent.", "range_to_point"),
        ("In a trial of adults, the drug may reduce pain by between 12 and 18 percent.", "dated_made_current"),
        ("In a 2019 trial, the drug may reduce pain by between 12 and 18 percent.", "bounded_population_generalised"),
    ] {
        assert_eq!(baselines::dropped_limits(passage, claim), [check], "{claim}");
    }
    let relation = "Poor sleep was associated with pain in adults in 2019; this may matter.";
    assert_eq!(
        baselines::dropped_limits(relation, "In 2019, in adults, poor sleep may cause pain."),
        ["association_made_causal"]
    );
    close(baselines::axis_lexical(passage, "The drug reduces pain by 15 percent."), 0.0);
    // As the paper's prototype, it starts from token overlap: the hedge dropped costs 1/3 of it.
    let hedge_dropped = "In a 2019 trial of adults, the drug reduces pain by between 12 and 18 percent.";
    close(
        baselines::axis_lexical(passage, hedge_dropped),
        baselines::token_overlap(passage, hedge_dropped) - 1.0 / 3.0,
    );
    assert!(baselines::token_overlap(passage, hedge_dropped) < 1.0, "the claim's word `reduces` is not the passage's");
}

#[test]
fn evaluate_and_baselines_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "e.forcebench", &[("scope", 6), ("numeric", 4)], 1, 1);
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(3), Some(1)))
        .unwrap();
    let path = dir.path().join("e.forcebench");
    let run = |args: &[&str]| {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").arg("--project").arg(&path).args(args);
        cmd
    };
    let scores = write(dir.path(), "s.jsonl", "");
    run(&["evaluate", "--scores", scores.to_str().unwrap()])
        .assert()
        .failure()
        .stderr(predicates::str::contains("split v1 is a draft; evaluators are scored on a locked split"));
    forcebench::split::lock(&mut p).unwrap();
    let eval = forcebench::split::show(&p).unwrap().unwrap().eval_ids;
    assert_eq!(eval.len(), 6);
    // Pair 0 clean, pair 1 a tie, pair 2 missing its raised output; the rest unscored.
    let lines = format!(
        "{{\"id\":\"{0}\",\"claim\":\"safe\",\"score\":1}}\n{{\"id\":\"{0}\",\"claim\":\"raised\",\"score\":0}}\n\
         {{\"id\":\"{1}\",\"claim\":\"safe\",\"label\":\"partially_supported\"}}\n{{\"id\":\"{1}\",\"claim\":\"raised\",\"label\":\"partially_supported\"}}\n\
         {{\"id\":\"{2}\",\"claim\":\"safe\",\"score\":0.8}}\n",
        eval[0], eval[1], eval[2]
    );
    let scores = write(dir.path(), "s.jsonl", lines);
    let out = run(&["evaluate", "--scores", scores.to_str().unwrap(), "--name", "judge", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    for key in [
        "n_pairs",
        "mvr",
        "fs",
        "violations",
        "missing",
        "per_axis",
        "per_severity",
        "per_source",
        "mvr_ci95",
        "fs_ci95",
        "missing_pairs",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    // Only pairs 0 and 1 have both claims answered: the rest were never answered, which is not a
    // judgment (left out and counted), while a tie is a violation.
    assert_eq!(
        (v["n_pairs"].as_u64(), v["violations"].as_u64(), v["missing"].as_u64(), v["unanswered"].as_u64()),
        (Some(2), Some(1), Some(0), Some(4))
    );
    assert_eq!(v["completeness"], serde_json::json!({ "requests": 12, "answered": 5, "unusable": 0, "unanswered": 7 }));
    close(v["mvr"].as_f64().unwrap(), 0.5);
    let scope = &v["per_axis"]["scope"];
    assert!(scope["mvr_ci95"].is_array() && scope["n_pairs"].as_u64().unwrap() > 0, "per-axis intervals: {scope}");
    close(v["fs"].as_f64().unwrap(), 0.5);
    assert_eq!(v["missing_pairs"], serde_json::json!([]), "an unanswered claim is not an unusable answer");
    // An incomplete evaluator is kept out of a panel, by name, with what is missing.
    run(&["evaluate", "panel", "judge"]).assert().failure().stderr(predicates::str::contains(
        "error [unfinished]: `judge` is incomplete: 7 of its 12 requests were never answered (5 answered, 0 answered but unusable)",
    ));
    let out = run(&["evaluate", "panel", "judge", "--include-incomplete", "--json", "--bootstrap", "0"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let panel: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        (panel["units"].as_u64(), panel["violations"].as_u64(), panel["unanswered"].as_u64()),
        (Some(2), Some(1), Some(4))
    );
    let out = run(&["baselines", "run", "--json"]).assert().success().get_output().stdout.clone();
    let b: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(b.as_array().unwrap().len(), 5);
    assert_eq!(b[0]["name"], "baseline:citation_presence");
    assert_eq!((b[0]["mvr"].as_f64(), b[0]["fs"].as_f64()), (Some(1.0), Some(0.0)), "every pair ties");
    let out = run(&["evaluate", "--json"]).assert().success().get_output().stdout.clone();
    let all: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 6, "the judge and five baselines compared");
}

#[test]
fn the_judge_response_parser_on_malformed_responses() {
    use forcebench::evaluate::judge::{parse_response, Parsed};
    let force = LabelMap::named("force").unwrap();
    let generic = LabelMap::named("generic").unwrap();
    let cases: Vec<(&str, &LabelMap, Option<f64>, Parsed)> = vec![
        ("```json\n{\"label\": \"force_gap\", \"reason\": \"drops may\"}\n```", &force, Some(0.0), Parsed::Json),
        (
            "Sure. {\"label\":\"force_calibrated\",\"reason\":\"keeps {the} hedge\"} Hope this helps",
            &force,
            Some(1.0),
            Parsed::Json,
        ),
        ("{label: force_gap} but really {\"verdict\": \"FORCE_GAP\"}", &force, Some(0.0), Parsed::Json),
        // The force map takes labels only: a bare score is no verdict under it.
        ("{\"score\": \"0.4\"}", &force, None, Parsed::Unparsable),
        ("I think this is a force_gap, since the passage hedges.", &force, Some(0.0), Parsed::LabelInText),
        ("either force_gap or force_calibrated", &force, None, Parsed::Unparsable),
        ("The claim is unsupported by the passage.", &generic, Some(0.0), Parsed::LabelInText),
        ("partially_supported", &generic, Some(0.5), Parsed::LabelInText),
        ("{\"label\": \"maybe\"}", &force, None, Parsed::Unparsable),
        ("", &force, None, Parsed::Unparsable),
        ("I can't help with that.", &force, None, Parsed::Unparsable),
        ("{\"label\": \"force_gap\"", &force, Some(0.0), Parsed::LabelInText),
    ];
    for (text, map, score, how) in cases {
        let (_, got, parsed) = parse_response(text, map);
        assert_eq!((got, parsed), (score, how), "{text:?}");
    }
}

#[test]
fn judge_requests_are_stateless_shuffled_and_scored_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "j.forcebench", &[("scope", 5), ("numeric", 5)], 0, 1);
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(2), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    let out = dir.path().join("req.jsonl");
    assert_eq!(evaluate::judge_export(&p, "dummy_axis", &out, 1, false).unwrap(), 8);
    let requests: Vec<serde_json::Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (_, pairs) = evaluate::eval_pairs(&p).unwrap();
    for r in &requests {
        let pair = pairs.iter().find(|x| x.id == r["id"]).unwrap();
        let prompt = r["prompt"].as_str().unwrap();
        let (mine, other) = if r["claim"] == "safe" {
            (&pair.calibrated_claim, &pair.raised_claim)
        } else {
            (&pair.raised_claim, &pair.calibrated_claim)
        };
        assert!(prompt.contains(mine.as_str()) && !prompt.contains(other.as_str()), "one claim per request");
        assert!(prompt.contains(&pair.passage) && !prompt.contains("{{"), "every placeholder filled");
        assert!(!prompt.contains(&format!("watch here is: {}.", pair.axis)), "the dummy axis is not the pair's axis");
    }
    let adjacent = requests.windows(2).filter(|w| w[0]["id"] == w[1]["id"]).count();
    assert!(adjacent < 4, "shuffled, not pair by pair");
    let again = dir.path().join("again.jsonl");
    evaluate::judge_export(&p, "dummy_axis", &again, 1, false).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap(), "same seed, same file");
    // Responses: every safe claim calibrated, every raised claim a gap, one garbled.
    let mut text = String::new();
    for (i, r) in requests.iter().enumerate() {
        let label = if r["claim"] == "safe" { "force_calibrated" } else { "force_gap" };
        let response = if i == 0 {
            "<<timeout>>".to_string()
        } else {
            format!("```json\\n{{\\\"label\\\": \\\"{label}\\\"}}\\n```")
        };
        text.push_str(&format!("{{\"request_id\":{},\"response\":\"{}\"}}\n", r["request_id"], response));
    }
    let responses = write(dir.path(), "resp.jsonl", text);
    let (report, stats) =
        evaluate::judge_import(&mut p, &responses, "judge-a", &LabelMap::named("force").unwrap(), None).unwrap();
    assert_eq!((stats.responses, stats.json, stats.unparsable.len()), (8, 7, 1));
    assert_eq!(stats.unparsable[0], requests[0]["request_id"].as_str().unwrap());
    assert_eq!((report.overall.missing, report.overall.violations), (1, 1));
    close(report.overall.mvr.unwrap(), 0.25);
    close(report.overall.fs.unwrap(), 3.0 / 4.0);
    let bad = write(dir.path(), "bad.jsonl", "{\"request_id\":\"nope\",\"response\":\"x\"}\n");
    let err = evaluate::judge_import(&mut p, &bad, "judge-b", &LabelMap::named("force").unwrap(), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.jsonl:1: field `request_id`: `nope` is not `<id>:safe` or `<id>:raised`"), "{err}");
    // A judge needs a name, as an imported evaluator does; nothing is stored without one.
    let err = evaluate::judge_import(&mut p, &responses, "  ", &LabelMap::named("force").unwrap(), None)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "an evaluator needs a name");
    let names: Vec<String> = evaluate::compare(&p, None).unwrap().into_iter().map(|r| r.name).collect();
    assert_eq!(names, vec!["judge-a".to_string()]);
}

#[test]
fn plots_name_every_evaluator_and_render_to_png() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "p.forcebench", &[("scope", 5), ("temporal", 5)], 0, 1);
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(3), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    let reports = evaluate::run_baselines(&mut p, None).unwrap();
    let scatter = evaluate::plots::scatter_svg(&reports);
    let heat = evaluate::plots::heatmap_svg(&reports);
    for name in baselines::NAMES {
        assert!(scatter.contains(&format!(">{name}<")) && heat.contains(&format!(">{name}<")), "{name}");
    }
    // citation_presence ties every pair: MVR 1.00 on every axis that has pairs, a dash elsewhere.
    assert!(heat.contains(">1.00<") && heat.contains(">—<"));
    let files = evaluate::plots::write_all(&reports, &dir.path().join("plots"), false).unwrap();
    assert_eq!(files.len(), 4);
    let png = std::fs::read(dir.path().join("plots/mvr_fs.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, 1280, "rendered at twice the SVG's 640 px");

    // Broke: plots written a second time replaced the first without `--force`.
    std::fs::write(dir.path().join("plots/mvr_by_axis.svg"), "my edited plot").unwrap();
    let Err(err) = evaluate::plots::write_all(&reports, &dir.path().join("plots"), false) else { panic!("refused") };
    assert_eq!(err.code(), "output_exists");
    assert_eq!(std::fs::read(dir.path().join("plots/mvr_fs.png")).unwrap(), png, "no plot was written");
    assert_eq!(std::fs::read_to_string(dir.path().join("plots/mvr_by_axis.svg")).unwrap(), "my edited plot");
    evaluate::plots::write_all(&reports, &dir.path().join("plots"), true).unwrap();
    assert!(std::fs::read_to_string(dir.path().join("plots/mvr_by_axis.svg")).unwrap().starts_with("<svg"));
}

#[test]
fn placeholders_inside_passage_context_or_claim_text_stay_literal_in_judge_prompts() {
    // Before: fill replaced placeholders one after another, so a passage holding `{{claim}}` or
    // `{{axis}}` leaked the claim under test and the true axis into the prompt.
    let pair = evaluate::Pair {
        id: "p1".into(),
        axis: "temporal".into(),
        severity: 2,
        source: "ExpertQA".into(),
        group_id: "g1".into(),
        family: "none".into(),
        evidence_span: "{{axis}} span".into(),
        context: "unused: fill takes the question as an argument".into(),
        passage: "Quoted: {{claim}} and {{axis}} and {{dummy_axis}}.".into(),
        calibrated_claim: "It may help.".into(),
        raised_claim: "It helps {{passage}}.".into(),
    };
    let template = "P: {{passage}}\nQ: {{question}} / {{context}}\nC: {{claim}}\nX: {{{claim}}}";
    let prompt = evaluate::judge::fill(template, &pair, "Ask {{claim}}?", &pair.raised_claim);
    assert_eq!(
        prompt,
        "P: Quoted: {{claim}} and {{axis}} and {{dummy_axis}}.\nQ: Ask {{claim}}? / Ask {{claim}}?\n\
         C: It helps {{passage}}.\nX: {It helps {{passage}}.}"
    );
}

#[test]
fn an_evaluator_named_in_decomposed_form_is_the_one_stored_composed() {
    // `José` imported with its accent composed (NFC) and typed decomposed (NFD: `e` and
    // U+0301) on a later command were two evaluators, and `evaluate remove` of the one typed
    // found nothing. Names are now stored and looked up in NFC, as ids and annotator names are.
    let dir = tempfile::tempdir().unwrap();
    let mut p = crate::split::project_from(dir.path(), "e.forcebench", &[("scope", 6), ("numeric", 4)], 1, 1);
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(3), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    let eval = forcebench::split::show(&p).unwrap().unwrap().eval_ids;
    let path = dir.path().join("e.forcebench");
    let run = |args: &[&str]| {
        let mut cmd = assert_cmd::Command::cargo_bin("forcebench").unwrap();
        cmd.env_remove("FORCEBENCH_PROJECT").arg("--project").arg(&path).args(args);
        cmd
    };
    let lines = format!(
        "{{\"id\":\"{0}\",\"claim\":\"safe\",\"score\":1}}\n{{\"id\":\"{0}\",\"claim\":\"raised\",\"score\":0}}\n",
        eval[0]
    );
    let scores = write(dir.path(), "s.jsonl", lines);
    let scores = scores.to_str().unwrap();
    run(&["evaluate", "--scores", scores, "--name", "Jos\u{e9}"]).assert().success();
    run(&["evaluate", "--scores", scores, "--name", "Jose\u{301}"]).assert().success();
    let out = run(&["evaluate", "--json"]).assert().success().get_output().stdout.clone();
    let all: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let names: Vec<&str> = all.as_array().unwrap().iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["Jos\u{e9}"], "the second import replaced the first, under the composed name");
    run(&["evaluate", "paired", "Jose\u{301}", "Jos\u{e9}"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("side A and side B are the same (Jos\u{e9})"));
    run(&["evaluate", "remove", "Jose\u{301}"]).assert().success();
    let out = run(&["evaluate", "--json"]).assert().success().get_output().stdout.clone();
    let all: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 0, "removed by its decomposed spelling: {all}");
}
