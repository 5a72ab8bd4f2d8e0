//! Reading a person's input files, and what can be wrong with them.
//!
//! Every reader of a user file (candidates, annotation and adjudication JSONL, evaluator scores,
//! judge responses, label maps, judge templates, the agreement CSV) goes through this module, so
//! one set of rules holds for all of them:
//!
//! - only a regular file is read: a FIFO, device, socket or directory is refused before it is
//!   opened, and it is opened without blocking (a FIFO swapped in meanwhile cannot hang a read);
//! - a file may hold at most [`MAX_FILE_BYTES`] and one line (or one CSV field)
//!   [`MAX_LINE_BYTES`]; larger input is refused with the limit named, never read without bound;
//! - the text must be UTF-8 (a UTF-8 byte-order mark is dropped): a UTF-16 or UTF-32 file, with
//!   or without a byte-order mark, is named as such in one line, and any other invalid byte is one
//!   problem naming its line and byte;
//! - a JSON object may not repeat a key, and a field that holds a number must be given a number,
//!   not a string of digits ([`parse_object`], [`field_text`]);
//! - identifiers people read (row ids, group and source ids, names) may not hold control,
//!   invisible or direction-changing characters, nor spaces other than the plain one
//!   ([`check_identifier`]), and are read in Unicode normalisation form C ([`nfc`]); an id or
//!   name given to a command is looked up the same way ([`id_key`], [`name_key`]).
//!
//! A new reader calls [`read_text`] (or [`jsonl_objects`] for JSON lines) and reports its own
//! problems as [`InputProblem`]s.

pub use crate::problem::InputProblem;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;
use std::io::{BufRead, Read};
use std::path::Path;

use crate::error::{Error, Result};

/// The largest input file read: 256 MiB.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The longest single line (or CSV field) read: 1 MiB.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// A problem with a whole file (its kind, size or encoding): one line, naming the file.
fn unreadable(file: &str, message: impl Into<String>) -> Error {
    Error::UnreadableInput { file: file.to_string(), message: message.into() }
}

/// One problem on one line of a file, as the error every reader returns.
fn invalid_line(file: &str, line: u64, message: String) -> Error {
    Error::InvalidInput {
        file: file.to_string(),
        problems: vec![InputProblem { file: file.to_string(), line: Some(line), field: None, message }],
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// What a path is when it is not a regular file, in words.
fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

fn refuse_kind(file: &str, kind: &str) -> Error {
    unreadable(file, format!("is {kind}, not a regular file; ForceBench reads input only from regular files"))
}

/// The bytes of the user file at `path`: a regular file of at most [`MAX_FILE_BYTES`].
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let file = path.display().to_string();
    // stat first: it does not block on a FIFO, and it follows symlinks as open does.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(refuse_kind(&file, kind));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Should the path be swapped for a FIFO after the check, opening it still returns at once.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut handle = options.open(path).map_err(|e| Error::io(path, e))?;
    let meta = handle.metadata().map_err(|e| Error::io(path, e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(refuse_kind(&file, kind));
    }
    let too_big = |size: u64| {
        unreadable(
            &file,
            format!(
                "is {}, more than {} (the limit for one input file); split it into smaller files",
                mib(size),
                mib(MAX_FILE_BYTES)
            ),
        )
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut handle).take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of the user file at `path` (see [`decode`]); returns the file's name as shown in
/// messages and its text.
pub fn read_text(path: &Path) -> Result<(String, String)> {
    let file = path.display().to_string();
    let bytes = read_bytes(path)?;
    let text = decode(&file, &bytes)?.to_string();
    Ok((file, text))
}

/// The encoding a file's first bytes show when it is not UTF-8 text: UTF-16 or UTF-32 by a
/// byte-order mark, or by where the NUL bytes of mostly-ASCII text fall.
pub(crate) fn wide_encoding(bytes: &[u8]) -> Option<&'static str> {
    const BOMS: [(&[u8], &str); 4] = [
        (b"\xFF\xFE\x00\x00", "UTF-32"),
        (b"\x00\x00\xFE\xFF", "UTF-32"),
        (b"\xFF\xFE", "UTF-16"),
        (b"\xFE\xFF", "UTF-16"),
    ];
    if let Some((_, name)) = BOMS.iter().find(|(bom, _)| bytes.starts_with(bom)) {
        return Some(name);
    }
    let sample = &bytes[..bytes.len().min(4096) / 4 * 4];
    if sample.is_empty() || !sample.contains(&0) {
        return None;
    }
    // zeros[k]: how many bytes at offset k (mod 4) are NUL.
    let mut zeros = [0usize; 4];
    for (i, b) in sample.iter().enumerate() {
        if *b == 0 {
            zeros[i % 4] += 1;
        }
    }
    let quads = sample.len() / 4;
    let most = |n: usize| n * 10 >= quads * 9;
    let few = |n: usize| n * 10 <= quads;
    if most(zeros[1]) && most(zeros[2]) && most(zeros[3]) && few(zeros[0]) {
        return Some("UTF-32"); // little-endian
    }
    if most(zeros[0]) && most(zeros[1]) && most(zeros[2]) && few(zeros[3]) {
        return Some("UTF-32"); // big-endian
    }
    if (most(zeros[1]) && most(zeros[3]) && few(zeros[0]) && few(zeros[2]))
        || (most(zeros[0]) && most(zeros[2]) && few(zeros[1]) && few(zeros[3]))
    {
        return Some("UTF-16");
    }
    None
}

/// The first line longer than [`MAX_LINE_BYTES`]: its index (from 0) and length without its `\n`.
fn long_line(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut start = 0;
    for (index, end) in memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]).enumerate() {
        if end - start > MAX_LINE_BYTES {
            return Some((index, end - start));
        }
        start = end + 1;
    }
    None
}

