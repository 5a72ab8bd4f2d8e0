//! Packets: the file an annotator takes away (issued) and brings back (returned).
//!
//! A packet is one JSON document (`schema/packet.schema.json`) holding only what its annotator may
//! see: their rows, in their own shuffled order, with the suggestions, and never anyone else's
//! labels. `standard` blinding shows provenance and every suggestion; `strict` also hides the
//! source dataset, source id, group, the suggested axis and severity, and the drafter's rationale
//! (which usually names the axis). The `checksum` is the sha256 of the packet's canonical form
//! (compact JSON of every other key, in file order), so any edit to the file is detected.
//!
//! Merging a returned packet is all-or-nothing: project, packet, annotator, checksum and every
//! row's content hash are checked first, and a failure names the check and the row. Events carry
//! their workspace ids, so merging the same file twice is a no-op and a later return of the same
//! packet adds only its new events, keeping every earlier one.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::annotate::{self, Annotation, Field};
use crate::assign::stable_key;
use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::roster;
use crate::vocab::Axis;

pub const FORMAT: &str = "forcebench-packet";
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Blinding {
    Standard,
    Strict,
}

impl Blinding {
    pub fn as_str(self) -> &'static str {
        match self {
            Blinding::Standard => "standard",
            Blinding::Strict => "strict",
        }
    }
}

impl std::str::FromStr for Blinding {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "standard" => Ok(Blinding::Standard),
            "strict" => Ok(Blinding::Strict),
            other => Err(format!("`{other}` is not a blinding level; expected standard or strict")),
        }
    }
}

/// The project a packet belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketProject {
    pub id: String,
    pub name: String,
}

/// What the annotator sees of the suggestions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestions {
    pub evidence_span: Option<String>,
    pub calibrated_claim: String,
    pub raised_claim: String,
    pub repair: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Axis>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<u8>,
}

/// Provenance, present only with standard blinding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub group_id: String,
    pub source_dataset: String,
    pub source_id: String,
}

/// One change as it travels in a returned packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketEvent {
    /// The event's id in the annotator's workspace.
    pub seq: i64,
    pub field: String,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub at: String,
    pub origin: String,
    pub undoes: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacketRow {
    pub id: String,
    pub content_sha256: String,
    pub context: String,
    pub passage: String,
    pub suggestions: Suggestions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// Returned packets only: every change, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<PacketEvent>,
    /// Returned packets only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_spent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    pub format: String,
    pub format_version: u32,
    /// `issued` or `returned`.
    pub kind: String,
    pub project: PacketProject,
    pub packet_id: String,
    pub annotator: String,
    pub blinding: Blinding,
    pub issued_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_at: Option<String>,
    pub rows: Vec<PacketRow>,
    #[serde(default)]
    pub checksum: String,
}

/// sha256 of a packet's canonical form: compact JSON of every key but `checksum`, in order.
pub fn checksum_of(value: &Value) -> String {
    let mut v = value.clone();
    if let Value::Object(map) = &mut v {
        map.shift_remove("checksum");
    }
    hex::encode(Sha256::digest(v.to_string().as_bytes()))
}

impl Packet {
    /// Serialises with a fresh checksum.
    pub fn to_json(&mut self) -> String {
        self.checksum = String::new();
        let value = serde_json::to_value(&*self).expect("packet serialises");
        self.checksum = checksum_of(&value);
        serde_json::to_string_pretty(self).expect("packet serialises")
    }
}

/// The order in which an annotator sees rows: a shuffle fixed by project, annotator and row id,
/// so it reveals nothing of provenance or import order.
pub fn annotator_order(project_id: &str, annotator: &str, ids: &mut [String]) {
    let seed = u64::from_be_bytes(Sha256::digest(format!("{project_id}\n{annotator}")).as_slice()[..8].try_into().unwrap());
    ids.sort_by_key(|id| stable_key(seed, id));
}

