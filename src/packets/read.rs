//! Reading a packet file: the checks every packet passes before it is used (format, version,
//! kind, the issued packet's checksum and key, the return's shape), and its canonical form (compact
//! JSON of every top-level key but `checksum` and `mac`, in file order) that the checksum and the
//! HMAC cover.
//!
//! A packet is read without a `serde_json::Value` tree, which held about 40 KB per row (4 GB for
//! a 100,000-row return): the canonical form is streamed from the file's bytes into the digest and
//! the packet is parsed straight from them. The tree is kept as the reference, for the wording of
//! a packet's parse errors. A key twice in one object (which no ForceBench writes) is refused.

use hmac::Mac;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

use super::{decode_secret, keyed, Digesting, Packet, FORMAT, FORMAT_VERSION, OLDEST_VERSION};
use crate::error::{Error, Result};

/// Feeds a packet's canonical form (compact JSON of every key but `checksum` and `mac`, in file
/// order) into `out`, without copying the packet: the same bytes as printing the object with
/// those keys removed.
fn write_canonical(value: &Value, out: &mut impl std::io::Write) {
    let Value::Object(map) = value else {
        serde_json::to_writer(out, value).expect("writing to a hasher cannot fail");
        return;
    };
    let mut first = true;
    out.write_all(b"{").expect("writing to a hasher cannot fail");
    for (key, v) in map.iter().filter(|(k, _)| *k != "checksum" && *k != "mac") {
        if !std::mem::take(&mut first) {
            out.write_all(b",").expect("writing to a hasher cannot fail");
        }
        serde_json::to_writer(&mut *out, key).expect("writing to a hasher cannot fail");
        out.write_all(b":").expect("writing to a hasher cannot fail");
        serde_json::to_writer(&mut *out, v).expect("writing to a hasher cannot fail");
    }
    out.write_all(b"}").expect("writing to a hasher cannot fail");
}

fn digest_canonical<D: sha2::digest::Update>(value: &Value, digest: D) -> D {
    let mut w = std::io::BufWriter::with_capacity(1 << 16, Digesting(digest));
    write_canonical(value, &mut w);
    w.into_inner().map_err(|_| ()).expect("writing to a hasher cannot fail").0
}

/// sha256 (hex) of a packet's canonical form.
pub fn checksum_of(value: &Value) -> String {
    hex::encode(digest_canonical(value, Sha256::new()).finalize())
}

/// sha256 (hex) of the canonical form of the packet JSON in `bytes`, streamed from them as reading
/// a packet does (without a tree): equal to [`checksum_of`] of the parsed file.
pub fn checksum_of_bytes(bytes: &[u8]) -> Result<String> {
    canonical_of_bytes(bytes, Sha256::new()).map(|d| hex::encode(d.finalize()))
}

/// HMAC-SHA256 (hex) of the canonical form of the packet JSON in `bytes`, streamed from them as
/// merge does: equal to [`mac_of`] of the parsed file.
pub fn mac_of_bytes(bytes: &[u8], secret: &[u8]) -> Result<String> {
    canonical_of_bytes(bytes, keyed(secret)).map(|d| hex::encode(d.finalize().into_bytes()))
}

/// The streamed digest of any JSON object in `bytes`; one with a key twice goes through the tree.
fn canonical_of_bytes<D: sha2::digest::Update>(bytes: &[u8], digest: D) -> Result<D> {
    match scan(bytes) {
        Ok(_) => digest_canonical_bytes(bytes, digest),
        Err(ScanError::Repeated { .. }) => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|e| Error::InvalidArgument(format!("not a JSON object: {e}")))?;
            Ok(digest_canonical(&value, digest))
        }
        Err(ScanError::Json(e)) => Err(Error::InvalidArgument(format!("not a JSON object: {e}"))),
    }
}

/// HMAC-SHA256 (hex) of a packet's canonical form, keyed by the packet's secret.
pub fn mac_of(value: &Value, secret: &[u8]) -> String {
    hex::encode(digest_canonical(value, keyed(secret)).finalize().into_bytes())
}

/// Reads and parses a packet file: its format and version, and for an issued packet its
/// checksum and key. A returned packet is authenticated only by [`merge`](super::merge), which holds the key.
pub fn read(path: &Path) -> Result<Packet> {
    read_canonical(path).map(|(packet, _)| packet)
}

