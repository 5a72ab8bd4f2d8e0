//! Judges run from the tool (`judge run`) against a scripted OpenAI-compatible server that the
//! tests start on 127.0.0.1 (never any other address): scores end to end, retries, timeouts,
//! malformed answers and refusals, runs killed anywhere and resumed, the API key kept out of
//! every file and output, and the trust controls.

use forcebench::evaluate::{self, runner, trust};
use forcebench::Project;
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

// The scripted server is shared with the shell's and the window's tests.
pub use forcebench_test_support::openai::{user_message, Reply, Seen, Server};

/// The claim a force_aware prompt asks about (its `Claim: ` line).
pub fn claim_of(body: &Value) -> String {
    let prompt = user_message(body);
    prompt.lines().find_map(|l| l.strip_prefix("Claim: ")).unwrap().to_string()
}

/// A project with a locked split of ten evaluation pairs (one group each), and its pairs.
pub fn locked(dir: &Path) -> (PathBuf, Project, Vec<evaluate::Pair>) {
    let mut p = crate::split::project_from(dir, "judge.forcebench", &[("scope", 5), ("numeric", 5)], 0, 1);
    forcebench::split::draft(&mut p, &forcebench::split::SplitParams::new(Default::default(), Some(5), Some(1)))
        .unwrap();
    forcebench::split::lock(&mut p).unwrap();
    let (_, pairs) = evaluate::eval_pairs(&p).unwrap();
    assert_eq!(pairs.len(), 10);
    (dir.join("judge.forcebench"), p, pairs)
}

/// A judge that licenses every calibrated claim and refuses every raised one, except the raised
/// claims in `lenient`, which it also licenses (a tie: a violation).
pub fn judge_script(pairs: &[evaluate::Pair], lenient: &[&str]) -> impl Fn(&Value, usize) -> Reply + Send + Sync {
    let safe: BTreeSet<String> = pairs.iter().map(|p| p.calibrated_claim.clone()).collect();
    let lenient: BTreeSet<String> =
        pairs.iter().filter(|p| lenient.contains(&p.id.as_str())).map(|p| p.raised_claim.clone()).collect();
    move |body, _| {
        let claim = claim_of(body);
        let label = if safe.contains(&claim) || lenient.contains(&claim) { "force_calibrated" } else { "force_gap" };
        Reply::content(&format!("{{\"label\": \"{label}\", \"reason\": \"scripted\"}}"))
    }
}

pub fn options(server: &Server, name: &str) -> runner::RunOptions {
    let mut o = runner::RunOptions::new(name, &server.base_url, "scripted-model", "force_aware");
    o.retry_wait = Duration::from_millis(10);
    o.timeout = Duration::from_secs(10);
    o
}

pub fn no_progress() -> impl FnMut(&runner::RunProgress) {
    |_| {}
}

#[test]
fn a_judge_run_scores_end_to_end_and_records_what_was_asked_of_which_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let lenient: Vec<&str> = pairs.iter().take(3).map(|p| p.id.as_str()).collect();
    let server = Server::start(judge_script(&pairs, &lenient));
    let mut opts = options(&server, "scripted judge");
    opts.sampling.seed = Some(7);
    opts.sampling.max_tokens = Some(64);
    let s = runner::run(&mut p, &opts, &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.requests, s.answered_now, s.answered_before, s.unanswered), (20, 20, 0, 0));
    // By hand: three ties among ten pairs; the other seven have margin 1.
    let m = &s.report.as_ref().unwrap().overall;
    assert_eq!((m.n_pairs, m.violations, m.missing), (10, 3, 0));
    assert!((m.mvr.unwrap() - 0.3).abs() < 1e-12 && (m.fs.unwrap() - 0.7).abs() < 1e-12, "{m:?}");
    // Stored as an evaluator like any other.
    let compared = evaluate::compare(&p, None).unwrap();
    assert_eq!(compared.iter().find(|r| r.name == "scripted judge").unwrap().overall.mvr, m.mvr);

    // What was asked of which model, exactly.
    let runs = runner::runs(&p).unwrap();
    let template = evaluate::judge::TEMPLATES.iter().find(|t| t.0 == "force_aware").unwrap().1;
    use sha2::Digest;
    assert_eq!(runs[0].template_sha256, hex::encode(sha2::Sha256::digest(template.as_bytes())));
    assert_eq!((runs[0].model.as_str(), runs[0].base_url.as_str()), ("scripted-model", server.base_url.as_str()));
    assert_eq!((runs[0].params.seed, runs[0].params.max_tokens, runs[0].params.temperature), (Some(7), Some(64), 0.0));
    let recorded = runner::requests(&p, "scripted judge", runner::Control::None).unwrap();
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 20, "each request sent once");
    for r in &recorded {
        let sent: Vec<&Seen> = seen.iter().filter(|s| user_message(&s.body) == r.prompt.as_str()).collect();
        assert_eq!(sent.len(), 1, "{}", r.request_id);
        let b = &sent[0].body;
        assert_eq!(
            (b["model"].as_str(), b["seed"].as_u64(), b["max_tokens"].as_u64()),
            (Some("scripted-model"), Some(7), Some(64))
        );
        assert_eq!(b["temperature"].as_f64(), Some(0.0));
        assert!(r.sent_at.is_some() && r.answered_at.is_some() && r.http_status == Some(200));
        assert!(r.raw_response.as_deref().unwrap().contains("\"chat.completion\""), "the raw body is kept");
    }
}

