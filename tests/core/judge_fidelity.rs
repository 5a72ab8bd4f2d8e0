//! Judges scored exactly as the ForceBench protocol does: no gold label in any prompt, the
//! paper's prompt structure (Appendix F), unusable answers asked for again before they count as
//! violations, the decoding defaults and run record of Appendix G, pooled panels, paired
//! comparisons, and the battery whose Table 2 reproduces the paper's pooled counts.

use forcebench::evaluate::{self, judge, runner};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::judge::{claim_of, cli, locked, no_progress, options, user_message, Reply, Server};

const AXES: [&str; 5] = ["relation", "modality", "scope", "temporal", "numeric"];

fn pair(id: &str, axis: &str, severity: i64) -> evaluate::Pair {
    evaluate::Pair {
        id: id.into(),
        axis: axis.into(),
        severity,
        source: "ExpertQA".into(),
        group_id: format!("g-{id}"),
        family: "none".into(),
        evidence_span: format!("SPAN-MARKER-{id}"),
        context: format!("What did the trial of {id} find?"),
        passage: format!("In the trial of {id}, the drug may reduce symptoms in adults."),
        calibrated_claim: format!("The drug may reduce symptoms in adults ({id})."),
        raised_claim: format!("The drug cures everyone ({id})."),
    }
}

fn requests_of(template: &str, pairs: &[evaluate::Pair]) -> Vec<judge::Request> {
    let t = judge::template(template).unwrap();
    let with: Vec<_> = pairs.iter().map(|p| (p.clone(), p.context.clone())).collect();
    judge::requests(&t, &with, 3)
}

// Broke before: force_aware ended with "The force axis to watch here is: {{axis}}", the pair's
// gold axis, and dummy_axis named an axis derived from it.
#[test]
fn no_shipped_template_shows_the_judge_anything_it_is_scored_against() {
    for (name, ..) in judge::TEMPLATES.iter().filter(|t| t.0 != "pairwise") {
        for (i, axis) in AXES.iter().enumerate() {
            let base = pair(&format!("r{i}"), axis, 1 + (i as i64 % 3));
            let rendered = requests_of(name, std::slice::from_ref(&base));
            // The same row under every other axis and severity asks exactly the same.
            for other in AXES {
                for severity in 1..=3 {
                    let relabelled = evaluate::Pair { axis: other.into(), severity, ..base.clone() };
                    let again = requests_of(name, &[relabelled]);
                    assert_eq!(rendered, again, "{name}: the prompt changed with the gold axis or severity");
                }
            }
            for r in &rendered {
                let text = format!("{}\n{}", r.system.as_deref().unwrap_or(""), r.prompt);
                assert!(!text.contains("SPAN-MARKER"), "{name}: the evidence span reached the prompt");
                let (mine, other) = if r.claim == "safe" {
                    (&base.calibrated_claim, &base.raised_claim)
                } else {
                    (&base.raised_claim, &base.calibrated_claim)
                };
                assert!(
                    text.contains(mine.as_str()) && !text.contains(other.as_str()),
                    "{name}: the other claim leaked"
                );
                for word in ["safe", "raised", "calibrated claim", "force-raised"] {
                    assert!(!text.to_lowercase().contains(word), "{name}: `{word}` tells which claim this is");
                }
                assert!(
                    text.contains(&base.context) && text.contains(&base.passage),
                    "{name}: question and passage shown"
                );
            }
            // The two claims' prompts differ only by the claim: swapping which is raised gives
            // the same prompts.
            let swapped = evaluate::Pair {
                calibrated_claim: base.raised_claim.clone(),
                raised_claim: base.calibrated_claim.clone(),
                ..base.clone()
            };
            let a: BTreeSet<String> = rendered.iter().map(|r| r.prompt.clone()).collect();
            let b: BTreeSet<String> = requests_of(name, &[swapped]).iter().map(|r| r.prompt.clone()).collect();
            assert_eq!(a, b, "{name}: a prompt tells which claim is raised");
        }
    }
}