/// Checks that `bytes` are UTF-8 text with no NUL byte and no line longer than
/// [`MAX_LINE_BYTES`], and returns the text without a UTF-8 byte-order mark. `file` names the
/// input in messages.
pub fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str> {
    if let Some(encoding) = wide_encoding(bytes) {
        return Err(unreadable(file, format!("is {encoding}; save it as UTF-8 and import again")));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // Whole-buffer checks first (they are fast); lines are counted only to report a problem.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let (line, byte) = locate(bytes, e.valid_up_to());
            return Err(invalid_line(
                file,
                line,
                format!(
                    "byte {byte} of this line is not valid UTF-8; the file is in another encoding (perhaps \
                     Latin-1 or Windows-1252): save it as UTF-8 and import again"
                ),
            ));
        }
    };
    if let Some(at) = memchr::memchr(0, bytes) {
        let (line, byte) = locate(bytes, at);
        return Err(invalid_line(
            file,
            line,
            format!("byte {byte} of this line is a NUL byte; this is not a text file"),
        ));
    }
    if let Some((index, long)) = long_line(bytes) {
        return Err(invalid_line(
            file,
            index as u64 + 1,
            format!(
                "this line is {}, more than {} (the limit for one line)",
                mib(long as u64),
                mib(MAX_LINE_BYTES as u64)
            ),
        ));
    }
    Ok(text)
}

/// The line (from 1) and byte within it (from 1) of the byte at `offset`.
fn locate(bytes: &[u8], offset: usize) -> (u64, usize) {
    let before = &bytes[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() as u64 + 1;
    let start = before.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    (line, offset - start + 1)
}

/// A JSON object read from one line of a JSONL file, with its line number (from 1).
pub type JsonLine = (u64, serde_json::Map<String, serde_json::Value>);

/// Reads a JSONL file into its objects, skipping blank lines. A line that is not JSON, not an
/// object, or repeats a key becomes a problem naming the file and line, so the caller can report
/// every problem of the file at once. Returns the file name as shown in messages.
pub fn jsonl_objects(path: &Path) -> Result<(String, Vec<JsonLine>, Vec<InputProblem>)> {
    let (file, text) = read_text(path)?;
    let (objects, problems) = jsonl_lines(&file, &text);
    Ok((file, objects, problems))
}

/// The objects of JSONL text already read (see [`jsonl_objects`]).
pub fn jsonl_lines(file: &str, text: &str) -> (Vec<JsonLine>, Vec<InputProblem>) {
    let mut objects = Vec::new();
    let problems = jsonl_each(file, text, |line, map| objects.push((line, map)));
    (objects, problems)
}

/// Hands each object of JSONL text to `each` as it is parsed, so a reader that keeps only what
/// it needs of each line never holds every line's JSON tree at once; returns the lines that are
/// not acceptable objects, as [`jsonl_objects`] does.
pub fn jsonl_each(
    file: &str,
    text: &str,
    mut each: impl FnMut(u64, serde_json::Map<String, serde_json::Value>),
) -> Vec<InputProblem> {
    let mut problems = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        match parse_object(raw) {
            Ok(map) => each(line, map),
            Err(p) => problems.push(InputProblem {
                file: file.to_string(),
                line: Some(line),
                field: p.field,
                message: p.message,
            }),
        }
    }
    problems
}