// Broke if a retryable failure lost the request, or a malformed answer was sent again.
#[test]
fn rate_limits_server_errors_and_a_slow_answer_are_retried_and_bad_answers_count_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let normal = judge_script(&pairs, &[]);
    let [limited, failing, slow, malformed, refused] = [0, 1, 2, 3, 4].map(|i| pairs[i].calibrated_claim.clone());
    let script = {
        let (limited, failing, slow, malformed, refused) =
            (limited.clone(), failing.clone(), slow.clone(), malformed.clone(), refused.clone());
        move |body: &Value, n: usize| {
            let claim = claim_of(body);
            match (claim.as_str(), n) {
                (c, 0) if c == limited => Reply { retry_after: Some(0), ..Reply::status(429) },
                (c, 0 | 1) if c == failing => Reply::status(if n == 0 { 500 } else { 503 }),
                (c, 0) if c == slow => Reply { delay: Duration::from_millis(1500), ..normal(body, n) },
                (c, _) if c == malformed => Reply { body: "{\"choices\": [ not json".into(), ..Reply::status(200) },
                (c, _) if c == refused => Reply {
                    body: json!({ "choices": [{ "message": { "role": "assistant", "content": null, "refusal": "I cannot judge this." } }] })
                        .to_string(),
                    ..Reply::status(200)
                },
                _ => normal(body, n),
            }
        }
    };
    let server = Server::start(script);
    let mut opts = options(&server, "flaky");
    opts.timeout = Duration::from_millis(500);
    let s = runner::run(&mut p, &opts, &mut no_progress(), &AtomicBool::new(false)).unwrap();
    // A 200 whose body is not a chat completion is not an answer: it is retried as a transport
    // failure (five tries by default) and then left unanswered, never scored as a violation.
    assert_eq!((s.answered_now, s.unanswered), (19, 1), "{:?}", s.failures);
    assert_eq!(s.retries, 4 + 4, "one 429, two 5xx, one timeout, and four more tries of the body that is no answer");
    let sends = |claim: &str| server.prompts().iter().filter(|pr| pr.contains(&format!("Claim: {claim}\n"))).count();
    assert_eq!((sends(&limited), sends(&failing), sends(&slow)), (2, 3, 2));
    assert_eq!(sends(&malformed), 5, "a body that is no answer is tried again like a server error");
    // As the paper does: an answer with no usable verdict is asked for again (three answers in
    // all by default) before the claim counts as missing.
    assert_eq!(sends(&refused), 3, "an unusable answer is asked for again, then given up");
    assert_eq!(s.answer_retries, 2, "two more answers for the refused claim");
    let report = s.report.unwrap();
    let missing: BTreeSet<&str> = report.missing_pairs.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(missing, BTreeSet::from([pairs[4].id.as_str()]));
    assert_eq!((report.overall.unanswered, report.overall.missing, report.overall.n_pairs), (1, 1, 9));
    assert_eq!(
        (
            report.completeness.requests,
            report.completeness.answered,
            report.completeness.unusable,
            report.completeness.unanswered
        ),
        (20, 18, 1, 1)
    );
    assert_eq!(s.stats.unwrap().unparsable.len(), 1);
    let recorded = runner::requests(&p, "flaky", runner::Control::None).unwrap();
    let bad = recorded.iter().find(|r| r.request_id == format!("{}:safe", pairs[3].id)).unwrap();
    assert_eq!((bad.raw_response.as_deref(), bad.answered_at.as_deref(), bad.attempts), (None, None, 5));
    assert!(
        bad.last_error.as_deref().unwrap().contains("HTTP 200, but not an answer: the body is not JSON"),
        "{bad:?}"
    );
}