#[test]
fn shipped_templates_follow_the_papers_structure() {
    let t = |n: &str| judge::template(n).unwrap();
    for name in ["generic", "force_aware", "axis_free", "dummy_axis"] {
        let t = t(name);
        assert!(t.system.as_deref().is_some_and(|s| s.contains("outside knowledge")), "{name}: a system message");
        for part in ["{{question}}", "{{passage}}", "{{claim}}"] {
            assert!(t.user.contains(part), "{name}: {part}");
        }
        let fields: &[&str] = if name == "generic" {
            &["label", "confidence", "rationale"]
        } else {
            &["label", "primary_axis", "severity", "warranted_claim", "rationale"]
        };
        for f in fields {
            assert!(t.user.contains(&format!("\"{f}\"")), "{name}: asks for {f}");
        }
    }
    let generic = t("generic").user;
    for label in ["fully_supported", "partially_supported", "unsupported", "contradicted", "irrelevant"] {
        assert!(generic.contains(label));
    }
    let force = t("force_aware");
    for axis in AXES {
        assert!(force.user.contains(axis), "force_aware lists {axis}");
    }
    // The axis-free control keeps the warrant-strength instruction and no axis word at all.
    let free = t("axis_free");
    let text = format!("{}\n{}", free.system.unwrap(), free.user).to_lowercase();
    for word in AXES.iter().chain(&["causal", "certain", "general", "current", "hedge", "range"]) {
        assert!(!text.contains(word), "axis_free names `{word}`");
    }
    assert!(text.contains("predefined taxonomy"));
    // The dummy control asks about irrelevant rubric dimensions, not force.
    let dummy = t("dummy_axis");
    let text = format!("{}\n{}", dummy.system.unwrap(), dummy.user).to_lowercase();
    for d in ["authority", "clarity", "placed", "completely", "fluency"] {
        assert!(text.contains(d), "dummy_axis: {d}");
    }
    for word in AXES.iter().chain(&["force-calibrated", "strength"]) {
        assert!(!text.contains(word), "dummy_axis names `{word}`");
    }
}

#[test]
fn a_custom_template_asking_for_a_gold_field_or_an_unknown_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "The axis is {{axis}}.\nClaim: {{claim}}",
            "{{axis}} in the user message would show the judge the pair's adjudicated force axis",
        ),
        (
            "[system]\nBe careful.\n[user]\nSpan: {{evidence_span}}\n{{claim}}",
            "{{evidence_span}} in the user message would show the judge the span",
        ),
        (
            "Other: {{raised_claim}}\n{{claim}}",
            "{{raised_claim}} in the user message would show the judge which claim of the pair is the raised one",
        ),
        (
            "Severity {{severity}} {{claim}}",
            "{{severity}} in the user message would show the judge the pair's adjudicated severity",
        ),
        (
            "P: {{pasage}}\nC: {{claim}}",
            "{{pasage}} in the user message matches no field; the placeholders are {{question}}",
        ),
        (
            "[system]\nAbout {{passage}}\n[user]\n{{claim}}",
            "{{passage}} in the system message: the system message is the same for every request",
        ),
        ("Passage: {{passage}}", "no {{claim}}"),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("t{i}.txt"));
        std::fs::write(&path, text).unwrap();
        let err = judge::template(path.to_str().unwrap()).unwrap_err();
        assert_eq!(err.code(), "bad_template", "{text}");
        assert!(err.to_string().contains(expected), "{text}: {err}");
        assert!(err.to_string().starts_with(path.to_str().unwrap()), "the file is named: {err}");
    }
    // Through the command line: refused before anything is sent or stored.
    let (project, p, _) = locked(dir.path());
    drop(p);
    let path = dir.path().join("t0.txt");
    let out = cli(&project)
        .args(["judge", "run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--name", "x", "--template"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("{{axis}}") && stderr.contains("which it is scored against"), "{stderr}");
    let runs = cli(&project).args(["judge", "runs", "--json"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&runs.stdout).trim(), "[]");
}