/// A refusal of a packet file as a whole, naming the file.
fn file_problem(file: &str, message: String) -> Error {
    Error::InvalidInput {
        file: file.to_string(),
        problems: vec![crate::import::InputProblem { file: file.to_string(), line: None, field: None, message }],
    }
}

/// What a packet's HMAC is checked against: the file as read (its canonical form is streamed from
/// the bytes), or, for the rare file read through a JSON tree, that tree.
pub(super) enum Canonical {
    Bytes(Vec<u8>),
    Tree(Value),
}

impl Canonical {
    /// Whether `stated` (hex) is the HMAC of the packet's canonical form under `secret`, compared
    /// in constant time.
    pub(super) fn mac_matches(&self, secret: &[u8], stated: &str) -> Result<bool> {
        match self {
            Canonical::Bytes(bytes) => bytes_mac_matches(bytes, secret, stated),
            Canonical::Tree(value) => {
                let Ok(stated) = hex::decode(stated) else { return Ok(false) };
                Ok(digest_canonical(value, keyed(secret)).verify_slice(&stated).is_ok())
            }
        }
    }
}

/// Whether `stated` (hex) is the HMAC under `secret` of the canonical form streamed from `bytes`
/// (a packet already scanned), compared in constant time.
fn bytes_mac_matches(bytes: &[u8], secret: &[u8], stated: &str) -> Result<bool> {
    let Ok(stated) = hex::decode(stated) else { return Ok(false) };
    Ok(digest_canonical_bytes(bytes, keyed(secret))?.verify_slice(&stated).is_ok())
}

/// [`read`], also returning what the HMAC is checked against (it covers the file's canonical
/// form, not a re-serialised packet).
///
/// The file is read as every input file is ([`crate::input::read_bytes`]): only a regular file,
/// opened without blocking, of at most 256 MiB, so `/dev/zero` or a named pipe is refused at once
/// instead of read without end or waited on. A UTF-8 byte-order mark is dropped (the digests cover
/// the parsed values, not the bytes); a UTF-16 or UTF-32 file is named as such.
///
/// The file is read without a JSON tree (which held about 40 KB per row): one pass checks that it
/// is JSON, exactly as `serde_json` parses a `Value`, picks out the top-level fields the checks
/// below need, and refuses a key given twice in any object (also when one spelling escapes a
/// letter, `"\u0061nnotator"`), as `import` does: a parser would keep the last value silently. The
/// checksum streams the canonical form from the bytes; the packet is parsed from the bytes. A
/// file whose packet does not parse is read through the tree, which words its errors its own way.
pub(super) fn read_canonical(path: &Path) -> Result<(Packet, Canonical)> {
    read_canonical_then(path, |_: &Returned| Ok(())).map(|(packet, canonical, _)| (packet, canonical))
}

/// What [`read_canonical_then`] hands on of a returned packet whose header passed the checks:
/// its id and stated HMAC as the file gives them (the parsed packet's, when it parses), and the
/// bytes its canonical form is read from.
pub(super) struct Returned<'a> {
    pub(super) packet_id: &'a str,
    pub(super) mac: &'a str,
    bytes: &'a [u8],
}

impl Returned<'_> {
    /// Whether the stated HMAC is the canonical form's under `secret`, as [`Canonical::mac_matches`].
    pub(super) fn mac_matches(&self, secret: &[u8]) -> Result<bool> {
        bytes_mac_matches(self.bytes, secret, self.mac)
    }
}