/// Why a line is not an acceptable JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// The key involved, when there is one (a repeated key).
    pub field: Option<String>,
    pub message: String,
}

/// The message for one CSV field above [`MAX_LINE_BYTES`] (its lines may each be shorter).
pub fn field_too_long(len: usize) -> String {
    format!("this field is {}, more than {} (the limit for one field)", mib(len as u64), mib(MAX_LINE_BYTES as u64))
}

/// Parses one JSON object, refusing a key repeated in it or in any object inside it (the
/// standard parser would keep the last value silently).
pub fn parse_object(text: &str) -> std::result::Result<serde_json::Map<String, serde_json::Value>, LineProblem> {
    match parse_strict(text)? {
        serde_json::Value::Object(map) => Ok(map),
        _ => Err(LineProblem { field: None, message: "each line must be one JSON object".into() }),
    }
}

/// Parses one JSON value, refusing a key repeated in any object of it.
pub fn parse_strict(text: &str) -> std::result::Result<serde_json::Value, LineProblem> {
    let repeated = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Strict { repeated: &repeated }.deserialize(&mut de).and_then(|v| de.end().map(|_| v));
    parsed.map_err(|e| match repeated.into_inner() {
        Some(key) => {
            LineProblem { field: Some(key), message: "this key appears twice in one object; give each key once".into() }
        }
        None => LineProblem { field: None, message: format!("not valid JSON: {e}") },
    })
}

/// A JSON value built like `serde_json::Value`, but a repeated key is an error (its name is kept
/// in `repeated` for the message).
struct Strict<'a> {
    repeated: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = serde_json::Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict { repeated: self.repeated })? {
            items.push(v);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                *self.repeated.borrow_mut() = Some(key.clone());
                return Err(serde::de::Error::custom(format!("duplicate key `{key}`")));
            }
            let value = map.next_value_seed(Strict { repeated: self.repeated })?;
            out.insert(key, value);
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// What a JSON value is, in words, for messages.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// What a field of an input line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Text (a string).
    Text,
    /// A whole number such as a severity: a JSON number, never a string of digits.
    WholeNumber,
    /// An evidence span: its text as a string, or an object `{text, start, end}` whose offsets
    /// are numbers.
    Span,
}

/// The value of a field as the text the core stores (`None` for null), or why it is refused: a
/// number where text is meant, a string where a number is meant, or a span whose offsets are not
/// numbers.
pub fn field_text(kind: ValueKind, value: serde_json::Value) -> std::result::Result<Option<String>, String> {
    use serde_json::Value;
    match (kind, value) {
        (_, Value::Null) => Ok(None),
        (ValueKind::Text | ValueKind::Span, Value::String(s)) => Ok(Some(s)),
        (ValueKind::WholeNumber, Value::Number(n)) => Ok(Some(n.to_string())),
        (ValueKind::WholeNumber, Value::String(s)) => Err(number_as_string(&s)),
        (ValueKind::Span, Value::Object(map)) => {
            for key in map.keys() {
                if !["text", "start", "end"].contains(&key.as_str()) {
                    return Err(format!("a span object has the keys text, start and end; `{key}` is not one of them"));
                }
            }
            match map.get("text") {
                Some(Value::String(_)) => {}
                Some(other) => return Err(format!("the span's `text` must be a string, found {}", json_kind(other))),
                None => return Err("a span object needs its `text`".into()),
            }
            for key in ["start", "end"] {
                match map.get(key) {
                    Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n <= u32::MAX as u64) => {}
                    Some(Value::String(s)) => return Err(format!("the span's `{key}`: {}", number_as_string(s))),
                    Some(other) => {
                        return Err(format!(
                            "the span's `{key}` must be a byte offset (a whole number 0 or more), found {other}"
                        ))
                    }
                    None => return Err(format!("a span object needs its `{key}` offset")),
                }
            }
            Ok(Some(Value::Object(map).to_string()))
        }
        (ValueKind::WholeNumber, other) => Err(format!("expected a whole number, found {}", json_kind(&other))),
        (_, other) => Err(format!("expected a string, found {}", json_kind(&other))),
    }
}