// Broke if a connection that drops (before any answer, or in the middle of one) stopped the run or
// lost the request: both are retried like a server error, and the run completes.
#[test]
fn a_connection_dropped_before_or_during_an_answer_is_retried() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let normal = judge_script(&pairs, &[]);
    let [closed, halfway] = [0, 1].map(|i| pairs[i].raised_claim.clone());
    let script = {
        let (closed, halfway) = (closed.clone(), halfway.clone());
        move |body: &Value, n: usize| {
            let claim = claim_of(body);
            match (claim.as_str(), n) {
                (c, 0) if c == closed => Reply { cut: Some(0), ..normal(body, n) },
                (c, 0) if c == halfway => Reply { cut: Some(80), ..normal(body, n) },
                _ => normal(body, n),
            }
        }
    };
    let server = Server::start(script);
    let s = runner::run(&mut p, &options(&server, "dropped"), &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.answered_now, s.unanswered, s.retries), (20, 0, 2), "{:?}", s.failures);
    let sends = |claim: &str| server.prompts().iter().filter(|pr| pr.contains(&format!("Claim: {claim}\n"))).count();
    assert_eq!((sends(&closed), sends(&halfway)), (2, 2));
    assert!(s.report.unwrap().missing_pairs.is_empty());
}

#[test]
fn a_request_failing_every_try_is_left_for_the_next_run_and_a_wrong_model_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let down = pairs[0].raised_claim.clone();
    let normal = judge_script(&pairs, &[]);
    let server =
        Server::start(move |body, n| if claim_of(body) == down { Reply::status(502) } else { normal(body, n) });
    let mut opts = options(&server, "patchy");
    opts.max_attempts = 3;
    let s = runner::run(&mut p, &opts, &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.answered_now, s.unanswered), (19, 1));
    assert_eq!(s.failures.len(), 1);
    assert!(s.failures[0].1.starts_with("HTTP 502: {\"error\":\"scripted\"} (after 3 attempts)"), "{:?}", s.failures);

    let refusing =
        Server::start(|_, _| Reply { body: "{\"error\":\"model `x` not found\"}".into(), ..Reply::status(404) });
    let dir2 = tempfile::tempdir().unwrap();
    let (_, mut q, _) = locked(dir2.path());
    let Err(err) = runner::run(&mut q, &options(&refusing, "nowhere"), &mut no_progress(), &AtomicBool::new(false))
    else {
        panic!("refused")
    };
    assert_eq!(err.code(), "endpoint_refused");
    assert!(
        err.to_string().starts_with(
            "the endpoint refused the request: HTTP 404: {\"error\":\"model `x` not found\"} (check --base-url, which usually ends in /v1, and --model)"
        ),
        "{err}"
    );
    // Four workers: each may have had one request in flight when the first refusal came back.
    assert!(refusing.prompts().len() <= 8, "stopped at once, not after every request: {}", refusing.prompts().len());
}

/// The `forcebench` command for a project, with the test's environment.
pub fn cli(project: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("forcebench"));
    cmd.env_remove("FORCEBENCH_PROJECT").env_remove("FORCEBENCH_CRASH_AT").arg("--project").arg(project);
    cmd
}

fn run_args(server: &Server, concurrency: &str) -> Vec<String> {
    [
        "judge",
        "run",
        "--base-url",
        &server.base_url,
        "--model",
        "scripted-model",
        "--template",
        "force_aware",
        "--name",
        "resumed",
        "--concurrency",
        concurrency,
        "--retry-wait-ms",
        "10",
    ]
    .map(String::from)
    .to_vec()
}

fn answered(project: &Path) -> BTreeSet<String> {
    let p = Project::open(project).unwrap();
    runner::requests(&p, "resumed", runner::Control::None)
        .map(|rs| rs.into_iter().filter(|r| r.answered_at.is_some()).map(|r| r.request_id).collect())
        .unwrap_or_default()
}