#[test]
fn every_field_the_prompts_ask_for_is_read() {
    let map = evaluate::LabelMap::named("force").unwrap();
    let a = judge::parse_answer(
        "Here you go:\n```json\n{\"label\": \"force-gap\", \"primary_axis\": \"Modality\", \"severity\": 2, \"warranted_claim\": \"It may help.\", \"rationale\": \"The passage hedges.\"}\n```",
        &map,
    );
    assert_eq!(
        (a.label.as_deref(), a.score, a.primary_axis.as_deref(), a.severity, a.warranted_claim.as_deref()),
        (Some("force_gap"), Some(0.0), Some("modality"), Some(2), Some("It may help."))
    );
    assert_eq!((a.rationale.as_deref(), a.parsed), (Some("The passage hedges."), judge::Parsed::Json));
    let g = judge::parse_answer(
        "{\"label\": \"partially_supported\", \"confidence\": 0.8, \"rationale\": \"x\"}",
        &evaluate::LabelMap::named("generic").unwrap(),
    );
    assert_eq!((g.score, g.confidence), (Some(0.5), Some(0.8)));
    let none = judge::parse_answer("I would rather not say.", &map);
    assert_eq!((none.score, none.parsed), (None, judge::Parsed::Unparsable));
}

// Broke before: an unusable answer was kept at once; the paper asks again first.
#[test]
fn prose_a_refusal_or_broken_json_is_asked_again_and_scored_from_the_retry() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let prose = pairs[0].raised_claim.clone();
    let refusal = pairs[1].raised_claim.clone();
    let broken = pairs[2].calibrated_claim.clone();
    let never = pairs[3].raised_claim.clone();
    let safe: BTreeSet<String> = pairs.iter().map(|p| p.calibrated_claim.clone()).collect();
    let (p0, p1, p2, p3) = (prose.clone(), refusal.clone(), broken.clone(), never.clone());
    let server = Server::start(move |body, n| {
        let (prose, refusal, broken, never) = (&p0, &p1, &p2, &p3);
        let claim = claim_of(body);
        let good = if safe.contains(&claim) { "force_calibrated" } else { "force_gap" };
        let valid = Reply::content(&format!("{{\"label\": \"{good}\", \"primary_axis\": \"scope\"}}"));
        match claim.as_str() {
            c if c == prose.as_str() && n == 0 => Reply::content("The claim overstates the passage, I think."),
            c if c == refusal.as_str() && n == 0 => Reply {
                body: serde_json::json!({ "choices": [{ "message": { "role": "assistant", "content": null, "refusal": "I can't help." } }] })
                    .to_string(),
                ..Reply::status(200)
            },
            c if c == broken.as_str() && n == 0 => Reply::content("{\"label\": \"force_calib"),
            c if c == never.as_str() => Reply::content("Sorry, I cannot assess citations."),
            _ => valid,
        }
    });
    let s = runner::run(&mut p, &options(&server, "retrying"), &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.answered_now, s.unanswered), (20, 0));
    assert_eq!(
        s.answer_retries,
        3 + 2,
        "one more answer for each of three claims, two more for the one that never complies"
    );
    let report = s.report.unwrap();
    let missing: Vec<&str> = report.missing_pairs.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(missing, [pairs[3].id.as_str()], "only the judge that never complied counts as missing");
    assert_eq!((report.overall.violations, report.overall.missing), (1, 1));
    assert!((report.overall.fs.unwrap() - 0.9).abs() < 1e-12, "margin 0 for the missing pair");
    let recorded = runner::requests(&p, "retrying", runner::Control::None).unwrap();
    let of = |claim: &str| {
        let pair = pairs.iter().find(|x| x.raised_claim == claim || x.calibrated_claim == claim).unwrap();
        let which = if pair.raised_claim == claim { "raised" } else { "safe" };
        recorded.iter().find(|r| r.request_id == format!("{}:{which}", pair.id)).unwrap().clone()
    };
    let r = of(&prose);
    assert_eq!(
        (r.answer_attempts, r.rejected_answers.as_slice()),
        (2, ["The claim overstates the passage, I think.".to_string()].as_slice())
    );
    assert!(r.content.unwrap().contains("force_gap"));
    assert_eq!(of(&refusal).answer_attempts, 2);
    assert_eq!(of(&broken).answer_attempts, 2);
    let n = of(&never);
    assert_eq!((n.answer_attempts, n.rejected_answers.len()), (3, 2));
    // The run record holds what Appendix G lists.
    let run = &runner::runs(&p).unwrap()[0];
    assert_eq!(run.parser_version.as_deref(), Some(judge::PARSER_VERSION));
    assert_eq!((run.answer_attempts, run.answer_retries, run.unusable), (Some(3), 5, 1));
    assert_eq!((run.params.max_tokens, run.params.temperature), (Some(1024), 0.0), "the paper's decoding by default");
    assert_eq!(run.template_source.as_deref(), Some("force_aware"));
    // Every request was sent with the system message first, then the user message.
    for seen in server.seen.lock().unwrap().iter() {
        let m = seen.body["messages"].as_array().unwrap();
        assert_eq!((m.len(), m[0]["role"].as_str(), m[1]["role"].as_str()), (2, Some("system"), Some("user")));
        assert_eq!(seen.body["max_tokens"].as_u64(), Some(1024));
    }
}