/// The message for a number written as a string.
pub fn number_as_string(s: &str) -> String {
    format!("expected a number, found the string {}; write numbers without quotes", serde_json::Value::from(s))
}

/// A character that may not appear in an identifier, with its Unicode name where it has one
/// people would look up.
fn forbidden(c: char) -> Option<(&'static str, &'static str)> {
    const INVISIBLE: &str = "an invisible or direction-changing character";
    let name = match c as u32 {
        0x00..=0x1F | 0x7F..=0x9F => return Some(("", "a control character")),
        0x00AD => "SOFT HYPHEN",
        0x034F => "COMBINING GRAPHEME JOINER",
        0x061C => "ARABIC LETTER MARK",
        0x115F => "HANGUL CHOSEONG FILLER",
        0x1160 => "HANGUL JUNGSEONG FILLER",
        0x17B4 => "KHMER VOWEL INHERENT AQ",
        0x17B5 => "KHMER VOWEL INHERENT AA",
        0x180E => "MONGOLIAN VOWEL SEPARATOR",
        0x200B => "ZERO WIDTH SPACE",
        0x200C => "ZERO WIDTH NON-JOINER",
        0x200D => "ZERO WIDTH JOINER",
        0x200E => "LEFT-TO-RIGHT MARK",
        0x200F => "RIGHT-TO-LEFT MARK",
        0x2028 => "LINE SEPARATOR",
        0x2029 => "PARAGRAPH SEPARATOR",
        0x202A => "LEFT-TO-RIGHT EMBEDDING",
        0x202B => "RIGHT-TO-LEFT EMBEDDING",
        0x202C => "POP DIRECTIONAL FORMATTING",
        0x202D => "LEFT-TO-RIGHT OVERRIDE",
        0x202E => "RIGHT-TO-LEFT OVERRIDE",
        0x2060 => "WORD JOINER",
        0x2061 => "FUNCTION APPLICATION",
        0x2062 => "INVISIBLE TIMES",
        0x2063 => "INVISIBLE SEPARATOR",
        0x2064 => "INVISIBLE PLUS",
        0x2066 => "LEFT-TO-RIGHT ISOLATE",
        0x2067 => "RIGHT-TO-LEFT ISOLATE",
        0x2068 => "FIRST STRONG ISOLATE",
        0x2069 => "POP DIRECTIONAL ISOLATE",
        0x206A..=0x206F => "DEPRECATED FORMAT CHARACTER",
        0x3164 => "HANGUL FILLER",
        0xFE00..=0xFE0F => "VARIATION SELECTOR",
        0xFEFF => "ZERO WIDTH NO-BREAK SPACE",
        0xFFA0 => "HALFWIDTH HANGUL FILLER",
        0xFFF9..=0xFFFB => "INTERLINEAR ANNOTATION CHARACTER",
        0xE0000..=0xE007F => "TAG CHARACTER",
        0xE0100..=0xE01EF => "VARIATION SELECTOR",
        // Spaces that look like the plain space: `x<NBSP>1` beside `x 1`.
        0x00A0 => return Some(("NO-BREAK SPACE", SPACE_LIKE)),
        0x1680 => return Some(("OGHAM SPACE MARK", SPACE_LIKE)),
        0x2000..=0x200A => return Some(("SPACE", SPACE_LIKE)),
        0x202F => return Some(("NARROW NO-BREAK SPACE", SPACE_LIKE)),
        0x205F => return Some(("MEDIUM MATHEMATICAL SPACE", SPACE_LIKE)),
        0x2800 => return Some(("BRAILLE PATTERN BLANK", SPACE_LIKE)),
        0x3000 => return Some(("IDEOGRAPHIC SPACE", SPACE_LIKE)),
        _ => return None,
    };
    Some((name, INVISIBLE))
}

/// The kind of a space-like character in an identifier's refusal.
const SPACE_LIKE: &str = "a space that looks like a plain space (only U+0020 may appear)";