fn row_for(c: &Candidate, hash: &str, blinding: Blinding) -> PacketRow {
    let strict = blinding == Blinding::Strict;
    PacketRow {
        id: c.id.clone(),
        content_sha256: hash.to_string(),
        context: c.context.clone(),
        passage: c.passage.clone(),
        suggestions: Suggestions {
            evidence_span: c.evidence_span.clone(),
            calibrated_claim: c.calibrated_claim.clone(),
            raised_claim: c.raised_claim.clone(),
            repair: c.repair.clone(),
            rationale: if strict { None } else { c.rationale.clone() },
            axis: if strict { None } else { c.axis },
            severity: if strict { None } else { c.severity },
        },
        provenance: (!strict).then(|| Provenance {
            group_id: c.group_id.clone(),
            source_dataset: c.source_dataset.clone(),
            source_id: c.source_id.clone(),
        }),
        events: Vec::new(),
        seconds_spent: None,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct IssuedPacket {
    pub annotator: String,
    pub packet_id: String,
    pub file: String,
    #[ts(type = "number")]
    pub rows: u64,
}

/// Writes one packet per annotator with assignments into `dir`.
pub fn issue(project: &mut Project, dir: &Path, blinding: Blinding) -> Result<Vec<IssuedPacket>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let info = project.info().clone();
    let people = roster::list(project)?;
    let mut issued = Vec::new();
    let tx = project.conn_mut().transaction()?;
    for person in people.iter().filter(|p| p.assigned > 0) {
        let mut ids: Vec<String> = {
            let mut stmt = tx.prepare("SELECT candidate_id FROM assignments WHERE annotator_id = ?1")?;
            let ids = stmt.query_map([person.id], |r| r.get(0))?;
            ids.collect::<rusqlite::Result<_>>()?
        };
        annotator_order(&info.id, &person.name, &mut ids);
        let mut rows = Vec::with_capacity(ids.len());
        for id in &ids {
            let (c, hash) = candidate_with_hash(&tx, id)?;
            rows.push(row_for(&c, &hash, blinding));
        }
        let mut packet = Packet {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            kind: "issued".into(),
            project: PacketProject { id: info.id.clone(), name: info.name.clone() },
            packet_id: uuid::Uuid::new_v4().to_string(),
            annotator: person.name.clone(),
            blinding,
            issued_at: now(),
            returned_at: None,
            rows,
            checksum: String::new(),
        };
        let text = packet.to_json();
        let file = dir.join(format!("{}-{}.packet.json", safe_name(&person.name), &packet.packet_id[..8]));
        write_atomically(&file, text.as_bytes())?;
        tx.execute(
            "INSERT INTO packets (id, annotator_id, blinding, issued_at, checksum) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![packet.packet_id, person.id, blinding.as_str(), packet.issued_at, packet.checksum],
        )?;
        for row in &packet.rows {
            tx.execute(
                "INSERT INTO packet_rows (packet_id, candidate_id, content_sha256) VALUES (?1, ?2, ?3)",
                params![packet.packet_id, row.id, row.content_sha256],
            )?;
        }
        issued.push(IssuedPacket {
            annotator: person.name.clone(),
            packet_id: packet.packet_id.clone(),
            file: file.display().to_string(),
            rows: packet.rows.len() as u64,
        });
    }
    if issued.is_empty() {
        return Err(Error::InvalidArgument("no one has assignments yet; run `forcebench assign` first".into()));
    }
    tx.commit()?;
    Ok(issued)
}

fn candidate_with_hash(conn: &rusqlite::Connection, id: &str) -> Result<(Candidate, String)> {
    // Reuse the candidate reader through a lightweight query of the hash.
    let hash: String = conn.query_row("SELECT content_sha256 FROM candidates WHERE id = ?1", [id], |r| r.get(0))?;
    let c = candidate::find_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.into()))?;
    Ok((c, hash))
}

fn safe_name(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Writes a file through a temporary sibling and a rename, so a crash never leaves half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::output::write_file(path, bytes, true)
}