// Broke if a kill lost a committed answer, or a resumed run sent an answered request again.
#[test]
fn a_run_killed_at_any_point_resumes_with_exactly_one_answer_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let (path, p, pairs) = locked(dir.path());
    drop(p);
    let normal = judge_script(&pairs, &[]);
    let server = Server::start(move |body, n| Reply { delay: Duration::from_millis(40), ..normal(body, n) });
    // Request id of each prompt, to tell what the server was asked after each kill.
    let prompt_ids: HashMap<String, String> = {
        let p = Project::open(&path).unwrap();
        let o = options(&server, "probe");
        let t = evaluate::judge::template(&o.template).unwrap();
        let with: Vec<_> = pairs.iter().map(|x| (x.clone(), x.context.clone())).collect();
        drop(p);
        evaluate::judge::requests(&t, &with, 1).into_iter().map(|r| (r.prompt, r.request_id)).collect()
    };
    // First: a kill right after an answer is committed (the worst instant for a double send).
    let out =
        cli(&path).args(run_args(&server, "1")).env("FORCEBENCH_CRASH_AT", "judge-after-answer").output().unwrap();
    assert!(!out.status.success());
    assert_eq!(answered(&path).len(), 1);
    // Then kill -9 at seeded random moments until the run completes.
    let mut state = 12345u64;
    let mut kills = 0;
    for _ in 0..40 {
        let before = answered(&path);
        let asked_before = server.prompts().len();
        if before.len() == 20 {
            break;
        }
        let mut child = cli(&path)
            .args(run_args(&server, "3"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis(30 + (state >> 33) % 120));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        for prompt in &server.prompts()[asked_before..] {
            assert!(
                !before.contains(&prompt_ids[prompt]),
                "{} was answered before this run yet sent again",
                prompt_ids[prompt]
            );
        }
    }
    assert!(kills >= 2, "the runs were interrupted ({kills} kills)");
    let ok = cli(&path).args(run_args(&server, "3")).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let p = Project::open(&path).unwrap();
    let recorded = runner::requests(&p, "resumed", runner::Control::None).unwrap();
    assert_eq!(recorded.len(), 20);
    assert!(recorded.iter().all(|r| r.answered_at.is_some() && r.content.is_some()));
    let outputs: i64 = p.conn().query_row("SELECT count(*) FROM evaluator_outputs", [], |r| r.get(0)).unwrap();
    assert_eq!(outputs, 20, "exactly one output per request");
    let report = evaluate::compare(&p, None).unwrap();
    assert_eq!(report[0].overall.mvr, Some(0.0));
}

// Broke if the key reached the project, the audit file, a message or the output.
#[test]
fn the_api_key_is_sent_as_a_bearer_token_and_appears_nowhere_else() {
    const KEY: &str = "sk-test-3f9a1c77e0b24d55-secret";
    let dir = tempfile::tempdir().unwrap();
    let (path, p, pairs) = locked(dir.path());
    drop(p);
    let normal = judge_script(&pairs, &[]);
    let server = Server::start(normal);
    let mut args = run_args(&server, "2");
    args.extend(["--api-key-env".into(), "FORCEBENCH_TEST_KEY".into(), "--json".into()]);
    let missing = cli(&path).args(&args).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr).trim(),
        "error [invalid_argument]: the environment variable FORCEBENCH_TEST_KEY (named by --api-key-env) is not set; export the API key in it"
    );
    let out = cli(&path).args(&args).env("FORCEBENCH_TEST_KEY", KEY).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(server.seen.lock().unwrap().iter().all(|s| s.auth.as_deref() == Some(&format!("Bearer {KEY}")[..])));
    let audit = dir.path().join("requests.jsonl");
    let runs = cli(&path).args(["judge", "runs", "--json"]).output().unwrap();
    let req = cli(&path).args(["judge", "requests", "resumed", "--out"]).arg(&audit).output().unwrap();
    assert!(req.status.success());
    let mut everything = Vec::new();
    for o in [&out, &runs, &req] {
        everything.extend_from_slice(&o.stdout);
        everything.extend_from_slice(&o.stderr);
    }
    everything.extend(std::fs::read(&audit).unwrap());
    drop(Project::open(&path).unwrap()); // checkpoints the WAL into the file
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            everything.extend(std::fs::read(entry.path()).unwrap());
        }
    }
    let text = String::from_utf8_lossy(&everything);
    assert!(!text.contains(KEY) && !text.contains("3f9a1c77e0b24d55"), "the key leaked");
    assert!(String::from_utf8_lossy(&runs.stdout).contains("\"api_key_env\": \"FORCEBENCH_TEST_KEY\""));
}