/// An endpoint playing several judges under several prompts: `violates(model, template, pair)`
/// says whether the judge ties the pair (both claims supported: a violation) or orders it.
fn panel_server(
    pairs: &[evaluate::Pair],
    violates: impl Fn(&str, &str, usize) -> bool + Send + Sync + 'static,
) -> Server {
    let index: BTreeMap<String, (usize, bool)> = pairs
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(p.calibrated_claim.clone(), (i, true)), (p.raised_claim.clone(), (i, false))])
        .collect();
    let violates = Arc::new(violates);
    Server::start(move |body: &Value, _| {
        let model = body["model"].as_str().unwrap();
        let system = body["messages"][0]["content"].as_str().unwrap_or("");
        let template = if system.starts_with("You judge whether a cited passage supports") {
            "generic"
        } else if system.starts_with("You judge evidence-force calibration") {
            "force_aware"
        } else if system.starts_with("You judge whether a cited passage warrants") {
            "axis_free"
        } else {
            "dummy_axis"
        };
        let (i, safe) = index[&claim_of(body)];
        let supported = safe || violates(model, template, i);
        let label = match (template, supported) {
            ("generic", true) => "fully_supported",
            ("generic", false) => "unsupported",
            (_, true) => "force_calibrated",
            (_, false) => "force_gap",
        };
        assert!(!user_message(body).is_empty());
        Reply::content(&format!("{{\"label\": \"{label}\", \"rationale\": \"scripted\"}}"))
    })
}

fn eval_198(dir: &std::path::Path) -> (std::path::PathBuf, Vec<evaluate::Pair>) {
    let mut p = crate::split::project_from(
        dir,
        "battery.forcebench",
        &[("relation", 40), ("modality", 40), ("scope", 40), ("temporal", 39), ("numeric", 39)],
        0,
        1,
    );
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(40), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    let (_, pairs) = evaluate::eval_pairs(&p).unwrap();
    assert_eq!(pairs.len(), 198);
    (dir.join("battery.forcebench"), pairs)
}

