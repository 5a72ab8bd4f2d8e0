//! A scripted OpenAI-compatible server on 127.0.0.1 (never any other address), answering
//! `POST /v1/chat/completions` from a script: the core's judge tests, the shell's and the
//! window's runs all talk to this one. [`Server::start_with_path`] also serves OpenAI Responses
//! (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`), telling the script which
//! was asked ([`Reply::responses`] and [`Reply::anthropic`] answer in those shapes).
//!
//! ```no_run
//! use forcebench_test_support::openai::{Reply, Server};
//! let server = Server::start(|_body, _seen_before| Reply::content("{\"label\": \"force_gap\"}"));
//! // Point a judge at `server.base_url` (it ends in `/v1`).
//! ```

use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One answer of the scripted server.
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<u64>,
    /// How long to wait before answering.
    pub delay: Duration,
    /// Close the connection after this many bytes of the response (0: before any), as a network
    /// that drops does.
    pub cut: Option<usize>,
    /// Never answer, and keep the connection open (a hung server).
    pub hang: bool,
}

impl Reply {
    /// A chat completion whose message is `text`.
    pub fn content(text: &str) -> Reply {
        let body = json!({ "id": "x", "object": "chat.completion", "choices": [
            { "index": 0, "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }
        ]});
        Reply { status: 200, body: body.to_string(), retry_after: None, delay: Duration::ZERO, cut: None, hang: false }
    }

    /// An OpenAI Responses answer whose output text is `text`.
    pub fn responses(text: &str) -> Reply {
        let body = json!({ "id": "resp_x", "object": "response", "status": "completed", "output": [
            { "type": "reasoning", "id": "rs_x", "summary": [] },
            { "type": "message", "id": "msg_x", "role": "assistant", "content": [
                { "type": "output_text", "text": text, "annotations": [] }
            ]}
        ]});
        Reply { body: body.to_string(), ..Reply::content("") }
    }

    /// An Anthropic Messages answer whose text block is `text`.
    pub fn anthropic(text: &str) -> Reply {
        let body = json!({ "id": "msg_x", "type": "message", "role": "assistant", "model": "m",
            "content": [{ "type": "text", "text": text }], "stop_reason": "end_turn" });
        Reply { body: body.to_string(), ..Reply::content("") }
    }

    /// An error status with a small JSON body.
    pub fn status(status: u16) -> Reply {
        Reply { status, body: "{\"error\":\"scripted\"}".into(), ..Reply::content("") }
    }

    /// No answer at all: the connection is held open until the test ends.
    pub fn hang() -> Reply {
        Reply { hang: true, ..Reply::content("") }
    }

    /// This reply after `delay`.
    pub fn after(self, delay: Duration) -> Reply {
        Reply { delay, ..self }
    }
}

/// What the server received: the request body and the Authorization header.
pub struct Seen {
    pub body: Value,
    pub auth: Option<String>,
    /// The path asked for (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`).
    pub path: String,
    /// Every header, names lower-cased.
    pub headers: HashMap<String, String>,
}

type Script = dyn Fn(&str, &Value, usize) -> Reply + Send + Sync;

/// The running server. It serves until the test process ends (dropping this does not stop it).
pub struct Server {
    /// `http://127.0.0.1:PORT/v1`, what a judge is given as its base URL.
    pub base_url: String,
    /// Every request received, in order.
    pub seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<AtomicUsize>,
    answered: Arc<AtomicUsize>,
}

impl Server {
    /// Starts a server answering each request with `script(body, n)`, `n` being how many times
    /// the same prompt (the last message's content) was received before (0 the first time).
    pub fn start(script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static) -> Server {
        Server::serve(Arc::new(move |path: &str, body: &Value, n: usize| {
            assert_eq!(path, "/v1/chat/completions");
            script(body, n)
        }))
    }

    /// Starts a server for every API style: `script(path, body, n)`.
    pub fn start_with_path(script: impl Fn(&str, &Value, usize) -> Reply + Send + Sync + 'static) -> Server {
        Server::serve(Arc::new(script))
    }

    fn serve(script: Arc<Script>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (connections, answered): (Arc<AtomicUsize>, Arc<AtomicUsize>) = Default::default();
        let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let (log, accepted, done) = (seen.clone(), connections.clone(), answered.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                accepted.fetch_add(1, Ordering::SeqCst);
                let (script, log, counts, done) = (script.clone(), log.clone(), counts.clone(), done.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = line.split(' ').nth(1).unwrap_or("").to_string();
                    assert!(
                        line.starts_with("POST ")
                            && ["/v1/chat/completions", "/v1/responses", "/v1/messages"].contains(&path.as_str()),
                        "{line}"
                    );
                    let (mut length, mut auth, mut headers) = (0usize, None, HashMap::new());
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        let (k, v) = h.split_once(':').unwrap();
                        headers.insert(k.to_ascii_lowercase(), v.trim().to_string());
                        match k.to_ascii_lowercase().as_str() {
                            "content-length" => length = v.trim().parse().unwrap(),
                            "authorization" => auth = Some(v.trim().to_string()),
                            _ => {}
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let body: Value = serde_json::from_slice(&body).unwrap();
                    let prompt = user_message(&body).to_string();
                    let n = {
                        let mut c = counts.lock().unwrap();
                        let n = c.entry(prompt).or_insert(0);
                        *n += 1;
                        *n - 1
                    };
                    let reply = script(&path, &body, n);
                    log.lock().unwrap().push(Seen { body, auth, path, headers });
                    if reply.hang {
                        let _held = stream;
                        loop {
                            std::thread::sleep(Duration::from_secs(3600));
                        }
                    }
                    std::thread::sleep(reply.delay);
                    let mut out = stream;
                    let retry = reply.retry_after.map_or(String::new(), |s| format!("Retry-After: {s}\r\n"));
                    let response = format!(
                        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n{}",
                        reply.status,
                        reply.body.len(),
                        reply.body
                    );
                    let upto = reply.cut.unwrap_or(response.len()).min(response.len());
                    let _ = out.write_all(&response.as_bytes()[..upto]);
                    if reply.cut.is_some() {
                        let _ = out.shutdown(std::net::Shutdown::Both);
                    } else {
                        done.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        Server { base_url, seen, connections, answered }
    }

    /// The prompts received, in order.
    pub fn prompts(&self) -> Vec<String> {
        self.seen.lock().unwrap().iter().map(|s| user_message(&s.body).to_string()).collect()
    }

    /// How many connections it has accepted (a hung request counts as soon as it connects).
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How many whole answers it has written.
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }
}

/// The user message of a request (the last message; a system message may come first), or a
/// Responses request's `input`.
pub fn user_message(body: &Value) -> &str {
    if let Some(input) = body.get("input").and_then(Value::as_str) {
        return input;
    }
    let messages = body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    last["content"].as_str().unwrap()
}
