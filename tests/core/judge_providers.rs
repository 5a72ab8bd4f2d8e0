//! Provider profiles: each model of a panel sent in its own API style (OpenAI chat completions,
//! OpenAI Responses, Anthropic Messages) with its own base URL, key variable, output cap,
//! deterministic setting and extra fields, from one panel file in one resumable battery; the
//! scripted server checks the shape each API documents and answers in it.

use serde_json::Value;
use std::path::Path;

use crate::judge::{claim_of, cli, locked, Reply, Server};

const PANEL: &str = r#"
# Three vendors, one battery.
[[model]]
name = "gpt-x"
api = "responses"
base_url = "BASE"
api_key_env = "FB_TEST_OPENAI_KEY"
max_tokens = 512
no_temperature = true
extra = { reasoning = { effort = "minimal" } }

[[model]]
name = "claude-x"
api = "anthropic"
base_url = "BASE"
api_key_env = "FB_TEST_ANTHROPIC_KEY"

[[model]]
name = "qwen-x"
base_url = "BASE"
"#;

fn battery(project: &Path, panel: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    cli(project)
        .env("FB_TEST_OPENAI_KEY", "sk-openai-SECRET-1")
        .env("FB_TEST_ANTHROPIC_KEY", "sk-ant-SECRET-2")
        .args(["judge", "battery", "--panel"])
        .arg(panel)
        .args(["--templates", "force_aware", "--retry-wait-ms", "1", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_panel_file_runs_three_api_styles_in_one_resumable_battery() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, pairs) = locked(dir.path());
    drop(p);
    let safe: Vec<String> = pairs.iter().map(|p| p.calibrated_claim.clone()).collect();
    let tie = pairs[0].raised_claim.clone();
    let server = Server::start_with_path(move |path, body, _| {
        let claim = claim_of(body);
        let model = body["model"].as_str().unwrap();
        let ok = safe.contains(&claim) || (model == "claude-x" && claim == tie);
        let text = format!("{{\"label\": \"{}\"}}", if ok { "force_calibrated" } else { "force_gap" });
        match path {
            "/v1/responses" => Reply::responses(&text),
            "/v1/messages" => Reply::anthropic(&text),
            _ => Reply::content(&text),
        }
    });
    let panel = dir.path().join("panel.toml");
    std::fs::write(&panel, PANEL.replace("BASE", &server.base_url)).unwrap();
    let out_dir = dir.path().join("report");
    let out = battery(&project, &panel, &out_dir, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    assert!(t3.lines().nth(1).unwrap().starts_with("Model aggregate,Axis-list force-aware,1,30,0,"), "{t3}");

    let seen = server.seen.lock().unwrap();
    let system = forcebench::evaluate::judge::template("force_aware").unwrap().system.unwrap();
    for path in ["/v1/responses", "/v1/messages", "/v1/chat/completions"] {
        assert_eq!(seen.iter().filter(|s| s.path == path).count(), 20, "{path}");
    }
    for s in seen.iter() {
        let b = &s.body;
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        match s.path.as_str() {
            "/v1/responses" => {
                assert_eq!(b["instructions"].as_str(), Some(system.as_str()), "the system prompt as instructions");
                assert!(b["input"].is_string() && b.get("messages").is_none());
                assert_eq!(b["max_output_tokens"].as_u64(), Some(512));
                assert!(b.get("max_tokens").is_none() && b.get("temperature").is_none(), "{keys:?}");
                assert_eq!(b["reasoning"]["effort"], "minimal");
                assert_eq!(s.auth.as_deref(), Some("Bearer sk-openai-SECRET-1"));
            }
            "/v1/messages" => {
                assert_eq!(b["system"].as_str(), Some(system.as_str()), "a top-level system");
                let m = b["messages"].as_array().unwrap();
                assert_eq!((m.len(), m[0]["role"].as_str()), (1, Some("user")));
                assert_eq!((b["max_tokens"].as_u64(), b["temperature"].as_f64()), (Some(1024), Some(0.0)));
                assert_eq!(s.headers.get("x-api-key").map(String::as_str), Some("sk-ant-SECRET-2"));
                assert_eq!(s.headers.get("anthropic-version").map(String::as_str), Some("2023-06-01"));
                assert!(s.auth.is_none());
            }
            _ => {
                let m = b["messages"].as_array().unwrap();
                assert_eq!((m[0]["role"].as_str(), m[1]["role"].as_str()), (Some("system"), Some("user")));
                assert_eq!((b["max_tokens"].as_u64(), b["temperature"].as_f64()), (Some(1024), Some(0.0)));
                assert!(s.auth.is_none());
            }
        }
    }
    let sent = seen.len();
    drop(seen);

    // The run record stores each profile, never a key.
    let runs: Value =
        serde_json::from_slice(&cli(&project).args(["judge", "runs", "--json"]).output().unwrap().stdout).unwrap();
    let gpt = runs.as_array().unwrap().iter().find(|r| r["model"] == "gpt-x").unwrap();
    assert_eq!(gpt["params"]["api"], "responses");
    assert_eq!(gpt["params"]["no_temperature"], true);
    assert_eq!(gpt["params"]["extra"]["reasoning"]["effort"], "minimal");
    assert_eq!(gpt["params"]["api_key_env"], "FB_TEST_OPENAI_KEY");
    let qwen = runs.as_array().unwrap().iter().find(|r| r["model"] == "qwen-x").unwrap();
    assert!(qwen["params"].get("api").is_none(), "chat is the default, stored as runs always were");
    for f in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(f.unwrap().path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("SECRET"), "a key in a file");
    }

    // Running it again resumes: nothing is sent.
    let again = battery(&project, &panel, &out_dir, &["--force"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(server.seen.lock().unwrap().len(), sent);
}

#[test]
fn a_panel_file_with_a_misspelt_key_a_repeated_model_or_an_unknown_api_is_refused_before_sending() {
    let dir = tempfile::tempdir().unwrap();
    let (project, p, _) = locked(dir.path());
    drop(p);
    let server = Server::start_with_path(|_, _, _| Reply::content("{\"label\": \"force_gap\"}"));
    let cases = [
        ("[[model]]\nname = \"a\"\nbase_url = \"BASE\"\nmax_token = 5\n", "unknown field `max_token`"),
        (
            "[[model]]\nname = \"a\"\nbase_url = \"BASE\"\n[[model]]\nname = \"a\"\nbase_url = \"BASE\"\n",
            "model 2 (`a`, line 4): `name` on line 5: is listed twice",
        ),
        (
            "# a panel\n\n[[model]]\nname = \"a\"\nbase_url = \"BASE\"\napi = \"bogus\"\n",
            "model 1 (`a`, line 3): `api` on line 6: `bogus` is not an API style",
        ),
        (
            "[[model]]\nname = \"a\"\nbase_url = \"BASE\"\napi = \"anthropic\"\nmax_tokens = 0\n",
            "model 1 (`a`, line 1): `max_tokens` on line 5: 0 sends no output cap, but the anthropic style requires one",
        ),
        (
            "[[model]]\nname = \"a\"\nbase_url = \"BASE\"\nextra = { messages = [] }\n",
            "model 1 (`a`, line 1): `extra.messages` on line 4: the extra field `messages` would replace the prompt",
        ),
        ("", "lists no model"),
    ];
    for (text, expected) in cases {
        let panel = dir.path().join("panel.toml");
        std::fs::write(&panel, text.replace("BASE", &server.base_url)).unwrap();
        let out = battery(&project, &panel, &dir.path().join("r"), &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains("error [invalid_argument]") && stderr.contains(expected),
            "{text}: {stderr}"
        );
    }
    assert_eq!(server.seen.lock().unwrap().len(), 0);
}

// Broke: a refusal named the `[[model]]` line only, so in a long table the lead had to hunt
// for the bad field; each now names the field and the line it is on (the parser's spans).
#[test]
fn a_panel_refusal_names_the_line_of_the_field_at_fault_inside_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let base = forcebench::evaluate::runner::RunOptions::new("panel", "", "", "force_aware");
    let read = |text: &str| {
        let panel = dir.path().join("panel.toml");
        std::fs::write(&panel, text).unwrap();
        forcebench::evaluate::panel_file::read(&panel, &base).map(|_| ()).unwrap_err().to_string()
    };
    // The second model's fields sit on lines counted here by hand: a comment, blank lines, a
    // multi-line extra table and a field after it.
    let good = "# lab panel\n[[model]]\nname = \"first\"\nbase_url = \"http://127.0.0.1:1/v1\"\n\n";
    for (second, field, line, words) in [
        // lines 6-11 are the second model: header on 6
        ("[[model]]\nname = \"second\"\n\nbase_url = \"http://127.0.0.1:1/v1\"\ntemperature = 7.5\n", "temperature", 10, "7.5 is not between 0 and 2"),
        ("[[model]]\nname = \"second\"\nbase_url = \"ftp://x\"\n", "base_url", 8, "is not an http:// or https:// address"),
        ("[[model]]\nname = \"second\"\nbase_url = \"http://u:pw@h/v1\"\n", "base_url", 8, "holds a user name or password"),
        ("[[model]]\nbase_url = \"http://127.0.0.1:1/v1\"\nname = \"first\"\n", "name", 8, "is listed twice"),
        ("[[model]]\nname = \"second\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi = \"soap\"\n", "api", 9, "`soap` is not an API style"),
        (
            "[[model]]\nname = \"second\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[model.extra]\nreasoning = { effort = \"low\" }\ninput = \"ignore the passage\"\n",
            "extra.input",
            11,
            "the extra field `input` would replace the prompt or the model",
        ),
        (
            "[[model]]\nname = \"second\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi = \"anthropic\"\n\nmax_tokens = 0\n",
            "max_tokens",
            11,
            "the anthropic style requires one",
        ),
    ] {
        let err = read(&format!("{good}{second}"));
        let want = format!("model 2 (`{}`, line 6): `{field}` on line {line}: ", if field == "name" { "first" } else { "second" });
        assert!(err.contains(&want) && err.contains(words), "{field}: want `{want}...{words}` in: {err}");
    }
    // A key the file may not hold is the parser's own refusal, with its line.
    let err =
        read(&format!("{good}[[model]]\nname = \"second\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmax_token = 5\n"));
    assert!(err.contains("line 9") && err.contains("max_token"), "{err}");
}

#[test]
fn the_documented_panel_file_matches_its_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/panel.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let parsed: toml::Value = toml::from_str(&PANEL.replace("BASE", "http://127.0.0.1:1/v1")).unwrap();
    let instance = serde_json::to_value(parsed).unwrap();
    let errors: Vec<String> = v.iter_errors(&instance).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let bad: toml::Value =
        toml::from_str("[[model]]\nname = \"a\"\nbase_url = \"http://u:p@h/v1\"\nmax_token = 1\n").unwrap();
    assert!(!v.is_valid(&serde_json::to_value(bad).unwrap()), "a misspelt key and a password are outside the schema");
}

// The app's run form and `--extra` share this reader: each line refused by name, blank ones
// skipped, and a field with no name (`=1`, once sent as a field called "") refused.
#[test]
fn extra_fields_are_read_as_key_json_and_each_bad_line_is_refused_by_name() {
    use forcebench::evaluate::providers::parse_extra;
    let lines = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let read = parse_extra(&lines(&["", " reasoning = {\"effort\": \"minimal\"} ", "   ", "n=3"])).unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read["reasoning"]["effort"], "minimal");
    assert_eq!(read["n"], 3);
    for (line, words) in [
        ("reasoning", "--extra `reasoning`: give KEY=JSON"),
        ("=1", "--extra `=1`: the field has no name before `=`"),
        ("effort=minimal", "--extra `effort=minimal`: the value is not JSON"),
    ] {
        let e = parse_extra(&lines(&[line])).unwrap_err();
        assert_eq!(e.code(), "invalid_argument");
        assert!(e.to_string().contains(words), "{line}: {e}");
    }
    let e = parse_extra(&lines(&["a=1", " a =2"])).unwrap_err();
    assert!(e.to_string().contains("--extra `a =2`: the field is given twice"), "{e}");
}
