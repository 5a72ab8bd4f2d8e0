//! The steps before candidacy through IPC on the mock runtime: the sample contexts listed with
//! their stages, a context screened (a drop without a reason refused with its code), a draft
//! written field by field and promoted, another excluded, and the counts read back.

use forcebench::Project;
use serde_json::json;

mod common;
use common::{app, invoke};

#[test]
fn contexts_are_screened_drafted_promoted_and_counted_through_ipc() {
    let mut project = Project::in_memory("contexts").unwrap();
    forcebench::sample::load_sample_contexts(&mut project).unwrap();
    let (_app, window) = app(Ok(project));

    let rows = invoke(&window, "contexts_list", json!({})).unwrap();
    let stage = |id: &str| {
        let rows = invoke(&window, "contexts_list", json!({})).unwrap();
        rows.as_array().unwrap().iter().find(|r| r["id"] == id).unwrap()["stage"].as_str().unwrap().to_string()
    };
    assert_eq!(rows.as_array().unwrap().len(), 10);
    assert_eq!(stage("ctx-01"), "unscreened");

    let refused = invoke(
        &window,
        "contexts_screen",
        json!({ "id": "ctx-01", "keep": false, "reason": null, "note": null, "by": "Lee" }),
    )
    .unwrap_err();
    assert_eq!(refused["code"], "reason_required", "{refused}");
    let bad = invoke(
        &window,
        "contexts_screen",
        json!({ "id": "ctx-01", "keep": false, "reason": "dull", "note": null, "by": "Lee" }),
    )
    .unwrap_err();
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
    invoke(
        &window,
        "contexts_screen",
        json!({ "id": "ctx-01", "keep": true, "reason": null, "note": "hedged", "by": "Lee" }),
    )
    .unwrap();
    assert_eq!(stage("ctx-01"), "kept");

    for (field, value) in [
        ("evidence_span", "did not measure long-term outcomes"),
        ("calibrated_claim", "A walk after dinner lowered the two-hour glucose peak over two weeks."),
        ("raised_claim", "A walk after dinner lowers blood sugar for good."),
    ] {
        invoke(&window, "draft_set", json!({ "id": "ctx-01", "field": field, "value": value, "by": "Lee" })).unwrap();
    }
    let drafts = invoke(&window, "draft_list", json!({})).unwrap();
    let d = drafts.as_array().unwrap().iter().find(|r| r["context_id"] == "ctx-01").unwrap().clone();
    assert_eq!((d["version"].as_u64(), d["origin"].as_str()), (Some(3), Some("hand")));
    assert_eq!(d["problems"], json!([]));
    let promoted = invoke(&window, "draft_promote", json!({ "ids": ["ctx-01"], "all": false, "by": "Lee" })).unwrap();
    assert_eq!(promoted["promoted"], json!(["ctx-01"]));
    assert_eq!(stage("ctx-01"), "promoted");
    invoke(
        &window,
        "draft_exclude",
        json!({ "id": "ctx-06", "reason": "needs_outside_knowledge", "note": null, "by": "Lee" }),
    )
    .unwrap();

    let counts = invoke(&window, "contexts_counts", json!({})).unwrap();
    // The sample's counts (1 promoted, 2 excluded) with ctx-01 kept, drafted and promoted and
    // ctx-06 excluded.
    assert_eq!(
        (counts["promoted"].as_i64(), counts["excluded"].as_i64(), counts["unscreened"].as_i64()),
        (Some(2), Some(3), Some(1))
    );
    assert_eq!(counts["excluded_by_reason"]["needs_outside_knowledge"], 1);
}

// --- Drafting with a model from the window: the scripted server plays the drafting model. ----

use forcebench_studio::drafting::{run_with, DraftRunParams, DraftState};
use forcebench_test_support::openai::{user_message, Reply, Server};
use std::sync::Arc;
use std::time::Duration;
use tauri::Manager;