/// [`read_canonical`], running `then` on a returned packet once its header has passed the checks,
/// on this thread while the packet is still being parsed on the other (the HMAC, a pass over the
/// bytes as long as the scan, then costs no time of its own). Its result is `None` when the file
/// is read through the tree, or is an issued packet.
pub(super) fn read_canonical_then<T>(
    path: &Path,
    then: impl FnOnce(&Returned) -> Result<T>,
) -> Result<(Packet, Canonical, Option<T>)> {
    let file = path.display().to_string();
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_file() && meta.len() > crate::input::MAX_FILE_BYTES {
            return Err(Error::NotAPacket {
                file,
                why: format!(
                    "it is {} MiB, more than the {} MiB a packet may hold (ForceBench reads no larger input file)",
                    meta.len() / (1024 * 1024),
                    crate::input::MAX_FILE_BYTES / (1024 * 1024)
                ),
            });
        }
    }
    let mut bytes = crate::input::read_bytes(path)?;
    if let Some(encoding) = crate::input::wide_encoding(&bytes) {
        return Err(Error::NotAPacket {
            file,
            why: format!(
                "it is {encoding}, and a packet is UTF-8 JSON (save it as UTF-8, or use the file the app wrote)"
            ),
        });
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    // The packet is parsed on a second thread while this one scans the file and checks its header
    // (each is a pass over the bytes, about 0.8 s for a 100,000-row return); the parse is used
    // only if the scan and the checks pass.
    let (checked, parsed) = std::thread::scope(|s| {
        let parse = s.spawn(|| serde_json::from_slice::<Packet>(&bytes));
        let checked = check_header(&file, &bytes).and_then(|header| match header.str("kind") {
            Some("returned") => {
                let (Some(packet_id), Some(mac)) = (header.str("packet_id"), header.str("mac")) else {
                    return Ok(None);
                };
                then(&Returned { packet_id, mac, bytes: &bytes }).map(Some)
            }
            _ => Ok(None),
        });
        (checked, parse.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    let then = checked?;
    match parsed {
        Ok(packet) => Ok((packet, Canonical::Bytes(bytes), then)),
        Err(_) => read_tree(&file, bytes).map(|(packet, canonical)| (packet, canonical, None)),
    }
}

/// The checks of a packet file's header, from one scan of its bytes: JSON with no key twice, the
/// format and its version, and the kind with what it requires (an issued packet's checksum and
/// key, a return's HMAC and workspace). Returns the header.
fn check_header(file: &str, bytes: &[u8]) -> Result<Header> {
    let fail = |message: String| file_problem(file, message);
    let header = match scan(bytes) {
        Ok(header) => header,
        Err(ScanError::Json(e)) => return Err(unparsable(file, bytes, e)),
        Err(ScanError::Repeated { key, line }) => {
            return Err(Error::InvalidInput {
                file: file.to_string(),
                problems: vec![crate::import::InputProblem {
                    file: file.to_string(),
                    line: Some(line as u64),
                    field: Some(key),
                    message: "this key appears twice in one object; give each key once".into(),
                }],
            })
        }
    };
    let not_a_packet = |why: String| Error::NotAPacket { file: file.to_string(), why };
    if header.str("format") != Some(FORMAT) {
        return Err(not_a_packet(format!("it has no \"format\": \"{FORMAT}\"")));
    }
    let version = header.u64("format_version").unwrap_or(0);
    check_version(version).map_err(fail)?;
    match header.str("kind") {
        Some("issued") => {
            let stated = header.str("checksum").unwrap_or_default();
            let sum = hex::encode(digest_canonical_bytes(bytes, Sha256::new())?.finalize());
            check_issued(stated != sum || header.has("mac"), header.str("secret")).map_err(fail)?;
        }
        Some("returned") => check_returned(
            header.has("secret") || header.has("checksum") || header.str("mac").is_none(),
            header.str("workspace_id"),
        )
        .map_err(fail)?,
        _ => return Err(fail(KIND_REFUSAL.into())),
    }
    Ok(header)
}

/// The refusal of a file that is not JSON (or not JSON that parses).
fn unparsable(file: &str, bytes: &[u8], e: serde_json::Error) -> Error {
    let why = if bytes.trim_ascii_start().starts_with(b"{") {
        format!("its JSON does not parse ({e})")
    } else {
        "it is not a JSON file (a packet is the .json file that Issue packets or Return packet wrote)".into()
    };
    Error::NotAPacket { file: file.to_string(), why }
}

const KIND_REFUSAL: &str = "`kind` must be `issued` or `returned`";

fn check_version(version: u64) -> std::result::Result<(), String> {
    if version > FORMAT_VERSION as u64 {
        return Err(format!("packet format version {version} is newer than this ForceBench reads ({FORMAT_VERSION})"));
    }
    if version < OLDEST_VERSION as u64 {
        return Err(format!(
            "packet format version {version} cannot be authenticated (it has no packet key); \
             the lead must issue this annotator a new packet with `forcebench packets issue`"
        ));
    }
    Ok(())
}

/// An issued packet's checks after its checksum was compared (`damaged`: it differs, or the packet
/// carries a `mac`).
fn check_issued(damaged: bool, secret: Option<&str>) -> std::result::Result<(), String> {
    if damaged {
        return Err("checksum check failed: the file was damaged or changed after ForceBench wrote it".into());
    }
    if secret.and_then(decode_secret).is_none() {
        return Err("the issued packet has no valid packet key (`secret`)".into());
    }
    Ok(())
}

/// A returned packet's checks before its HMAC (`misfit`: it carries the key or a checksum, or no
/// `mac` string).
fn check_returned(misfit: bool, workspace_id: Option<&str>) -> std::result::Result<(), String> {
    if misfit {
        return Err(
            "authentication check failed: a returned packet carries a `mac` and neither the packet key nor a checksum; \
             this one was not written by Return packet"
                .into(),
        );
    }
    if uuid::Uuid::parse_str(workspace_id.unwrap_or_default()).is_err() {
        return Err(
            "a returned packet names the workspace that wrote it (`workspace_id`, a uuid); this one does not".into()
        );
    }
    Ok(())
}

/// The reading of a packet through a `serde_json::Value` tree, as every packet was read before
/// [`read_canonical`] streamed them: kept for the files that path hands over (see there).
fn read_tree(file: &str, bytes: Vec<u8>) -> Result<(Packet, Canonical)> {
    let fail = |message: String| file_problem(file, message);
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| unparsable(file, &bytes, e))?;
    drop(bytes);
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(Error::NotAPacket { file: file.to_string(), why: format!("it has no \"format\": \"{FORMAT}\"") });
    }
    check_version(value.get("format_version").and_then(Value::as_u64).unwrap_or(0)).map_err(fail)?;
    let has = |key: &str| value.get(key).is_some();
    let str_of = |key: &str| value.get(key).and_then(Value::as_str);
    match str_of("kind") {
        Some("issued") => {
            let stated = str_of("checksum").unwrap_or_default();
            check_issued(stated != checksum_of(&value) || has("mac"), str_of("secret")).map_err(fail)?;
        }
        Some("returned") => {
            check_returned(has("secret") || has("checksum") || str_of("mac").is_none(), str_of("workspace_id"))
                .map_err(fail)?
        }
        _ => return Err(fail(KIND_REFUSAL.into())),
    }
    let packet = Packet::deserialize(&value).map_err(|e| fail(format!("not a valid packet: {e}")))?;
    Ok((packet, Canonical::Tree(value)))
}

/// The top-level fields of a packet file that reading checks before parsing the packet, each as
/// the file states it (absent, or [`Scalar::Other`] for a value that is neither a string nor an
/// unsigned integer, as `Value::as_str` and `Value::as_u64` read them).
#[derive(Default)]
struct Header {
    fields: Vec<(&'static str, Scalar)>,
}

const HEADER_KEYS: [&str; 8] =
    ["format", "format_version", "kind", "checksum", "mac", "secret", "workspace_id", "packet_id"];

impl Header {
    fn get(&self, key: &str) -> Option<&Scalar> {
        self.fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Scalar::Str(s)) => Some(s),
            _ => None,
        }
    }
    fn u64(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(Scalar::U64(n)) => Some(*n),
            _ => None,
        }
    }
}