#[test]
fn the_trust_report_reads_agreement_the_evidence_swap_and_order_bias() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let lenient: Vec<&str> = pairs.iter().take(3).map(|p| p.id.as_str()).collect();
    // A judge that supports a claim only against the passage it was made from, licenses three
    // raised claims as well, and always picks position A in a pairwise prompt.
    let own: HashMap<String, String> = pairs
        .iter()
        .flat_map(|p| [(p.calibrated_claim.clone(), p.passage.clone()), (p.raised_claim.clone(), p.passage.clone())])
        .collect();
    let script = judge_script(&pairs, &lenient);
    let server = Server::start(move |body, n| {
        let prompt = user_message(body);
        if prompt.contains("Claim A: ") {
            return Reply::content("{\"better\": \"A\", \"reason\": \"first\"}");
        }
        if !prompt.contains(own[&claim_of(body)].as_str()) {
            return Reply::content("{\"label\": \"irrelevant\"}");
        }
        script(body, n)
    });
    let cancel = AtomicBool::new(false);
    runner::run(&mut p, &options(&server, "j"), &mut no_progress(), &cancel).unwrap();
    let Err(err) = trust::trust(&p, "nobody") else { panic!("no run named nobody") };
    assert_eq!(err.code(), "no_judge_run", "{err}");
    let t = trust::trust(&p, "j").unwrap();
    let h = t.human_agreement.unwrap();
    // By hand: the humans call 10 claims supported and 10 not; the judge supports 10 + 3.
    // p_o = 17/20, p_e = 0.5 * 0.65 + 0.5 * 0.35 = 0.5, kappa = (0.85 - 0.5) / 0.5 = 0.7.
    assert_eq!(h.claims, 20);
    assert!((h.overall.cohen_kappa.unwrap() - 0.7).abs() < 1e-12, "{:?}", h.overall);
    assert_eq!(h.per_axis.keys().map(String::as_str).collect::<Vec<_>>(), ["numeric", "scope"]);
    assert!(t.swapped_evidence.is_none() && t.order.is_none());

    let mut swap = options(&server, "j");
    swap.control = runner::Control::SwappedEvidence;
    runner::run(&mut p, &swap, &mut no_progress(), &cancel).unwrap();
    let mut order = options(&server, "j");
    order.control = runner::Control::Order;
    order.template = "pairwise".into();
    runner::run(&mut p, &order, &mut no_progress(), &cancel).unwrap();
    let t = trust::trust(&p, "j").unwrap();
    let s = t.swapped_evidence.unwrap();
    assert_eq!(
        (s.pairs, s.safe_own, s.safe_swapped, s.support_drop, s.still_supported),
        (10, Some(1.0), Some(0.0), Some(1.0), Some(0.0))
    );
    let o = t.order.unwrap();
    assert_eq!((o.pairs, o.position_bias, o.picks_calibrated), (10, Some(1.0), Some(0.5)));
    // Under the swap no claim was shown its own passage.
    let swapped = runner::requests(&p, "j", runner::Control::SwappedEvidence).unwrap();
    for r in &swapped {
        let id = r.request_id.rsplit_once(':').unwrap().0;
        let pair = pairs.iter().find(|x| x.id == id).unwrap();
        assert!(!r.prompt.contains(&pair.passage), "{id} kept its own passage");
    }
    // A control is not an evaluator: only the judge itself is scored.
    assert_eq!(evaluate::compare(&p, None).unwrap().iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["j"]);
}

#[test]
fn a_resumed_run_must_ask_the_same_of_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut p, pairs) = locked(dir.path());
    let server = Server::start(judge_script(&pairs, &[]));
    let mut opts = options(&server, "careful");
    opts.limit = Some(4);
    let s = runner::run(&mut p, &opts, &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.answered_now, s.unanswered), (4, 16));
    let mut other = options(&server, "careful");
    other.model = "another-model".into();
    let Err(err) = runner::run(&mut p, &other, &mut no_progress(), &AtomicBool::new(false)) else { panic!("refused") };
    assert_eq!(
        err.to_string(),
        "a judge run named `careful` (none) already exists on this split with model scripted-model; resume it with the same settings, or give this run another --name"
    );
    assert_eq!(err.code(), "judge_run_differs");
    let s = runner::run(&mut p, &options(&server, "careful"), &mut no_progress(), &AtomicBool::new(false)).unwrap();
    assert_eq!((s.answered_before, s.answered_now, s.unanswered), (4, 16, 0));
    assert_eq!(server.prompts().len(), 20);
}