/// A model's answer: the draft fields as JSON inside prose, as models often answer.
const ANSWER: &str = "Sure.\n{\"evidence_span\": \"lowered the two-hour glucose peak\", \"calibrated_claim\": \"A walk after dinner lowered the glucose peak.\", \"raised_claim\": \"A walk after dinner cures prediabetes.\", \"axis\": \"scope\", \"severity\": 3}";

/// The sample contexts in a project file of its own (a drafting run opens its own connection to
/// it), with ctx-01 and ctx-02 kept too: three kept contexts without a draft (01, 02, 05).
fn sample_file(dir: &std::path::Path) -> Project {
    let path = dir.join("contexts.forcebench");
    let (mut project, _) = Project::open_or_create(&path).unwrap();
    forcebench::sample::load_sample_contexts(&mut project).unwrap();
    for id in ["ctx-01", "ctx-02"] {
        forcebench::contexts::screen(&mut project, id, forcebench::contexts::ScreenDecision::Keep, None, None, "Lee")
            .unwrap();
    }
    project
}

fn params(url: &str, name: &str) -> DraftRunParams {
    serde_json::from_value(json!({ "name": name, "base_url": url, "model": "scripted-drafter", "attempts": 2 }))
        .unwrap()
}

/// The sha256 of `text` as the system's `sha256sum` computes it (not the core's own code).
fn sha256sum(text: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}

