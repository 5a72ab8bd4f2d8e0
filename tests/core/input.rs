//! Reading a person's files (`input`): only regular files, never more than the caps, UTF-8 text
//! or a one-line reason why not, strict JSON objects, identifiers without hidden characters.
//! Every reader goes through this module, so its promises are tested here once, directly.

use crate::common::*;
use forcebench::input::{self, LineProblem, ValueKind, MAX_FILE_BYTES, MAX_LINE_BYTES};
use forcebench::Error;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `read_bytes` on another thread: a reader that blocks (a FIFO opened for reading waits for a
/// writer) fails the test after ten seconds instead of hanging it.
fn read_at_once(path: &Path) -> forcebench::Result<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || tx.send(input::read_bytes(&owned)));
    rx.recv_timeout(Duration::from_secs(10)).expect("read_bytes blocked instead of refusing at once")
}

fn mkfifo(path: &Path) {
    assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// The refusal of a file that is not a regular file, word for word.
fn not_regular(path: &Path, kind: &str) -> String {
    format!("{} is {kind}, not a regular file; ForceBench reads input only from regular files", path.display())
}

fn refused(path: &Path) -> Error {
    read_at_once(path).expect_err("the read should be refused")
}

/// A file of `len` bytes that takes no room on disk (a sparse file of zeros).
fn sparse(dir: &Path, name: &str, len: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path
}

// ---- Only regular files, read without blocking ----

#[test]
fn a_fifo_offered_as_a_file_is_refused_at_once_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("candidates.csv");
    mkfifo(&fifo);
    let err = refused(&fifo);
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(err.to_string(), not_regular(&fifo, "a named pipe (FIFO)"));
}

#[test]
fn a_symlink_to_a_fifo_is_refused_as_the_fifo_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let link = dir.path().join("labels.jsonl");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    assert_eq!(refused(&link).to_string(), not_regular(&link, "a named pipe (FIFO)"));
}

#[test]
fn a_directory_offered_as_a_file_is_refused_naming_it_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("scores.jsonl");
    std::fs::create_dir(&folder).unwrap();
    let err = refused(&folder);
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(err.to_string(), not_regular(&folder, "a directory"));
}

#[test]
fn a_character_device_is_refused_instead_of_read_without_end() {
    for device in ["/dev/null", "/dev/zero"] {
        let path = Path::new(device);
        assert_eq!(refused(path).to_string(), not_regular(path, "a character device"), "{device}");
    }
}

#[test]
fn a_missing_file_is_an_io_error_in_words_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone.csv");
    let err = refused(&gone);
    assert_eq!(err.code(), "io");
    assert_eq!(err.to_string(), format!("No file or folder at {}", gone.display()));
}

// ---- The size caps ----

#[test]
fn a_file_one_byte_over_the_cap_is_refused_naming_the_cap_and_one_at_the_cap_is_read() {
    assert_eq!(MAX_FILE_BYTES, 256 * 1024 * 1024);
    let dir = tempfile::tempdir().unwrap();
    let over = sparse(dir.path(), "big.csv", MAX_FILE_BYTES + 1);
    let err = refused(&over);
    assert_eq!(err.code(), "invalid_input");
    // One byte over still rounds to 256.0 MiB: the message names the cap, not a distance from it.
    assert_eq!(
        err.to_string(),
        format!(
            "{} is 256.0 MiB, more than 256.0 MiB (the limit for one input file); split it into smaller files",
            over.display()
        )
    );
    let bigger = sparse(dir.path(), "bigger.csv", 300 * 1024 * 1024);
    assert_eq!(
        refused(&bigger).to_string(),
        format!(
            "{} is 300.0 MiB, more than 256.0 MiB (the limit for one input file); split it into smaller files",
            bigger.display()
        )
    );
    let at = sparse(dir.path(), "at.csv", MAX_FILE_BYTES);
    assert_eq!(read_at_once(&at).unwrap().len() as u64, MAX_FILE_BYTES);
}

