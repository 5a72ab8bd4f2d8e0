//! Drafting with a model: the scripted OpenAI-compatible server plays the drafting model.

use crate::common::*;
use assert_cmd::Command;
use forcebench::contexts::{self, draft, ContextStage, ScreenDecision};
use forcebench::drafting::{self, DraftRunOptions};
use forcebench_test_support::openai::{user_message, Reply, Server};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const PASSAGE: &str = "In a trial of 120 adults, the drug may reduce pain, the authors said.";

/// A good answer for the context whose prompt this is, wrapped in prose and a code fence as
/// models often do.
fn answer() -> String {
    "Here is the pair:\n```json\n{\"evidence_span\": \"may reduce pain\", \"calibrated_claim\": \"The drug may reduce pain in adults.\", \"raised_claim\": \"The drug reduces pain in adults.\", \"axis\": \"modality\", \"severity\": 2, \"repair\": \"The drug may reduce pain.\", \"rationale\": \"The passage hedges.\"}\n```".into()
}

/// A project with contexts c1..cN kept.
fn kept(n: usize) -> (tempfile::TempDir, std::path::PathBuf, forcebench::Project) {
    let (dir, path, mut project) = temp_project();
    let mut csv = String::from("id,source_dataset,source_id,context,passage\n");
    for i in 1..=n {
        csv.push_str(&format!("c{i},ExpertQA,e{i},Question {i}?,\"{PASSAGE}\"\n"));
    }
    let file = write(dir.path(), "contexts.csv", csv);
    contexts::import_file(&mut project, &file, &mut |_, _| {}).unwrap();
    for i in 1..=n {
        contexts::screen(&mut project, &format!("c{i}"), ScreenDecision::Keep, None, None, "lee").unwrap();
    }
    (dir, path, project)
}

fn opts(server: &Server, name: &str) -> DraftRunOptions {
    let mut o = DraftRunOptions::new(name, &server.base_url, "drafter-1");
    o.retry_wait = Duration::from_millis(5);
    o.max_attempts = 3;
    o
}