#[test]
fn a_model_drafts_the_kept_contexts_from_the_window_and_each_suggestion_keeps_its_record() {
    let dir = tempfile::tempdir().unwrap();
    // ctx-02's answer holds no draft; the others get the same draft.
    let server = Server::start(|body, _| {
        if user_message(body).contains("Orlen canal") {
            Reply::content("I would rather not.")
        } else {
            Reply::content(ANSWER)
        }
    });
    let (app, window) = app(Ok(sample_file(dir.path())));
    let (studio, state) = (app.state::<forcebench_studio::Studio>(), app.state::<DraftState>());
    let mut steps = Vec::new();
    let s =
        run_with(&studio, &state, &params(&server.base_url, "window-run"), |p| steps.push((p.done, p.total))).unwrap();
    assert_eq!((s.requests, s.answered_now, s.drafted, s.unanswered), (3, 3, 2, 0));
    assert_eq!(s.unusable.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["ctx-02"]);
    assert_eq!(steps.first(), Some(&(0, 3)));
    assert_eq!(steps.last(), Some(&(3, 3)));

    // The window's own connection reads what the run's connection wrote.
    let rows = invoke(&window, "contexts_list", json!({})).unwrap();
    let stage = |id: &str| rows.as_array().unwrap().iter().find(|r| r["id"] == id).unwrap()["stage"].clone();
    assert_eq!(
        (stage("ctx-01"), stage("ctx-02"), stage("ctx-05")),
        (json!("drafted"), json!("kept"), json!("drafted"))
    );

    let records = invoke(&window, "draft_records", json!({ "id": "ctx-05" })).unwrap();
    let r = &records.as_array().unwrap()[0];
    assert_eq!(
        (r["version"].as_u64(), r["origin"].as_str(), r["author"].as_str()),
        (Some(1), Some("model"), Some("scripted-drafter"))
    );
    let asked = &r["asked"];
    let shipped = invoke(&window, "draft_prompt", json!({})).unwrap();
    assert_eq!(asked["prompt_sha256"].as_str(), Some(sha256sum(shipped.as_str().unwrap()).as_str()));
    assert_eq!((asked["model"].as_str(), asked["http_status"].as_i64()), (Some("scripted-drafter"), Some(200)));
    assert_eq!(asked["base_url"].as_str(), Some(server.base_url.as_str()));
    assert!(asked["sent_at"].is_string() && asked["answered_at"].is_string());
    assert!(asked["raw_response"].as_str().unwrap().contains("cures prediabetes"), "{asked}");
    assert_eq!(r["fields"]["severity"], "3");

    // A person's change is a record of its own (a template edit, no model behind it).
    invoke(&window, "draft_set", json!({ "id": "ctx-05", "field": "severity", "value": "2", "by": "Lee" })).unwrap();
    let records = invoke(&window, "draft_records", json!({ "id": "ctx-05" })).unwrap();
    let r = &records.as_array().unwrap()[1];
    assert_eq!(
        (r["origin"].as_str(), r["author"].as_str(), &r["asked"]),
        (Some("template_edit"), Some("Lee"), &json!(null))
    );
    // Unknown context: the core's refusal, with its code.
    let err = invoke(&window, "draft_records", json!({ "id": "ctx-99" })).unwrap_err();
    assert_eq!(err["code"], "context_not_found", "{err}");

    // Promoting every waiting draft is all or nothing: ctx-05's span (the model's) and the
    // sample's ctx-07 are not in their passages, so nothing is promoted, and both are named.
    let refused = invoke(&window, "draft_promote", json!({ "ids": [], "all": true, "by": "Lee" })).unwrap_err();
    assert_eq!(refused["code"], "invalid_input", "{refused}");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("draft ctx-05: field `evidence_span`") && message.contains("draft ctx-07"), "{message}");
    let rows = invoke(&window, "contexts_list", json!({})).unwrap();
    assert!(
        rows.as_array().unwrap().iter().all(|r| r["stage"] != "promoted" || r["id"] == "ctx-10"),
        "nothing promoted"
    );
    for id in ["ctx-05", "ctx-07"] {
        invoke(&window, "draft_exclude", json!({ "id": id, "reason": "ordinary_addition", "note": null, "by": "Lee" }))
            .unwrap();
    }
    // Then every waiting draft is promoted, and the count is what the list said was waiting.
    let waiting = invoke(&window, "draft_list", json!({})).unwrap();
    let mut pending: Vec<String> = waiting
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["stage"] == "drafted")
        .map(|d| d["context_id"].as_str().unwrap().to_string())
        .collect();
    pending.sort();
    assert_eq!(pending, ["ctx-01", "ctx-06"]);
    let promoted = invoke(&window, "draft_promote", json!({ "ids": [], "all": true, "by": "Lee" })).unwrap();
    let mut got: Vec<String> = serde_json::from_value(promoted["promoted"].clone()).unwrap();
    got.sort();
    assert_eq!(got, pending);
    let counts = invoke(&window, "contexts_counts", json!({})).unwrap();
    // By hand: the sample's ctx-10 and now ctx-01 and ctx-06; excluded: ctx-08, ctx-09 and now
    // ctx-05, ctx-07.
    assert_eq!((counts["promoted"].as_i64(), counts["excluded"].as_i64()), (Some(3), Some(4)));
}

#[test]
fn cancel_stops_a_drafting_run_keeps_its_answers_and_the_same_name_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = Arc::new(Server::start(|_, _| Reply::content(ANSWER).after(Duration::from_millis(150))));
    let (app, window) = app(Ok(sample_file(dir.path())));
    let (studio, state) = (app.state::<forcebench_studio::Studio>(), app.state::<DraftState>());
    let canceller = {
        let (window, server) = (window.clone(), Arc::clone(&server));
        std::thread::spawn(move || {
            while server.answered() < 1 {
                std::thread::sleep(Duration::from_millis(5));
            }
            invoke(&window, "draft_cancel", json!({})).unwrap();
        })
    };
    let first = run_with(&studio, &state, &params(&server.base_url, "stoppable"), |_| {}).unwrap();
    canceller.join().unwrap();
    assert!(first.answered_now >= 1 && first.unanswered >= 1, "{first:?}");
    // A second run while none goes on is allowed; the same name resumes where the first stopped.
    let second = run_with(&studio, &state, &params(&server.base_url, "stoppable"), |_| {}).unwrap();
    assert_eq!((second.answered_before, second.unanswered), (first.answered_now, 0));
    assert_eq!(second.answered_before + second.answered_now, 3);
    // Another model under the same name is refused by the core, with its code.
    let mut other = params(&server.base_url, "stoppable");
    other.model = "another".into();
    let err = run_with(&studio, &state, &other, |_| {}).unwrap_err();
    assert_eq!(err.code, "invalid_argument", "{}", err.message);
    // An API style the core does not speak is refused before anything is sent.
    let mut odd = params(&server.base_url, "odd");
    odd.settings.api = Some("soap".into());
    let sent = server.seen.lock().unwrap().len();
    let err = run_with(&studio, &state, &odd, |_| {}).unwrap_err();
    assert_eq!(err.code, "invalid_argument", "{}", err.message);
    assert_eq!(server.seen.lock().unwrap().len(), sent);
}