/// Reads and parses a packet file, checking format and checksum.
pub fn read(path: &Path) -> Result<Packet> {
    let file = path.display().to_string();
    let fail = |message: String| Error::InvalidInput {
        file: file.clone(),
        problems: vec![crate::import::InputProblem { file: file.clone(), line: None, field: None, message }],
    };
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| fail(format!("not a packet: invalid JSON ({e})")))?;
    if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(fail(format!("not a ForceBench packet (no \"format\": \"{FORMAT}\")")));
    }
    let version = value.get("format_version").and_then(Value::as_u64).unwrap_or(0);
    if version > FORMAT_VERSION as u64 {
        return Err(fail(format!("packet format version {version} is newer than this ForceBench reads ({FORMAT_VERSION})")));
    }
    let stated = value.get("checksum").and_then(Value::as_str).unwrap_or_default().to_string();
    if stated != checksum_of(&value) {
        return Err(fail("checksum check failed: the file was changed after ForceBench wrote it".into()));
    }
    serde_json::from_value(value).map_err(|e| fail(format!("not a valid packet: {e}")))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct MergeReport {
    pub file: String,
    pub packet_id: String,
    pub annotator: String,
    /// False when this exact file was merged before (nothing changed).
    pub merged: bool,
    #[ts(type = "number")]
    pub rows: u64,
    #[ts(type = "number")]
    pub new_events: u64,
    #[ts(type = "number")]
    pub finished_rows: u64,
}

/// Merges returned packets, each all-or-nothing, in one transaction for all files: if any file
/// fails a check, nothing from any file is merged.
pub fn merge(project: &mut Project, files: &[PathBuf]) -> Result<Vec<MergeReport>> {
    let mut packets = Vec::with_capacity(files.len());
    for f in files {
        packets.push((f.display().to_string(), read(f)?));
    }
    let project_id = project.info().id.clone();
    let tx = project.conn_mut().transaction()?;
    let mut reports = Vec::new();
    for (file, packet) in &packets {
        reports.push(merge_one(&tx, &project_id, file, packet)?);
    }
    tx.commit()?;
    Ok(reports)
}