#[test]
fn each_answer_becomes_a_model_draft_and_is_kept_raw_with_its_prompt() {
    let (_dir, _, mut project) = kept(3);
    // c2's answer holds no usable JSON; c3's first try is a 503 (retried).
    let server = Server::start(|body, n| {
        let prompt = user_message(body);
        if prompt.contains("Question 2?") {
            Reply::content("I cannot help with that.")
        } else if prompt.contains("Question 3?") && n == 0 {
            Reply::status(503)
        } else {
            Reply::content(&answer())
        }
    });
    let cancel = AtomicBool::new(false);
    let s = drafting::run(&mut project, &opts(&server, "run-a"), &mut |_, _| {}, &cancel).unwrap();
    assert_eq!((s.requests, s.answered_now, s.drafted, s.unanswered), (3, 3, 2, 0));
    assert_eq!(s.unusable.len(), 1);
    assert_eq!(s.unusable[0].0, "c2");
    // The prompt sent is the shipped one, filled with the context.
    let prompts = server.prompts();
    assert!(prompts[0].contains("Context: Question 1?") && prompts[0].contains(&format!("Passage: {PASSAGE}")));
    assert!(prompts[0].starts_with("You are helping build a benchmark"));
    let body = &server.seen.lock().unwrap()[0].body;
    assert_eq!(
        (body["model"].as_str(), body["temperature"].as_f64(), body["max_tokens"].as_u64()),
        (Some("drafter-1"), Some(0.0), Some(1024))
    );

    let d = draft::history(&project, "c1").unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].origin, d[0].author.as_str(), d[0].run.as_deref()),
        (draft::DraftOrigin::Model, "drafter-1", Some("run-a"))
    );
    assert_eq!(d[0].fields.severity.as_deref(), Some("2"));
    assert_eq!(d[0].fields.evidence_span.as_deref(), Some("may reduce pain"));
    assert_eq!(contexts::get(&project, "c2").unwrap().stage, ContextStage::Kept, "no draft from an unusable answer");
    // Every answer is kept as it came, with the run's model and prompt hash.
    let (raw, why, sha, attempts): (String, Option<String>, String, i64) = project
        .conn()
        .query_row(
            "SELECT q.raw_response, q.last_error, r.prompt_sha256, q.attempts FROM draft_requests q JOIN draft_runs r ON r.id = q.run_id WHERE q.context_id = 'c2'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert!(raw.contains("I cannot help with that."));
    assert_eq!(why.as_deref(), Some("the answer holds no JSON object"));
    use sha2::Digest;
    assert_eq!(sha, hex::encode(sha2::Sha256::digest(drafting::DRAFTING_PROMPT.as_bytes())));
    assert_eq!(attempts, 1);
    let c3_attempts: i64 = project
        .conn()
        .query_row("SELECT attempts FROM draft_requests WHERE context_id = 'c3'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(c3_attempts, 2, "the 503 was retried");

    // The model's draft may be promoted as it is: its construction family says so.
    draft::promote(&mut project, &["c1".into()], false, "lee").unwrap();
    let c = forcebench::candidate::get(&project, "c1").unwrap();
    assert_eq!(c.candidate.construction_family.as_deref(), Some("model"));
}

#[test]
fn a_run_resumes_without_asking_twice_and_refuses_other_settings() {
    let (dir, _, mut project) = kept(4);
    let server = Server::start(|_, _| Reply::content(&answer()));
    let cancel = AtomicBool::new(false);
    let mut o = opts(&server, "run-b");
    o.limit = Some(2);
    let s = drafting::run(&mut project, &o, &mut |_, _| {}, &cancel).unwrap();
    assert_eq!((s.answered_now, s.unanswered), (2, 2));
    // A person drafts c3 meanwhile: the resumed run does not overwrite it.
    draft::set(&mut project, "c3", "calibrated_claim", "Mine.", "dana").unwrap();
    o.limit = None;
    let s = drafting::run(&mut project, &o, &mut |_, _| {}, &cancel).unwrap();
    assert_eq!((s.answered_before, s.answered_now, s.unanswered), (2, 1, 0));
    assert_eq!(s.skipped, vec!["c3"]);
    assert_eq!(server.prompts().len(), 3, "no context asked about twice");
    assert_eq!(draft::history(&project, "c3").unwrap().len(), 1);
    assert_eq!(draft::history(&project, "c3").unwrap()[0].origin, draft::DraftOrigin::Hand);

    // Other settings under the same name are refused; a custom prompt needs {{passage}}.
    let mut other = opts(&server, "run-b");
    other.model = "drafter-2".into();
    let err = drafting::run(&mut project, &other, &mut |_, _| {}, &cancel).unwrap_err();
    assert!(err.to_string().contains("already exists with model drafter-1"), "{err}");
    let bad = write(dir.path(), "p.txt", "Draft {{context}} please.");
    let mut custom = opts(&server, "run-c");
    custom.template = Some(bad);
    assert_eq!(drafting::run(&mut project, &custom, &mut |_, _| {}, &cancel).unwrap_err().code(), "bad_template");
}

#[test]
fn a_custom_prompt_is_filled_and_recorded_and_the_key_is_never_stored() {
    let (dir, path, mut project) = kept(1);
    let server = Server::start(|_, _| Reply::content(&answer()));
    let file = write(dir.path(), "prompt.txt", "[{{source_dataset}} {{id}}] {{context}} || {{passage}}");
    let mut o = opts(&server, "run-d");
    o.template = Some(file.clone());
    o.api_key_env = Some("FB40_DRAFT_KEY".into());
    // An unset variable is refused before anything is sent.
    let err = drafting::run(&mut project, &o, &mut |_, _| {}, &AtomicBool::new(false)).unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert_eq!(server.prompts().len(), 0);
    std::env::set_var("FB40_DRAFT_KEY", "sk-secret-40");
    drafting::run(&mut project, &o, &mut |_, _| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(server.prompts(), vec![format!("[ExpertQA c1] Question 1? || {PASSAGE}")]);
    assert_eq!(server.seen.lock().unwrap()[0].auth.as_deref(), Some("Bearer sk-secret-40"));
    let source: String = project.conn().query_row("SELECT prompt_source FROM draft_runs", [], |r| r.get(0)).unwrap();
    assert_eq!(source, file.display().to_string());
    drop(project);
    let bytes = std::fs::read(&path).unwrap();
    assert!(!bytes.windows(12).any(|w| w == b"sk-secret-40"), "the key is not in the project file");
}

#[test]
fn a_refusing_endpoint_stops_the_run_and_the_command_line_says_so() {
    let (dir, path, project) = kept(2);
    drop(project);
    let server = Server::start(|_, _| Reply::status(401));
    let out = Command::cargo_bin("forcebench")
        .unwrap()
        .env_remove("FORCEBENCH_PROJECT")
        .env("HOME", dir.path())
        .args(["--project", path.to_str().unwrap(), "draft", "run", "--base-url", &server.base_url])
        .args(["--model", "m", "--name", "r1", "--retry-wait-ms", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error [endpoint_refused]: the endpoint refused the request: HTTP 401"), "{err}");
    // A dead endpoint is an unfinished run, never a silent success.
    let out = Command::cargo_bin("forcebench")
        .unwrap()
        .env_remove("FORCEBENCH_PROJECT")
        .env("HOME", dir.path())
        .args(["--project", path.to_str().unwrap(), "draft", "run", "--base-url", "http://127.0.0.1:9/v1"])
        .args(["--model", "m", "--name", "r2", "--attempts", "1", "--timeout", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error [unfinished]:"));
    let out = Command::cargo_bin("forcebench")
        .unwrap()
        .args(["--project", path.to_str().unwrap(), "draft", "prompt"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), drafting::DRAFTING_PROMPT);
}

// Broke: `draft run` could not be given the provider profile `judge run` takes (cap field, a
// named deterministic mode, extra fields), so a provider that names its cap or its deterministic
// setting otherwise could not draft; and an older run resumed as before must still resume.
#[test]
fn draft_run_sends_the_provider_profile_and_refuses_a_bad_one_before_sending() {
    let (dir, path, project) = kept(2);
    drop(project);
    let server = Server::start(|_, _| Reply::content(&answer()));
    let fb = |args: &[&str]| {
        Command::cargo_bin("forcebench")
            .unwrap()
            .env_remove("FORCEBENCH_PROJECT")
            .env("HOME", dir.path())
            .args(["--project", path.to_str().unwrap(), "draft", "run", "--base-url", &server.base_url])
            .args(["--model", "m", "--retry-wait-ms", "1"])
            .args(args)
            .output()
            .unwrap()
    };
    for (args, words) in [
        (&["--name", "bad", "--extra", "effort"][..], "error [invalid_argument]: --extra `effort`: give KEY=JSON"),
        (
            &["--name", "bad", "--extra", "model=\"x\""][..],
            "error [invalid_argument]: the extra field `model` would replace",
        ),
        (&["--name", "bad", "--attempts", "0"][..], "error [invalid_argument]: --attempts 0 would send nothing"),
        (&["--name", "bad", "--timeout", "0"][..], "error [invalid_argument]: --timeout 0 leaves no time"),
    ] {
        let out = fb(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.starts_with(words), "{args:?}: {err}");
    }
    assert_eq!(server.seen.lock().unwrap().len(), 0, "nothing sent");
    let out = fb(&[
        "--name",
        "named",
        "--limit",
        "1",
        "--no-temperature",
        "--cap-field",
        "max_completion_tokens",
        "--max-tokens",
        "200",
        "--extra",
        "reasoning={\"effort\":\"minimal\"}",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let body = server.seen.lock().unwrap()[0].body.clone();
    assert!(body.get("temperature").is_none() && body.get("max_tokens").is_none(), "{body}");
    assert_eq!(
        (body["max_completion_tokens"].as_u64(), body["reasoning"]["effort"].as_str()),
        (Some(200), Some("minimal"))
    );
    // The same run without its profile is another run's settings: refused, naming them.
    let out = fb(&["--name", "named", "--max-tokens", "200"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error [invalid_argument]: a drafting run named `named` already exists")
            && err.contains("reasoning"),
        "{err}"
    );
    assert_eq!(server.seen.lock().unwrap().len(), 1);
    // A run with no profile records its parameters as before (what older runs hold), so they resume.
    assert!(fb(&["--name", "plain", "--limit", "1"]).status.success());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let params: String =
        conn.query_row("SELECT params_json FROM draft_runs WHERE name = 'plain'", [], |r| r.get(0)).unwrap();
    assert_eq!(params, r#"{"temperature":0.0,"max_tokens":1024,"api_key_env":null}"#);
}

#[test]
fn an_answer_is_read_for_the_draft_fields_only() {
    let f = drafting::read_answer(
        "{\"calibrated_claim\": \"a\", \"raised_claim\": \"b\", \"severity\": \"3\", \"extra\": 1}",
    )
    .unwrap();
    assert_eq!((f.calibrated_claim.as_deref(), f.severity.as_deref()), (Some("a"), Some("3")));
    assert!(drafting::read_answer("{\"calibrated_claim\": \"a\"}")
        .unwrap_err()
        .contains("no calibrated_claim and raised_claim"));
    assert!(drafting::read_answer("{\"calibrated_claim\": \"a\", \"raised_claim\": [1]}")
        .unwrap_err()
        .contains("an array"));
    assert!(drafting::read_answer("{\"raised_claim\": \"a\", \"raised_claim\": \"b\"}").is_err(), "a repeated key");
    assert!(drafting::read_answer("no braces").is_err());
}

/// Drafting sends the request shape of the API style asked for (Responses: `input` and
/// `max_output_tokens`; Anthropic Messages: `messages` with `max_tokens` and the version header)
/// and reads the answer from that style's body; a chat-shaped body from a Responses endpoint is
/// no answer.
#[test]
fn drafting_speaks_the_responses_and_anthropic_styles() {
    use forcebench::evaluate::providers::Api;
    for (api, path) in [(Api::Responses, "/v1/responses"), (Api::Anthropic, "/v1/messages")] {
        let (_dir, _, mut project) = kept(2);
        let server = Server::start_with_path(move |p, body, _| {
            assert_eq!(p, path, "the request goes to the style's own endpoint");
            // c2 is answered in the chat shape, which this style never sends.
            if user_message(body).contains("Question 2?") {
                return Reply::content(&answer());
            }
            match api {
                Api::Responses => Reply::responses(&answer()),
                _ => Reply::anthropic(&answer()),
            }
        });
        let mut o = opts(&server, "styled");
        o.api = api;
        o.max_attempts = 2;
        let cancel = AtomicBool::new(false);
        let s = drafting::run(&mut project, &o, &mut |_, _| {}, &cancel).unwrap();
        assert_eq!((s.drafted, s.unanswered), (1, 1), "{api:?}: c1 drafted, c2's chat-shaped body not an answer");
        let seen = server.seen.lock().unwrap();
        let body = &seen[0].body;
        match api {
            Api::Responses => {
                assert!(body["input"].as_str().unwrap().contains("Question"), "{body}");
                assert_eq!(body["max_output_tokens"].as_u64(), Some(1024));
                assert!(body.get("messages").is_none() && body.get("max_tokens").is_none(), "{body}");
            }
            _ => {
                assert_eq!(body["messages"][0]["role"], "user");
                assert_eq!(body["max_tokens"].as_u64(), Some(1024));
                assert!(seen[0].headers.contains_key("anthropic-version"));
            }
        }
        assert_eq!(draft::history(&project, "c1").unwrap()[0].fields.evidence_span.as_deref(), Some("may reduce pain"));
    }
}

/// A base URL with a password in it would be stored with the drafting run: refused before
/// anything is sent, as for a judge run.
#[test]
fn drafting_refuses_a_base_url_with_credentials() {
    let (_dir, _, mut project) = kept(1);
    let server = Server::start(|_, _| Reply::content(&answer()));
    let url = server.base_url.replace("http://", "http://lab:secret@");
    let mut o = DraftRunOptions::new("creds", &url, "drafter-1");
    o.max_attempts = 1;
    let cancel = AtomicBool::new(false);
    let err = drafting::run(&mut project, &o, &mut |_, _| {}, &cancel).unwrap_err();
    assert!(err.to_string().contains("user name or password"), "{err}");
    assert_eq!(server.seen.lock().unwrap().len(), 0, "nothing was sent");
}

#[test]
fn every_suggestion_keeps_who_wrote_it_the_prompts_sha256_when_and_the_raw_answer() {
    let (dir, _, mut project) = kept(2);
    let server = Server::start(|_, _| Reply::content(&answer()));
    let cancel = AtomicBool::new(false);
    drafting::run(&mut project, &opts(&server, "run-r"), &mut |_, _| {}, &cancel).unwrap();
    draft::set(&mut project, "c1", "repair", "The drug may lessen pain.", "lee").unwrap();

    let r = drafting::records(&project, "c1").unwrap();
    assert_eq!(r.len(), 2);
    let asked = r[0].asked.as_ref().expect("the model's draft names its answer");
    assert_eq!((r[0].draft.version, r[0].draft.origin), (1, draft::DraftOrigin::Model));
    assert_eq!((asked.model.as_str(), asked.base_url.as_str()), ("drafter-1", server.base_url.as_str()));
    use sha2::Digest;
    assert_eq!(asked.prompt_sha256, hex::encode(sha2::Sha256::digest(drafting::DRAFTING_PROMPT.as_bytes())));
    assert_eq!(asked.http_status, Some(200));
    assert!(asked.sent_at.is_some() && asked.answered_at.is_some());
    // The body exactly as it came, and the text read from it.
    let body = asked.raw_response.as_deref().unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(body).is_ok(), "{body}");
    assert_eq!(asked.content.as_deref(), Some(answer().as_str()));
    // The person's edit is a record of its own, with no model behind it.
    assert_eq!(
        (r[1].draft.version, r[1].draft.origin, r[1].draft.author.as_str()),
        (2, draft::DraftOrigin::TemplateEdit, "lee")
    );
    assert!(r[1].asked.is_none());
    // A context never drafted has no record; an unknown one is refused by name.
    contexts::import_file(
        &mut project,
        &write(dir.path(), "more.csv", "id,source_dataset,source_id,context,passage\nc9,X,9,Q?,P.\n"),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(drafting::records(&project, "c9").unwrap().is_empty());
    let err = drafting::records(&project, "nope").unwrap_err();
    assert_eq!(err.code(), "context_not_found");
}