#[test]
fn a_line_one_byte_over_the_per_line_cap_is_refused_with_its_number_and_one_at_the_cap_is_text() {
    assert_eq!(MAX_LINE_BYTES, 1024 * 1024);
    let mut text = String::from("{\"id\":\"a\"}\n");
    text.push_str(&"x".repeat(MAX_LINE_BYTES + 1));
    text.push_str("\n{\"id\":\"b\"}\n");
    let err = input::decode("t.jsonl", text.as_bytes()).unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(
        err.to_string(),
        "t.jsonl: 1 problem found; nothing was imported\n  \
         t.jsonl:2: this line is 1.0 MiB, more than 1.0 MiB (the limit for one line)"
    );
    let at_cap = format!("a\n{}\nb", "y".repeat(MAX_LINE_BYTES));
    assert_eq!(input::decode("t.jsonl", at_cap.as_bytes()).unwrap(), at_cap);
    // The first line, and a last line with no line end after it, are lines too.
    let line_of = |text: String| input::decode("t.jsonl", text.as_bytes()).unwrap_err().to_string();
    assert!(line_of(format!("{}\nb\n", "x".repeat(MAX_LINE_BYTES + 1))).contains("t.jsonl:1: this line is"));
    assert!(line_of(format!("a\n\n{}", "x".repeat(MAX_LINE_BYTES + 1))).contains("t.jsonl:3: this line is"));
    // A CR before the line end counts in the line's length.
    assert!(line_of(format!("a\r\n{}\r\nb", "x".repeat(MAX_LINE_BYTES))).contains("t.jsonl:2: this line is"));
}

#[test]
fn a_csv_field_over_the_cap_is_described_as_a_field() {
    assert_eq!(
        input::field_too_long(MAX_LINE_BYTES + 1),
        "this field is 1.0 MiB, more than 1.0 MiB (the limit for one field)"
    );
    assert_eq!(
        input::field_too_long(3 * 1024 * 1024 / 2),
        "this field is 1.5 MiB, more than 1.0 MiB (the limit for one field)"
    );
}

// ---- Encodings ----

#[test]
fn a_utf16_file_with_a_byte_order_mark_is_named_utf16_in_one_line_by_read_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "id,group_id\r\nx,g\r\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    let path = write(dir.path(), "excel.csv", bytes);
    let err = input::read_text(&path).unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(err.to_string(), format!("{} is UTF-16; save it as UTF-8 and import again", path.display()));
}

#[test]
fn read_text_drops_a_utf8_byte_order_mark_and_returns_the_file_name_it_reports() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "bom.csv", b"\xEF\xBB\xBFid\nx\n");
    let (file, text) = input::read_text(&path).unwrap();
    assert_eq!((file, text.as_str()), (path.display().to_string(), "id\nx\n"));
}

#[test]
fn invalid_utf8_names_the_line_and_the_byte_counted_in_bytes_not_characters() {
    // "é" is two bytes, so the bad byte after it is byte 3 of line 2.
    let err = input::decode("t.csv", b"id\n\xC3\xA9\xFFz\n").unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert_eq!(
        err.to_string(),
        "t.csv: 1 problem found; nothing was imported\n  t.csv:2: byte 3 of this line is not valid UTF-8; the \
         file is in another encoding (perhaps Latin-1 or Windows-1252): save it as UTF-8 and import again"
    );
    // A character cut off by the end of the file is named where it starts.
    let err = input::decode("t.csv", b"caf\xC3").unwrap_err().to_string();
    assert!(err.ends_with("t.csv:1: byte 4 of this line is not valid UTF-8; the file is in another encoding (perhaps Latin-1 or Windows-1252): save it as UTF-8 and import again"), "{err}");
}

#[test]
fn a_nul_byte_in_otherwise_valid_utf8_is_refused_as_not_text() {
    let err = input::decode("t.jsonl", b"{}\n{}\nab\0cd\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.jsonl: 1 problem found; nothing was imported\n  t.jsonl:3: byte 3 of this line is a NUL byte; this is \
         not a text file"
    );
}

#[test]
fn utf16_and_utf32_are_recognised_in_either_byte_order_with_or_without_a_mark() {
    // Before: these were read as UTF-8 and gave one "unknown column" line per column.
    use forcebench::input::decode;
    let text = "id,group_id,source_dataset\nx,g,S\n";
    let wide = |width: usize, big_endian: bool, bom: bool| -> Vec<u8> {
        let mut out = Vec::new();
        for c in std::iter::once('\u{FEFF}').filter(|_| bom).chain(text.chars()) {
            let code = c as u32;
            let bytes: Vec<u8> = if width == 2 {
                let u = code as u16;
                if big_endian {
                    u.to_be_bytes().to_vec()
                } else {
                    u.to_le_bytes().to_vec()
                }
            } else if big_endian {
                code.to_be_bytes().to_vec()
            } else {
                code.to_le_bytes().to_vec()
            };
            out.extend(bytes);
        }
        out
    };
    for width in [2, 4] {
        for big_endian in [false, true] {
            for bom in [false, true] {
                let err = decode("t.csv", &wide(width, big_endian, bom)).unwrap_err().to_string();
                let name = if width == 2 { "UTF-16" } else { "UTF-32" };
                assert_eq!(
                    err,
                    format!("t.csv is {name}; save it as UTF-8 and import again"),
                    "width {width}, big-endian {big_endian}, mark {bom}"
                );
            }
        }
    }
    // UTF-8 with its mark is text, the mark dropped; Latin-1 is one problem at its byte.
    assert_eq!(decode("t.csv", format!("\u{FEFF}{text}").as_bytes()).unwrap(), text);
    let err = decode("t.csv", b"id\ncaf\xE9\n").unwrap_err().to_string();
    assert!(err.ends_with("t.csv:2: byte 4 of this line is not valid UTF-8; the file is in another encoding (perhaps Latin-1 or Windows-1252): save it as UTF-8 and import again"), "{err}");
}