/// `value` in Unicode normalisation form C: an id or name typed with a composed
/// `é` and one typed as `e` and a combining accent are the same text, so they are stored and
/// compared composed. Every reader of ids and names calls it before [`check_identifier`].
pub fn nfc(value: &str) -> String {
    icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(value).into_owned()
}

/// [`nfc`] of a string already owned: given back as it is when it is in NFC already (nearly
/// always), so a bulk import does not copy every identifier it reads.
pub fn into_nfc(value: String) -> String {
    match icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(&value) {
        std::borrow::Cow::Borrowed(_) => value,
        std::borrow::Cow::Owned(composed) => composed,
    }
}

/// A row id as it arrives from outside a file (a command-line argument, the app, an `annotate
/// session` line), in the form ids are stored: NFC, so `cafe\u{301}` finds the row imported as
/// `café`; an id holding a character no imported id can hold (a control, invisible or space-like
/// one: `x<NBSP>1`) is refused with the words import uses. Every core function that
/// looks a row up by an id it was given calls it first.
pub fn id_key(value: &str) -> Result<std::borrow::Cow<'_, str>> {
    identifier_key("id", value)
}

/// A person's name as it arrives from outside a file, as [`id_key`] does for ids: trimmed (as
/// the roster stores names), NFC, and refused with the roster's words if it holds a character no
/// name on the roster can hold.
pub fn name_key(value: &str) -> Result<std::borrow::Cow<'_, str>> {
    identifier_key("name", value.trim())
}

/// Any identifier as it arrives from outside a file, as [`id_key`] does for ids: NFC, refused
/// (naming it `what`: "evaluator name"...) if it holds a character no stored one can hold.
pub fn identifier_key<'a>(what: &str, value: &'a str) -> Result<std::borrow::Cow<'a, str>> {
    let value = icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(value);
    check_identifier(what, &value).map_err(Error::InvalidArgument)?;
    Ok(value)
}

/// `value` with every forbidden character written as `\u{XXXX}`, so a message shows it.
pub fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if forbidden(c).is_some() {
            out.push_str(&format!("\\u{{{:04X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Refuses an identifier people read (a row, group or source id, a person's or evaluator's name)
/// that holds a control, invisible or direction-changing character: two such ids look the same
/// and are not. `what` names the identifier in the message ("id", "annotator name"...).
pub fn check_identifier(what: &str, value: &str) -> std::result::Result<(), String> {
    // Printable ASCII holds none of the forbidden characters; most identifiers are that.
    if value.bytes().all(|b| (0x20..0x7F).contains(&b)) {
        return Ok(());
    }
    let Some((c, (name, kind))) = value.chars().find_map(|c| forbidden(c).map(|f| (c, f))) else {
        return Ok(());
    };
    let name = if name.is_empty() { String::new() } else { format!(" {name}") };
    Err(format!("{what} `{}` contains U+{:04X}{name}, {kind}", escaped(value), c as u32))
}

/// Whether `text` holds nothing a reader sees: only white space and the characters ids may not
/// hold (invisible, control, space-like: U+200B ZERO WIDTH SPACE, U+FEFF...). A note, reason or
/// rationale a step requires must hold visible text: a note of only U+200B looks empty to every
/// reader, so it is no note.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || forbidden(c).is_some())
}

/// One line read by [`read_line_bounded`].
#[derive(Debug, PartialEq, Eq)]
pub enum BoundedLine {
    /// The input has ended.
    End,
    /// A line (without its `\n`) of at most [`MAX_LINE_BYTES`].
    Line(Vec<u8>),
    /// A line longer than the limit; it was read to its end and dropped.
    TooLong,
}

/// Reads one line of at most [`MAX_LINE_BYTES`] from a stream, never holding more than that in
/// memory; a longer line is consumed and reported as [`BoundedLine::TooLong`].
pub fn read_line_bounded(reader: &mut impl BufRead) -> std::io::Result<BoundedLine> {
    let mut line = Vec::new();
    let n = reader.by_ref().take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(BoundedLine::End);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(BoundedLine::Line(line));
    }
    if line.len() <= MAX_LINE_BYTES {
        return Ok(BoundedLine::Line(line)); // the last line, with no newline
    }
    // Skip the rest of the long line in bounded steps.
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(BoundedLine::TooLong);
        }
        match buf.iter().position(|b| *b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(BoundedLine::TooLong);
            }
            None => {
                let len = buf.len();
                reader.consume(len);
            }
        }
    }
}