fn merge_one(tx: &rusqlite::Transaction, project_id: &str, file: &str, p: &Packet) -> Result<MergeReport> {
    let refuse = |check: &str, row: Option<&str>, message: String| Error::InvalidInput {
        file: file.to_string(),
        problems: vec![crate::import::InputProblem {
            file: file.to_string(),
            line: None,
            field: row.map(|r| format!("row {r}")),
            message: format!("{check} check failed: {message}; nothing was merged"),
        }],
    };
    if p.kind != "returned" {
        return Err(refuse("kind", None, "this packet was issued but never returned (open it in the app and use Return packet)".into()));
    }
    if p.project.id != project_id {
        return Err(refuse("project", None, format!("the packet belongs to project `{}` ({}), not this one", p.project.name, p.project.id)));
    }
    let issued: Option<(i64, String)> = tx
        .query_row("SELECT annotator_id, checksum FROM packets WHERE id = ?1", [&p.packet_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((annotator_id, _)) = issued else {
        return Err(refuse("packet", None, format!("no packet `{}` was issued from this project", p.packet_id)));
    };
    let name: Option<String> = tx
        .query_row("SELECT name FROM annotators WHERE id = ?1", [annotator_id], |r| r.get(0))
        .optional()?;
    if name.as_deref() != Some(p.annotator.as_str()) {
        return Err(refuse(
            "annotator",
            None,
            format!("the packet names annotator `{}` but was issued to `{}`", p.annotator, name.unwrap_or_default()),
        ));
    }
    let checksum = p.checksum.clone();
    let already: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM packet_returns WHERE packet_id = ?1 AND checksum = ?2)",
        params![p.packet_id, checksum],
        |r| r.get(0),
    )?;
    let mut report = MergeReport {
        file: file.to_string(),
        packet_id: p.packet_id.clone(),
        annotator: p.annotator.clone(),
        merged: false,
        rows: p.rows.len() as u64,
        new_events: 0,
        finished_rows: 0,
    };
    if already {
        return Ok(report);
    }
    // Rows: exactly the issued ones, each unchanged since issue, none twice.
    let issued_rows: HashMap<String, String> = {
        let mut stmt = tx.prepare("SELECT candidate_id, content_sha256 FROM packet_rows WHERE packet_id = ?1")?;
        let rows = stmt.query_map([&p.packet_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut seen = HashSet::new();
    let mut candidates = Vec::with_capacity(p.rows.len());
    for row in &p.rows {
        if !seen.insert(row.id.as_str()) {
            return Err(refuse("duplicate", Some(&row.id), "the row appears twice in the packet".into()));
        }
        let Some(issued_hash) = issued_rows.get(&row.id) else {
            return Err(refuse("rows", Some(&row.id), "the row was not issued in this packet".into()));
        };
        let (c, current) = candidate_with_hash(tx, &row.id)?;
        if &row.content_sha256 != issued_hash || current != *issued_hash {
            return Err(refuse("content hash", Some(&row.id), "the row changed since the packet was issued".into()));
        }
        // Every event must replay cleanly against the passage.
        for e in &row.events {
            let field: Field = e.field.parse().map_err(|m: String| refuse("event", Some(&row.id), m))?;
            annotate::normalise(field, e.new_value.as_deref(), &c.passage)
                .map_err(|m| refuse("event", Some(&row.id), format!("event {} on `{}`: {m}", e.seq, e.field)))?;
        }
        candidates.push(c);
    }
    if let Some(missing) = issued_rows.keys().find(|id| !seen.contains(id.as_str())) {
        return Err(refuse("rows", Some(missing), "an issued row is missing from the returned packet".into()));
    }

    tx.execute(
        "INSERT INTO packet_returns (packet_id, checksum, merged_at) VALUES (?1, ?2, ?3)",
        params![p.packet_id, checksum, now()],
    )?;
    let return_id = tx.last_insert_rowid();
    for (row, c) in p.rows.iter().zip(&candidates) {
        let mut id_map: HashMap<i64, i64> = HashMap::new();
        {
            let mut known = tx.prepare_cached(
                "SELECT id, source_event_id FROM annotation_events WHERE packet_id = ?1 AND candidate_id = ?2",
            )?;
            for pair in known.query_map(params![p.packet_id, row.id], |r| Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(0)?)))? {
                let (source, local) = pair?;
                id_map.insert(source, local);
            }
        }
        let mut last = None;
        for e in &row.events {
            if id_map.contains_key(&e.seq) {
                continue; // merged from an earlier return of this packet
            }
            let field: Field = e.field.parse().map_err(Error::InvalidArgument)?;
            let value = annotate::normalise(field, e.new_value.as_deref(), &c.passage).map_err(Error::InvalidArgument)?;
            tx.prepare_cached(
                "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin,
                     packet_return_id, undoes, packet_id, source_event_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )?
            .execute(params![
                row.id,
                annotator_id,
                field.as_str(),
                e.old_value,
                value,
                e.at,
                if e.origin == "prefill" { "prefill" } else { "packet" },
                return_id,
                e.undoes.and_then(|u| id_map.get(&u).copied()),
                p.packet_id,
                e.seq
            ])?;
            let local = tx.last_insert_rowid();
            id_map.insert(e.seq, local);
            last = Some(local);
            report.new_events += 1;
        }
        let mut current: Annotation = annotate::fold(tx, c, annotator_id, &p.annotator)?;
        if let Some(seconds) = row.seconds_spent {
            current.seconds_spent = seconds;
        }
        annotate::store(tx, &current, annotator_id, last)?;
        tx.execute(
            "UPDATE annotations SET seconds_spent = ?1 WHERE candidate_id = ?2 AND annotator_id = ?3",
            params![current.seconds_spent, row.id, annotator_id],
        )?;
        if current.finished {
            report.finished_rows += 1;
        }
    }
    report.merged = true;
    Ok(report)
}