#[test]
fn draft_run_is_reached_through_ipc_with_its_channel_and_refuses_what_the_core_refuses() {
    let server = Server::start(|_, _| Reply::content(ANSWER));
    let mut project = Project::in_memory("ipc drafting").unwrap();
    forcebench::sample::load_sample_contexts(&mut project).unwrap();
    let (_app, window) = app(Ok(project));
    let run = |params: serde_json::Value| {
        invoke(&window, "draft_run", json!({ "params": params, "onProgress": "__CHANNEL__:1" }))
    };
    // The sample's one kept context without a draft (ctx-05) is drafted.
    let done = run(json!({ "name": "ipc-run", "base_url": server.base_url, "model": "m" })).unwrap();
    assert_eq!((done["requests"].as_u64(), done["drafted"].as_u64()), (Some(1), Some(1)), "{done}");
    // A blank model and an unknown API style are refused with their codes; nothing more is sent.
    let blank = run(json!({ "name": "ipc-blank", "base_url": server.base_url, "model": " " })).unwrap_err();
    assert_eq!(blank["code"], "invalid_argument", "{blank}");
    let odd = run(json!({ "name": "ipc-odd", "base_url": server.base_url, "model": "m", "api": "soap" })).unwrap_err();
    assert_eq!(odd["code"], "invalid_argument", "{odd}");
    assert_eq!(server.seen.lock().unwrap().len(), 1);
    // Cancel with no run going answers that none was.
    assert_eq!(invoke(&window, "draft_cancel", json!({})).unwrap(), json!(false));
}