#[test]
fn a_line_is_read_from_a_stream_up_to_the_limit_and_a_longer_one_is_skipped_whole() {
    // The session's reader: a long line must not be held in memory nor spill into the next one.
    use forcebench::input::{read_line_bounded, BoundedLine, MAX_LINE_BYTES};
    let mut input = Vec::new();
    input.extend_from_slice(b"first\n");
    input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
    input.extend_from_slice(b"\nlast");
    let mut reader = std::io::BufReader::with_capacity(4096, &input[..]);
    assert_eq!(read_line_bounded(&mut reader).unwrap(), BoundedLine::Line(b"first".to_vec()));
    assert_eq!(read_line_bounded(&mut reader).unwrap(), BoundedLine::TooLong);
    assert_eq!(read_line_bounded(&mut reader).unwrap(), BoundedLine::Line(b"last".to_vec()));
    assert_eq!(read_line_bounded(&mut reader).unwrap(), BoundedLine::End);
    let exact = vec![b'y'; MAX_LINE_BYTES];
    let mut reader = std::io::BufReader::new(&exact[..]);
    assert_eq!(
        read_line_bounded(&mut reader).unwrap(),
        BoundedLine::Line(exact.clone()),
        "a last line of exactly the limit is kept"
    );
}

// ---- Strict JSON ----

fn repeated(key: &str) -> LineProblem {
    LineProblem { field: Some(key.into()), message: "this key appears twice in one object; give each key once".into() }
}