// The paper's Table 2: four judges over the same 198 pairs pool to 374/792 violations under the
// generic prompt and 194/792 under the force-aware one.
#[test]
fn the_battery_reproduces_the_papers_pooled_counts_through_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (project, pairs) = eval_198(dir.path());
    let models = ["gpt-5.5", "claude-sonnet-4-6", "glm-5.1", "qwen3.6-flash"];
    // Violations per model: generic 94+94+93+93 = 374, force_aware 49+49+48+48 = 194,
    // axis_free 48+49+48+49 = 194, dummy_axis 101+101+101+100 = 403.
    let quota: BTreeMap<(&str, &str), usize> = models
        .iter()
        .enumerate()
        .flat_map(|(m, model)| {
            [
                ((*model, "generic"), [94, 94, 93, 93][m]),
                ((*model, "force_aware"), [49, 49, 48, 48][m]),
                ((*model, "axis_free"), [48, 49, 48, 49][m]),
                ((*model, "dummy_axis"), [101, 101, 101, 100][m]),
            ]
        })
        .collect();
    let owned: BTreeMap<(String, String), usize> =
        quota.iter().map(|((m, t), n)| ((m.to_string(), t.to_string()), *n)).collect();
    // Model m violates the pairs m*17 .. m*17+quota (mod 198): overlapping but not equal sets.
    let server = panel_server(&pairs, move |model, template, i| {
        let m = ["gpt-5.5", "claude-sonnet-4-6", "glm-5.1", "qwen3.6-flash"].iter().position(|x| *x == model).unwrap();
        let n = owned[&(model.to_string(), template.to_string())];
        (i + 198 - m * 17) % 198 < n
    });
    let out_dir = dir.path().join("report");
    let out = cli(&project)
        .args(["judge", "battery", "--base-url", &server.base_url, "--models", &models.join(","), "--out"])
        .arg(&out_dir)
        .args(["--concurrency", "8", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table2: Value = serde_json::from_slice(&std::fs::read(out_dir.join("table2.json")).unwrap()).unwrap();
    let rows: Vec<(String, u64, u64)> = table2
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["prompt"].as_str().unwrap().to_string(), r["violations"].as_u64().unwrap(), r["units"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(rows, [("Generic support".to_string(), 374, 792), ("Axis-list force-aware".to_string(), 194, 792)]);
    let generic = &table2[0];
    assert!((generic["mvr"].as_f64().unwrap() - 374.0 / 792.0).abs() < 1e-12);
    let t3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    let lines: Vec<&str> = t3.lines().collect();
    assert_eq!(lines[0], "evaluator,prompt,violations,units,unanswered,mvr,mvr_low,mvr_high,fs,fs_low,fs_high");
    assert!(lines[1].starts_with("Model aggregate,Generic support,374,792,0,0.472,"), "{}", lines[1]);
    assert!(lines[2].starts_with("Model aggregate,Minimal axis-free force,194,792,0,0.245,"), "{}", lines[2]);
    assert!(lines[3].starts_with("Model aggregate,Axis-list force-aware,194,792,0,0.245,"), "{}", lines[3]);
    assert!(lines[4].starts_with("Model aggregate,Dummy-axis control,403,792,0,0.509,"), "{}", lines[4]);
    let grid = std::fs::read_to_string(out_dir.join("figure3_grid.csv")).unwrap();
    assert_eq!(grid.lines().count(), 1 + 16, "four models × four prompts");
    assert!(grid.contains("gpt-5.5,generic,gpt-5.5@generic,198,94,0,0.475,"), "{grid}");
    for f in ["figure2_mvr_fs.svg", "figure3_grid.svg", "figure4_mvr_by_axis.svg", "report.json", "table2.csv"] {
        assert!(out_dir.join(f).exists(), "{f}");
    }
    // The pooled figure through `evaluate panel`, and the same four judges compared across prompts.
    let panel = cli(&project)
        .args(["evaluate", "panel"])
        .args(models.iter().map(|m| format!("{m}@generic")))
        .arg("--json")
        .output()
        .unwrap();
    let panel: Value = serde_json::from_slice(&panel.stdout).unwrap();
    assert_eq!((panel["violations"].as_u64(), panel["units"].as_u64()), (Some(374), Some(792)));
    let [lo, hi] = [0, 1].map(|i| panel["mvr_ci95"][i].as_f64().unwrap());
    assert!(lo < 374.0 / 792.0 && 374.0 / 792.0 < hi && hi - lo < 0.2, "{lo} {hi}");
    // Running it again sends nothing: every cell resumes as complete.
    let sent = server.prompts().len();
    assert_eq!(sent, 16 * 396);
    let again = cli(&project)
        .args(["judge", "battery", "--base-url", &server.base_url, "--models", &models.join(","), "--force", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(server.prompts().len(), sent);
}

/// McNemar's exact test and the paired bootstrap, computed here independently of the tool.
#[test]
fn a_paired_comparison_matches_an_independent_computation() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    // Judge A violates pairs 0-5, judge B violates pairs 4-5 only: discordant 4 and 0.
    let server = panel_server(&pairs, |model, _, i| if model == "a" { i < 6 } else { (4..6).contains(&i) });
    for model in ["a", "b"] {
        let out = cli(&project)
            .args(["judge", "run", "--base-url", &server.base_url, "--model", model, "--template", "force_aware"])
            .args(["--name", model, "--retry-wait-ms", "10"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = cli(&project).args(["evaluate", "paired", "a", "b", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        [&r["only_a_violates"], &r["only_b_violates"], &r["both_violate"], &r["neither_violates"]]
            .map(|v| v.as_u64().unwrap()),
        [4, 0, 2, 4]
    );
    // Exact binomial, two-sided, by hand: 2 × P(X = 0 | n = 4, 1/2) = 2/16.
    assert!((r["mcnemar_p"].as_f64().unwrap() - 0.125).abs() < 1e-12);
    assert!((r["delta_mvr"].as_f64().unwrap() - 0.4).abs() < 1e-12);
    assert!((r["delta_fs"].as_f64().unwrap() + 0.4).abs() < 1e-12);
    // The paired bootstrap, reimplemented: the same SplitMix64 draws over pairs, percentile ends.
    let diffs: Vec<f64> = (0..10).map(|i| if i < 4 { 1.0 } else { 0.0 }).collect();
    let mut rng = SplitMix64(evaluate::BOOTSTRAP_SEED);
    let mut reps: Vec<f64> = (0..evaluate::BOOTSTRAP_REPS)
        .map(|_| (0..10).map(|_| diffs[(rng.next() % 10) as usize]).sum::<f64>() / 10.0)
        .collect();
    reps.sort_by(f64::total_cmp);
    let at = |q: f64| reps[((reps.len() - 1) as f64 * q).round() as usize];
    assert_eq!(
        [r["delta_mvr_ci95"][0].as_f64().unwrap(), r["delta_mvr_ci95"][1].as_f64().unwrap()],
        [at(0.025), at(0.975)]
    );
    // Sides of different sizes, and an unknown name, are refused with their codes.
    let bad = cli(&project).args(["evaluate", "paired", "a,b", "b"]).output().unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("side A has 2 evaluator(s) and side B 1"));
    let bad = cli(&project).args(["evaluate", "paired", "a", "nobody"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("no evaluator named `nobody` is scored on locked split"), "{stderr}");
}

/// SplitMix64 (Steele, Lea and Flood 2014), written out here from its published constants.
struct SplitMix64(u64);
impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

// Broke before: a run against a dead endpoint was stored as an evaluator with MVR 1.000, `--limit`
// exited 0 when every request failed, and an evaluator could not be removed.
#[test]
fn a_run_that_never_answered_is_not_scored_and_an_evaluator_can_be_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let down = Server::start(|_, _| Reply::status(503));
    let out = cli(&project)
        .args(["judge", "run", "--base-url", &down.base_url, "--model", "m", "--template", "generic", "--name", "dead"])
        .args(["--attempts", "2", "--retry-wait-ms", "1", "--limit", "3"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "every request failed: not a success");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("none of the 3 request(s) sent was answered"), "{stderr}");
    let listed = cli(&project).args(["evaluate", "--json", "--bootstrap", "0"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "[]", "no evaluator stored for a dead run");

    let server = panel_server(&pairs, |_, _, i| i == 0);
    let out = cli(&project)
        .args([
            "judge",
            "run",
            "--base-url",
            &server.base_url,
            "--model",
            "m",
            "--template",
            "generic",
            "--name",
            "live",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let removed = cli(&project).args(["evaluate", "remove", "live"]).output().unwrap();
    assert!(removed.status.success());
    assert_eq!(
        String::from_utf8_lossy(&removed.stdout).trim(),
        "removed live and 1 judge run(s) stored under its name"
    );
    let listed = cli(&project).args(["evaluate", "--json", "--bootstrap", "0"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout).trim(), "[]");
    let again = cli(&project).args(["evaluate", "remove", "live"]).output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("no evaluator or judge run named `live`"));
}