// Broke: the window's drafting form sent only the endpoint, model, style, key variable and prompt;
// temperature, cap, timeout and tries were never given, the provider profile (cap field, a named
// deterministic mode, extra fields) could not be, and a 0 was raised to 1 in silence.
#[test]
fn the_window_drafts_with_the_profile_it_was_given_and_refuses_bad_settings_before_sending() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with_path(|path, _, _| match path {
        "/v1/responses" => Reply::responses(ANSWER),
        _ => Reply::content(ANSWER),
    });
    let (app, window) = app(Ok(sample_file(dir.path())));
    let (studio, state) = (app.state::<forcebench_studio::Studio>(), app.state::<DraftState>());
    let profiled = |name: &str, more: serde_json::Value| -> DraftRunParams {
        let mut p = json!({
            "name": name, "base_url": server.base_url, "model": "scripted-drafter",
            "temperature": 0.7, "max_tokens": 321, "cap_field": "max_completion_tokens",
            "extra": ["reasoning={\"effort\":\"minimal\"}", " ", "top_p=0.5"],
            "timeout": 30, "attempts": 2, "limit": 1,
        });
        p.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
        serde_json::from_value(p).unwrap()
    };
    let body = |n: usize| server.seen.lock().unwrap()[n].body.clone();

    // Refused in the core's words, and nothing is sent.
    for (more, words) in [
        (json!({ "extra": ["reasoning"] }), "--extra `reasoning`: give KEY=JSON"),
        (json!({ "extra": ["top_p=high"] }), "--extra `top_p=high`: the value is not JSON"),
        (json!({ "extra": ["a=1", "a=2"] }), "--extra `a=2`: the field is given twice"),
        (json!({ "extra": ["messages=[]"] }), "the extra field `messages` would replace the prompt or the model"),
        (json!({ "attempts": 0 }), "--attempts 0 would send nothing"),
        (json!({ "timeout": 0 }), "--timeout 0 leaves no time for an answer"),
        (json!({ "temperature": 2.5 }), "--temperature 2.5 is not between 0 and 2"),
        (json!({ "api": "anthropic", "max_tokens": 0 }), "--api anthropic needs an output cap"),
        (json!({ "api": "soap" }), "`soap` is not an API style"),
    ] {
        let err = run_with(&studio, &state, &profiled("refused", more.clone()), |_| {}).unwrap_err();
        assert_eq!(err.code, "invalid_argument", "{more}: {}", err.message);
        assert!(err.message.starts_with(words) || err.message.contains(words), "{more}: {}", err.message);
    }
    assert_eq!(server.seen.lock().unwrap().len(), 0, "nothing sent for a refused setting");

    // The request carries every setting the form gave, the cap in the field the profile names.
    let s = run_with(&studio, &state, &profiled("profiled", json!({})), |_| {}).unwrap();
    assert_eq!((s.answered_now, s.unanswered), (1, 2));
    let sent = body(0);
    assert_eq!(sent["temperature"], 0.7);
    assert_eq!(sent["max_completion_tokens"], 321);
    assert!(sent.get("max_tokens").is_none(), "the cap goes in the named field only: {sent}");
    assert_eq!((sent["reasoning"].clone(), sent["top_p"].clone()), (json!({ "effort": "minimal" }), json!(0.5)));
    assert_eq!(sent["model"], "scripted-drafter");

    // Resumed with the same settings: the next context goes with the same profile.
    run_with(&studio, &state, &profiled("profiled", json!({})), |_| {}).unwrap();
    assert_eq!(body(1)["max_completion_tokens"], 321);
    assert_eq!(body(1)["reasoning"], json!({ "effort": "minimal" }));
    // Resumed with another profile: refused by the core, naming what the run was sent with.
    let err = run_with(&studio, &state, &profiled("profiled", json!({ "extra": [] })), |_| {}).unwrap_err();
    assert!(
        err.message.contains("already exists with parameters") && err.message.contains("reasoning"),
        "{}",
        err.message
    );
    assert_eq!(server.seen.lock().unwrap().len(), 2);

    // A named deterministic mode: no temperature at all, the mode as an extra field; the
    // Responses style puts the cap in its own field when none is named.
    let named = json!({ "no_temperature": true, "cap_field": null, "api": "responses", "extra": ["reasoning={\"effort\":\"low\"}"] });
    run_with(&studio, &state, &profiled("named-mode", named), |_| {}).unwrap();
    let seen = server.seen.lock().unwrap();
    let last = seen.last().unwrap();
    assert_eq!(last.path, "/v1/responses");
    assert!(last.body.get("temperature").is_none(), "{}", last.body);
    assert_eq!(
        (last.body["max_output_tokens"].clone(), last.body["reasoning"]["effort"].clone()),
        (json!(321), json!("low"))
    );
    drop(seen);

    // The form's defaults and styles are the core's.
    let catalog = invoke(&window, "draft_catalog", json!({})).unwrap();
    assert_eq!((catalog["temperature"].as_f64(), catalog["max_tokens"].as_u64()), (Some(0.0), Some(1024)));
    assert_eq!((catalog["timeout"].as_u64(), catalog["attempts"].as_u64()), (Some(120), Some(5)));
    let styles: Vec<&str> = catalog["apis"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(styles, ["chat", "responses", "anthropic"]);
}