#[test]
fn a_key_repeated_in_an_object_or_in_an_object_inside_it_is_refused_naming_the_key() {
    assert_eq!(input::parse_object(r#"{"severity":1,"severity":3}"#), Err(repeated("severity")));
    assert_eq!(input::parse_object(r#"{"span":{"start":1,"end":2,"start":0}}"#), Err(repeated("start")));
    assert_eq!(input::parse_strict(r#"[{"a":1},{"b":1,"b":2}]"#), Err(repeated("b")));
    // The same key in two sibling objects is no repetition.
    let ok = input::parse_object(r#"{"a":{"k":1},"b":{"k":2}}"#).unwrap();
    assert_eq!(serde_json::Value::Object(ok), serde_json::json!({"a": {"k": 1}, "b": {"k": 2}}));
}

#[test]
fn a_line_that_is_not_one_json_object_is_refused_in_words() {
    let not_object = LineProblem { field: None, message: "each line must be one JSON object".into() };
    for line in ["[1,2]", "\"id\"", "3", "null"] {
        assert_eq!(input::parse_object(line), Err(not_object.clone()), "{line}");
    }
    assert_eq!(
        input::parse_object(r#"{"id":"a"} {"id":"b"}"#),
        Err(LineProblem { field: None, message: "not valid JSON: trailing characters at line 1 column 12".into() })
    );
    assert_eq!(
        input::parse_object(r#"{"id":"a""#),
        Err(LineProblem {
            field: None,
            message: "not valid JSON: EOF while parsing an object at line 1 column 9".into()
        })
    );
}

#[test]
fn jsonl_skips_blank_lines_keeps_line_numbers_and_reports_every_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let path =
        write(dir.path(), "a.jsonl", "{\"id\":\"r1\"}\n\n   \n{\"id\":\"r2\",\"id\":\"r3\"}\n[1]\n{\"id\":\"r4\"}");
    let (file, objects, problems) = input::jsonl_objects(&path).unwrap();
    assert_eq!(file, path.display().to_string());
    let ids: Vec<(u64, &str)> = objects.iter().map(|(line, o)| (*line, o["id"].as_str().unwrap())).collect();
    assert_eq!(ids, [(1, "r1"), (6, "r4")]);
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            format!("{file}:4: field `id`: this key appears twice in one object; give each key once"),
            format!("{file}:5: each line must be one JSON object"),
        ]
    );
}

#[test]
fn a_number_must_be_given_as_a_number_and_text_as_text() {
    use serde_json::json;
    assert_eq!(input::field_text(ValueKind::WholeNumber, json!(2)), Ok(Some("2".into())));
    assert_eq!(
        input::field_text(ValueKind::WholeNumber, json!("2")),
        Err("expected a number, found the string \"2\"; write numbers without quotes".into())
    );
    assert_eq!(
        input::field_text(ValueKind::WholeNumber, json!(true)),
        Err("expected a whole number, found a boolean".into())
    );
    assert_eq!(input::field_text(ValueKind::Text, json!(7)), Err("expected a string, found a number".into()));
    assert_eq!(input::field_text(ValueKind::Text, json!(["a"])), Err("expected a string, found an array".into()));
    for kind in [ValueKind::Text, ValueKind::WholeNumber, ValueKind::Span] {
        assert_eq!(input::field_text(kind, json!(null)), Ok(None), "{kind:?}");
    }
}

#[test]
fn a_span_is_its_text_or_an_object_of_text_and_numeric_offsets_only() {
    use serde_json::json;
    let span = |v| input::field_text(ValueKind::Span, v);
    assert_eq!(span(json!("may reduce")), Ok(Some("may reduce".into())));
    assert_eq!(
        span(json!({"text": "may", "start": 4, "end": 7})),
        Ok(Some(r#"{"text":"may","start":4,"end":7}"#.into()))
    );
    assert_eq!(
        span(json!({"text": "may", "start": "4", "end": 7})),
        Err("the span's `start`: expected a number, found the string \"4\"; write numbers without quotes".into())
    );
    assert_eq!(
        span(json!({"text": "may", "start": -1, "end": 7})),
        Err("the span's `start` must be a byte offset (a whole number 0 or more), found -1".into())
    );
    assert_eq!(
        span(json!({"text": "may", "start": 4, "end": 4294967296u64})),
        Err("the span's `end` must be a byte offset (a whole number 0 or more), found 4294967296".into())
    );
    assert_eq!(
        span(json!({"text": "may", "start": 4, "end": 7, "len": 3})),
        Err("a span object has the keys text, start and end; `len` is not one of them".into())
    );
    assert_eq!(span(json!({"start": 4, "end": 7})), Err("a span object needs its `text`".into()));
    assert_eq!(
        span(json!({"text": 5, "start": 4, "end": 7})),
        Err("the span's `text` must be a string, found a number".into())
    );
    assert_eq!(span(json!({"text": "may", "start": 4})), Err("a span object needs its `end` offset".into()));
}

// ---- Identifiers people read ----

#[test]
fn an_identifier_with_a_direction_changing_character_is_refused_naming_the_code_point_and_shown_escaped() {
    assert_eq!(
        input::check_identifier("id", "row-\u{202E}1"),
        Err("id `row-\\u{202E}1` contains U+202E RIGHT-TO-LEFT OVERRIDE, an invisible or direction-changing character"
            .into())
    );
    assert_eq!(
        input::check_identifier("group id", "\u{2067}g1\u{2069}"),
        Err("group id `\\u{2067}g1\\u{2069}` contains U+2067 RIGHT-TO-LEFT ISOLATE, an invisible or direction-changing character".into())
    );
    assert_eq!(
        input::check_identifier("name", "an\u{200B}a"),
        Err("name `an\\u{200B}a` contains U+200B ZERO WIDTH SPACE, an invisible or direction-changing character".into())
    );
    assert_eq!(
        input::check_identifier("name", "ana\u{E0041}"),
        Err("name `ana\\u{E0041}` contains U+E0041 TAG CHARACTER, an invisible or direction-changing character".into())
    );
}

#[test]
fn an_identifier_with_a_control_character_is_refused_as_a_control_character() {
    for (c, code) in [('\t', "0009"), ('\u{1B}', "001B"), ('\u{7F}', "007F"), ('\u{85}', "0085")] {
        assert_eq!(
            input::check_identifier("id", &format!("a{c}b")),
            Err(format!("id `a\\u{{{code}}}b` contains U+{code}, a control character")),
            "U+{code}"
        );
    }
}

#[test]
fn identifiers_in_any_script_with_visible_accents_and_spaces_are_accepted() {
    for id in ["Zoë", "山田 太郎", "Ñandú-2", "r0001", "أحمد", "a b", "e\u{301}"] {
        assert_eq!(input::check_identifier("name", id), Ok(()), "{id}");
    }
}