/// A JSON value as [`scan`] keeps it: header fields keep a string or an unsigned integer.
enum Scalar {
    Str(String),
    U64(u64),
    Other,
}

/// Why [`scan`] refused a file.
enum ScanError {
    /// It is not JSON.
    Json(serde_json::Error),
    /// An object (at any depth) has `key` twice, the second time on `line`.
    Repeated { key: String, line: usize },
}

/// Checks that `bytes` is one JSON value, through the same parser calls as reading it into a
/// `serde_json::Value` (so the same errors, at the same places), without building it, and that
/// no object has a key twice: returns the header fields of a top-level object.
fn scan(bytes: &[u8]) -> std::result::Result<Header, ScanError> {
    use serde::Deserializer as _;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut header = Header::default();
    let repeated = std::cell::RefCell::new(None);
    let top = Skim { keep: false, header: Some(&mut header), repeated: &repeated };
    match (&mut de).deserialize_any(top).and_then(|_| de.end()) {
        Ok(()) => Ok(header),
        Err(e) => match repeated.into_inner() {
            Some(key) => Err(ScanError::Repeated { key, line: e.line() }),
            None => Err(ScanError::Json(e)),
        },
    }
}

/// Visits one JSON value for [`scan`]: `keep` keeps a string or unsigned integer; `header` is
/// given for the top-level value, whose object keys in [`HEADER_KEYS`] it fills; `repeated`
/// receives the first key found twice in one object (the visit then stops with an error).
struct Skim<'a> {
    keep: bool,
    header: Option<&'a mut Header>,
    repeated: &'a std::cell::RefCell<Option<String>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Skim<'_> {
    type Value = Scalar;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Scalar, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Skim<'_> {
    type Value = Scalar;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_i64<E>(self, n: i64) -> std::result::Result<Scalar, E> {
        Ok(if n >= 0 && self.keep { Scalar::U64(n as u64) } else { Scalar::Other })
    }
    fn visit_u64<E>(self, n: u64) -> std::result::Result<Scalar, E> {
        Ok(if self.keep { Scalar::U64(n) } else { Scalar::Other })
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_str<E>(self, s: &str) -> std::result::Result<Scalar, E> {
        Ok(if self.keep { Scalar::Str(s.to_string()) } else { Scalar::Other })
    }
    fn visit_unit<E>(self) -> std::result::Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> std::result::Result<Scalar, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Scalar, A::Error> {
        while seq.next_element_seed(Skim { keep: false, header: None, repeated: self.repeated })?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Scalar, A::Error> {
        let Skim { mut header, repeated, .. } = self;
        let mut keys: std::collections::HashSet<String> = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            // The key as decoded: `"\u0061nnotator"` is `annotator`.
            if keys.contains(&key) {
                let refusal =
                    <A::Error as serde::de::Error>::custom(format!("the key `{key}` appears twice in one object"));
                *repeated.borrow_mut() = Some(key);
                return Err(refusal);
            }
            // At the top level, the header fields are kept.
            let wanted = header.as_ref().and_then(|_| HEADER_KEYS.iter().find(|k| **k == key));
            let value = map.next_value_seed(Skim { keep: wanted.is_some(), header: None, repeated })?;
            if let (Some(k), Some(header)) = (wanted, header.as_deref_mut()) {
                header.fields.push((*k, value));
            }
            keys.insert(key);
        }
        Ok(Scalar::Other)
    }
}

/// Feeds the canonical form of the packet in `bytes` (a JSON object, already [`scan`]ned, with no
/// key twice) into `digest`, streamed from the bytes: each top-level entry but `checksum` and `mac`
/// is transcoded, in file order, into compact JSON, which prints keys, strings and numbers as
/// printing a `serde_json::Value` of the file does, so the digest equals [`write_canonical`]'s.
fn digest_canonical_bytes<D: sha2::digest::Update>(bytes: &[u8], digest: D) -> Result<D> {
    use serde::Deserializer as _;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, Digesting(digest));
    let mut de = serde_json::Deserializer::from_slice(bytes);
    (&mut de)
        .deserialize_map(CanonicalEntries(&mut w))
        .map_err(|e| Error::Internal(format!("a packet that parsed could not be hashed: {e}")))?;
    Ok(w.into_inner().map_err(|_| ()).expect("writing to a hasher cannot fail").0)
}

/// Visits a packet's top-level object for [`digest_canonical_bytes`], writing its canonical form.
struct CanonicalEntries<'a, W: std::io::Write>(&'a mut W);

impl<'de, W: std::io::Write> serde::de::Visitor<'de> for CanonicalEntries<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        use serde::de::Error as _;
        let out = self.0;
        let io = |e: std::io::Error| A::Error::custom(e);
        let mut first = true;
        out.write_all(b"{").map_err(io)?;
        while let Some(key) = map.next_key::<String>()? {
            if key == "checksum" || key == "mac" {
                map.next_value::<serde::de::IgnoredAny>()?;
                continue;
            }
            if !std::mem::take(&mut first) {
                out.write_all(b",").map_err(io)?;
            }
            serde_json::to_writer(&mut *out, &key).map_err(A::Error::custom)?;
            out.write_all(b":").map_err(io)?;
            map.next_value_seed(Transcoded(&mut *out))?;
        }
        out.write_all(b"}").map_err(io)
    }
}

/// Transcodes one JSON value, as it is parsed, into compact JSON written to the writer.
struct Transcoded<'a, W: std::io::Write>(&'a mut W);

impl<'de, W: std::io::Write> serde::de::DeserializeSeed<'de> for Transcoded<'_, W> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        use serde::de::Error as _;
        serde_transcode::transcode(d, &mut serde_json::Serializer::new(self.0)).map_err(D::Error::custom)
    }
}
