//! Packets: the file an annotator takes away (issued) and brings back (returned).
//!
//! A packet is one JSON document (`schema/packet.schema.json`) holding only what its annotator may
//! see: their rows, in their own shuffled order, with the suggestions, and never anyone else's
//! labels. `standard` blinding shows provenance and every suggestion; `strict` also hides the
//! source dataset, source id, group, the suggested axis and severity, and the drafter's rationale
//! (which usually names the axis).
//!
//! Authentication: issuing draws a per-packet secret (32 random bytes), keeps it in the lead's
//! project (`packets.secret`) and writes it into the issued packet, whose `checksum` (sha256 of
//! its canonical form: compact JSON of every other key, in file order) only detects damage. The
//! workspace returns the packet without the secret and with `mac`, the HMAC-SHA256 of the
//! return's canonical form keyed by it; merge recomputes it with the key it holds, so a return
//! edited or forged by someone without the issued packet is refused. Whoever holds the issued
//! packet or its workspace can still act as its annotator: this is not a person's signature.
//!
//! Merging a returned packet is all-or-nothing: project, packet, annotator, blinding, issue time,
//! HMAC and every row's content hash are checked first, and a failure names the check and the
//! row. Every event carries a uid (uuid v4) made where it was written, so merge keeps each event
//! once: merging the same file twice is a no-op and a later return of the same workspace adds
//! only its new events. Two workspaces opened from one packet keep their own histories; where
//! both changed a row and their results differ, merge refuses and names both returns, since
//! folding their events together would make a label neither workspace had.

use hmac::{Hmac, Mac};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use ts_rs::TS;

use crate::annotate::{self, Annotation, Field};
use crate::assign::annotator_order;
use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::project::{now, Project};
use crate::roster;
use crate::settings::SuggestionMode;
use crate::vocab::Axis;

mod issue;
pub(crate) mod marks;
mod read;
mod workspaces;
use issue::candidate_with_hash;
pub(crate) use issue::decode_secret;
pub use issue::{issue, IssuedPacket};
pub use read::{checksum_of, checksum_of_bytes, mac_of, mac_of_bytes, read};
use read::{read_canonical_then, Returned};
use workspaces::{apply, other_workspaces, project_edits, Fields};

pub const FORMAT: &str = "forcebench-packet";
/// The version this ForceBench writes. Version 3 carries an event that only records a row's
/// suggestion as a mark (`from_suggestion`) instead of its values; version 2 (full values) is still
/// read and merged. A reader of version 2 refuses a version-3 file as newer than it reads.
pub const FORMAT_VERSION: u32 = 3;

/// The oldest version read: older packets have no packet key, so their returns cannot be
/// authenticated.
pub const OLDEST_VERSION: u32 = 2;

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
#[serde(deny_unknown_fields)]
pub struct PacketEvent {
    /// The event's uid (uuid v4), the same in the workspace and in every project it is merged into.
    pub uid: String,
    pub field: String,
    /// The values before and after (absent when none; both absent in a marked event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_value: Option<String>,
    /// Format 3: the event only records the row's suggestion for the field (a `prefill`, or a
    /// `confirm` of it), whose values are not written: the reader computes them from the row's
    /// suggestions in the packet (see `marks`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_suggestion: bool,
    pub at: String,
    pub origin: String,
    /// The uid of the event this one undoes (an earlier event of the same row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    /// The suggestion mode in force when the event was made (absent in returns written before
    /// suggestion modes existed: then the packet's mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion_mode: Option<SuggestionMode>,
    /// The guideline version in force when the event was made (absent in returns written before
    /// guideline versions existed: then the packet's version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guideline_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketRow {
    pub id: String,
    pub content_sha256: String,
    pub context: String,
    pub passage: String,
    pub suggestions: Suggestions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// Every change of the packet's annotator to the row, oldest first: in an issued packet, the
    /// work they had done in the lead's project (which the workspace continues); in a return,
    /// that and everything done in the workspace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<PacketEvent>,
    /// The time the annotator spent on the row (in an issued packet: in the lead's project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_spent: Option<f64>,
    /// The locked split that froze the row when the packet was issued: the workspace
    /// shows the row read-only, since a merge would leave its changes out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_split: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Packet {
    pub format: String,
    pub format_version: u32,
    /// `issued` or `returned`.
    pub kind: String,
    pub project: PacketProject,
    pub packet_id: String,
    pub annotator: String,
    pub blinding: Blinding,
    /// How the workspace shows the suggestions (the project's setting when issued); packets
    /// issued before suggestion modes existed have none and read as `prefilled`.
    #[serde(default)]
    pub suggestion_mode: SuggestionMode,
    /// The guideline version the packet was issued under, and its text (so the annotator's app
    /// shows the version in force); absent in packets issued before versions existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guideline_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guideline: Option<String>,
    pub issued_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned_at: Option<String>,
    /// Issued packets only: the per-packet key (hex of 32 random bytes) the workspace signs its
    /// return with. The lead's project holds the same key; a returned packet never carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Returned packets only: the id of the workspace that wrote the return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
    pub rows: Vec<PacketRow>,
    /// Issued packets only: sha256 of the canonical form (detects accidental damage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Returned packets only: HMAC-SHA256 of the canonical form keyed by the packet's secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

/// Adapts a digest (sha256 or HMAC) to `io::Write`, buffered, so the canonical form is hashed
/// as it is printed.
struct Digesting<D: sha2::digest::Update>(D);

impl<D: sha2::digest::Update> std::io::Write for Digesting<D> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn keyed(secret: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(secret).expect("HMAC takes a key of any length")
}

impl Packet {
    /// Hashes the packet's canonical form straight from the struct, with `checksum` and `mac`
    /// unset (so left out): its fields print in declaration order, compact, which is the form
    /// reading prints from the file's JSON (`read::write_canonical`). Going through a
    /// `serde_json::Value` tree instead held about 40 KB per row in memory (4 GB for a
    /// 100,000-row return).
    fn digest<D: sha2::digest::Update>(&self, digest: D) -> D {
        debug_assert!(self.checksum.is_none() && self.mac.is_none());
        let mut w = std::io::BufWriter::with_capacity(1 << 16, Digesting(digest));
        serde_json::to_writer(&mut w, self).expect("writing to a hasher cannot fail");
        w.into_inner().map_err(|_| ()).expect("writing to a hasher cannot fail").0
    }

    /// Serialises an issued packet with a fresh checksum.
    pub fn to_json(&mut self) -> String {
        self.checksum = None;
        self.mac = None;
        self.checksum = Some(hex::encode(self.digest(Sha256::new()).finalize()));
        serde_json::to_string_pretty(self).expect("packet serialises")
    }

    /// Readies a returned packet for writing: without the secret, with the HMAC keyed by it.
    pub fn seal_returned(&mut self, secret: &[u8]) {
        self.secret = None;
        self.checksum = None;
        self.mac = None;
        self.mac = Some(hex::encode(self.digest(keyed(secret)).finalize().into_bytes()));
    }
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
    /// Rows the new changes are on (the rest of the packet's rows were not changed since the
    /// last merge, or were left out).
    #[ts(type = "number")]
    pub changed_rows: u64,
    #[ts(type = "number")]
    pub finished_rows: u64,
    /// The guideline version the packet was issued under, and, when a newer one was published
    /// while the packet was out, the version in force now (its labels were given under the older).
    pub guideline_version: String,
    pub newer_guideline: Option<String>,
    /// Rows whose changes were left out because a locked split froze the row or the
    /// row is adjudicated (its annotators' labels stay as decided until it is reopened): the rest
    /// of the return is merged; each row stays all-or-nothing.
    pub frozen_rows: Vec<LeftRow>,
}

/// A row of a return whose changes a merge left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct LeftRow {
    pub id: String,
    pub reason: String,
    /// The row's changes in the return that were not merged.
    #[ts(type = "number")]
    pub events: u64,
}

/// A packet whose rows a lock freezes: the lead is told at the lock which packets are
/// still out and what of them the lock covers, since a frozen row's changes are left out of a
/// later merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PacketAtLock {
    pub packet_id: String,
    pub annotator: String,
    pub issued_at: String,
    /// Rows the packet carries.
    #[ts(type = "number")]
    pub rows: u64,
    /// Of them, rows frozen (or frozen once the latest draft is locked).
    #[ts(type = "number")]
    pub frozen: u64,
    /// Returns of the packet merged so far.
    #[ts(type = "number")]
    pub returns_merged: u64,
}

/// Each annotator's latest packet that carries rows a locked split freezes, or that locking the
/// latest draft would freeze (its rows and every adjudicated row): what the lock dialog and
/// `split lock` name.
pub fn packets_at_lock(conn: &rusqlite::Connection) -> Result<Vec<PacketAtLock>> {
    let mut stmt = conn.prepare(
        "WITH latest AS (
             SELECT p.id, p.annotator_id, p.issued_at FROM packets p
             WHERE p.issued_at = (SELECT max(q.issued_at) FROM packets q WHERE q.annotator_id = p.annotator_id)
         ),
         covered AS (
             SELECT candidate_id FROM locked_rows
             UNION SELECT candidate_id FROM split_rows WHERE split_id = (SELECT id FROM splits ORDER BY version DESC LIMIT 1)
             UNION SELECT candidate_id FROM adjudications
         )
         SELECT l.id, a.name, l.issued_at,
                (SELECT count(*) FROM packet_rows r WHERE r.packet_id = l.id),
                (SELECT count(*) FROM packet_rows r JOIN covered c ON c.candidate_id = r.candidate_id WHERE r.packet_id = l.id),
                (SELECT count(*) FROM packet_returns t WHERE t.packet_id = l.id)
         FROM latest l JOIN annotators a ON a.id = l.annotator_id
         ORDER BY a.name, l.issued_at",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(PacketAtLock {
            packet_id: r.get(0)?,
            annotator: r.get(1)?,
            issued_at: r.get(2)?,
            rows: r.get::<_, i64>(3)? as u64,
            frozen: r.get::<_, i64>(4)? as u64,
            returns_merged: r.get::<_, i64>(5)? as u64,
        })
    })?;
    let all: Vec<PacketAtLock> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(all.into_iter().filter(|p| p.frozen > 0).collect())
}

/// Merges returned packets, each all-or-nothing, in one transaction for all files: if any file
/// fails a check, nothing from any file is merged. Files are read and parsed before the write lock
/// is taken; the work under it is linear in the events merged.
pub fn merge(project: &mut Project, files: &[PathBuf]) -> Result<Vec<MergeReport>> {
    project.bulk(|project| merge_in(project, files))
}

fn merge_in(project: &mut Project, files: &[PathBuf]) -> Result<Vec<MergeReport>> {
    // Authenticate before taking the write lock: a packet's secret never changes once issued.
    // Each file's bytes are dropped once its HMAC is checked: only the parsed packets are kept.
    let mut packets = Vec::with_capacity(files.len());
    let key_of = |packet_id: &str| -> Result<Option<Vec<u8>>> {
        let secret: Option<Option<String>> = project
            .conn()
            .query_row("SELECT secret FROM packets WHERE id = ?1", [packet_id], |r| r.get(0))
            .optional()?;
        Ok(secret.flatten().as_deref().and_then(decode_secret))
    };
    for f in files {
        // The HMAC is checked while the return is still being parsed, when its header allows.
        let (packet, canonical, early) =
            read_canonical_then(f, |r: &Returned| key_of(r.packet_id)?.map(|key| r.mac_matches(&key)).transpose())?;
        let authentic = match early {
            // Checked early; a packet with no key cannot be authentic.
            Some(checked) => checked.unwrap_or(false),
            None => match key_of(&packet.packet_id)? {
                Some(key) => canonical.mac_matches(&key, packet.mac.as_deref().unwrap_or_default())?,
                None => false,
            },
        };
        drop(canonical);
        packets.push((f.display().to_string(), packet, authentic));
    }
    let project_id = project.info().id.clone();
    let tx = project.conn_mut().transaction()?;
    let mut reports = Vec::new();
    for (file, packet, authentic) in &packets {
        reports.push(merge_one(&tx, &project_id, file, packet, *authentic)?);
    }
    crate::crashpoint::hit("packets-merge-before-commit");
    tx.commit()?;
    // Freeing a large return's parsed rows takes a few tenths of a second that nothing waits on.
    std::thread::spawn(move || drop(packets));
    Ok(reports)
}

/// Up to five row ids, then "and N more".
fn some_rows(rows: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut out = rows.iter().take(SHOWN).map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ");
    if rows.len() > SHOWN {
        out.push_str(&format!(" and {} more", rows.len() - SHOWN));
    }
    out
}

/// Where an event of a returned packet stands in the project.
enum Known {
    /// In the project already (merged before from this packet and row, or the annotator's own
    /// work the packet carried), by its uid, or a pre-fill or confirmation by its row, field, time
    /// and origin: its local id.
    Merged(i64),
    /// A pre-fill of a row the annotator had already started in the project: what they were
    /// shown then is recorded (a record stands for its pre-fills under one uid, so the
    /// others a packet names are not found by theirs), and is not recorded twice.
    Started,
    New,
}

/// Checks and merges one return inside the merge's transaction; `authentic` says whether its
/// HMAC matched the packet's secret (checked before the transaction began).
fn merge_one(
    tx: &rusqlite::Transaction,
    project_id: &str,
    file: &str,
    p: &Packet,
    authentic: bool,
) -> Result<MergeReport> {
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
        return Err(refuse(
            "kind",
            None,
            "this packet was issued but never returned (open it in the app and use Return packet)".into(),
        ));
    }
    if p.project.id != project_id {
        return Err(refuse(
            "project",
            None,
            format!("the packet belongs to project `{}` ({}), not this one", p.project.name, p.project.id),
        ));
    }
    let issued: Option<(i64, String, String, Option<String>)> = tx
        .query_row("SELECT annotator_id, blinding, issued_at, secret FROM packets WHERE id = ?1", [&p.packet_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?;
    let Some((annotator_id, blinding, issued_at, secret)) = issued else {
        return Err(refuse("packet", None, format!("no packet `{}` was issued from this project", p.packet_id)));
    };
    let name: Option<String> =
        tx.query_row("SELECT name FROM annotators WHERE id = ?1", [annotator_id], |r| r.get(0)).optional()?;
    if name.as_deref() != Some(p.annotator.as_str()) {
        return Err(refuse(
            "annotator",
            None,
            format!("the packet names annotator `{}` but was issued to `{}`", p.annotator, name.unwrap_or_default()),
        ));
    }
    if p.blinding.as_str() != blinding {
        return Err(refuse(
            "blinding",
            None,
            format!("the packet says `{}` blinding but was issued with `{blinding}` blinding", p.blinding.as_str()),
        ));
    }
    if p.issued_at != issued_at {
        return Err(refuse(
            "issue time",
            None,
            format!("the packet says it was issued at {} but it was issued at {issued_at}", p.issued_at),
        ));
    }
    if secret.as_deref().and_then(decode_secret).is_none() {
        return Err(refuse(
            "authentication",
            None,
            format!("packet `{}` was issued without a packet key, so its return cannot be authenticated; issue `{}` a new packet", p.packet_id, p.annotator),
        ));
    }
    let mac = p.mac.clone().unwrap_or_default();
    if !authentic {
        return Err(refuse(
            "authentication",
            None,
            "the returned packet was changed after the annotator's app wrote it, or was not written from this packet's workspace".into(),
        ));
    }
    let workspace_id = p.workspace_id.clone().unwrap_or_default();
    let already: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM packet_returns WHERE packet_id = ?1 AND checksum = ?2)",
        params![p.packet_id, mac],
        |r| r.get(0),
    )?;
    let issued_under = p.guideline_version.clone().unwrap_or_else(|| crate::guideline::FIRST.to_string());
    let now_in_force = crate::guideline::current_label(tx)?;
    let mut report = MergeReport {
        file: file.to_string(),
        packet_id: p.packet_id.clone(),
        annotator: p.annotator.clone(),
        merged: false,
        rows: p.rows.len() as u64,
        new_events: 0,
        changed_rows: 0,
        finished_rows: 0,
        newer_guideline: (now_in_force != issued_under).then_some(now_in_force),
        guideline_version: issued_under,
        frozen_rows: Vec::new(),
    };
    if already {
        return Ok(report);
    }

    // The events already in the project that the return may hold again, by uid: this packet's
    // merged before, and the annotator's own work on the packet's rows, which the issued packet
    // carried into the workspace.
    let mut merged: HashMap<String, (i64, String)> = HashMap::new();
    let mut started: HashSet<String> = HashSet::new();
    // The pre-fills and confirmations of the annotator on the packet's rows (a record's read as
    // the events it stands for), by (row, field, time, origin): what one action wrote, however it
    // was stored, is known by these when a return names it by other uids (a workspace of an
    // earlier ForceBench names each of a record's events by the uid it had before the upgrade
    // made the record).
    let mut grouped: HashMap<String, Vec<(Field, String, String, i64)>> = HashMap::new();
    {
        let mut stmt = tx.prepare(
            // Events merged from this packet are the annotator's events on its rows too, so one
            // walk of the rows by the row index finds both (no index on packet_id is kept).
            "SELECT e.uid, e.id, e.candidate_id, e.origin, e.field_set, e.at, e.field FROM packet_rows r
             JOIN annotation_events e ON e.candidate_id = r.candidate_id AND e.annotator_id = ?2
             WHERE r.packet_id = ?1",
        )?;
        let mut rows = stmt.query(params![p.packet_id, annotator_id])?;
        while let Some(r) = rows.next()? {
            let (uid, id, candidate): (String, i64, String) =
                (r.get::<_, annotate::stored::ReadUid>(0)?.0, r.get(1)?, r.get(2)?);
            let origin: String = r.get(3)?;
            if origin == "prefill" {
                started.insert(candidate.clone());
            }
            let at: String = r.get(5)?;
            match r.get::<_, Option<i64>>(4)? {
                Some(bits) => {
                    let known = grouped.entry(candidate.clone()).or_default();
                    for f in annotate::stored::record_fields(bits) {
                        merged.insert(annotate::stored::member_uid(&uid, f, bits), (id, candidate.clone()));
                        known.push((f, at.clone(), origin.clone(), id));
                    }
                }
                None if origin == "prefill" || origin == "confirm" => {
                    if let Ok(f) = r.get::<_, String>(6)?.parse::<Field>() {
                        grouped.entry(candidate.clone()).or_default().push((f, at, origin.clone(), id));
                    }
                }
                None => {}
            }
            merged.insert(uid, (id, candidate));
        }
    }

    // Rows: exactly the issued ones, each unchanged since issue, none twice; every event valid.
    let issued_rows: HashMap<String, String> = {
        let mut stmt = tx.prepare("SELECT candidate_id, content_sha256 FROM packet_rows WHERE packet_id = ?1")?;
        let rows = stmt.query_map([&p.packet_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut seen = HashSet::with_capacity(p.rows.len());
    // Every event uid of the return, sized once: a large return names a million.
    let mut uids: HashSet<&str> = HashSet::with_capacity(p.rows.iter().map(|r| r.events.len()).sum());
    // Per row: the candidate, each event's normalised value and standing, and the row's fold.
    let mut checked = Vec::with_capacity(p.rows.len());
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
        if let Some(seconds) = row.seconds_spent.filter(|s| !(0.0..=MAX_SECONDS_PER_ROW).contains(s)) {
            return Err(refuse(
                "time",
                Some(&row.id),
                format!(
                    "`seconds_spent` is {seconds}; the time spent on one row is between 0 and {MAX_SECONDS_PER_ROW} \
                     seconds (a day)"
                ),
            ));
        }
        let mut events = Vec::with_capacity(row.events.len());
        let mut fields: Fields = Default::default();
        let mut row_uids: HashSet<&str> = HashSet::new();
        let mut fresh = false;
        for e in &row.events {
            let bad = |m: String| refuse("event", Some(&row.id), format!("event {}: {m}", e.uid));
            if uuid::Uuid::parse_str(&e.uid).is_err() {
                return Err(bad("the event id is not a uuid".into()));
            }
            if !uids.insert(e.uid.as_str()) {
                return Err(bad("the event appears twice in the packet".into()));
            }
            if let Some(undone) = &e.undoes {
                if !row_uids.contains(undone.as_str()) {
                    return Err(bad(format!("it undoes `{undone}`, which is not an earlier event of this row")));
                }
            }
            row_uids.insert(e.uid.as_str());
            if chrono::DateTime::parse_from_rfc3339(&e.at).is_err() {
                return Err(bad(format!(
                    "`at` is {}, not a time in RFC 3339 form (such as 2026-05-01T12:00:00Z)",
                    serde_json::Value::from(e.at.as_str())
                )));
            }
            if !matches!(e.origin.as_str(), "prefill" | "app" | "import" | "confirm" | "packet") {
                return Err(bad(format!(
                    "`{}` is not an event origin (prefill, app, import, confirm or packet)",
                    e.origin
                )));
            }
            let field: Field = e.field.parse().map_err(bad)?;
            let (old, new) = marks::values(e, field, row, p.format_version).map_err(bad)?;
            // A mark stands for the row's suggestion as the packet shows it; that must be the
            // project's own, or the merged event would not be what the annotator was shown.
            if e.from_suggestion && annotate::stored::suggestion_value(field, &(&c).into()).as_deref() != new.as_deref()
            {
                return Err(bad(format!(
                    "`from_suggestion` is set on `{}`, but the packet's suggestion for that field is not the row's \
                     as issued",
                    e.field
                )));
            }
            let value = annotate::normalise(field, new.as_deref(), &c.passage)
                .map_err(|m| bad(format!("`{}`: {m}", e.field)))?;
            let old = old.map(Cow::into_owned);
            apply(&mut fields, field, value.clone());
            let known = match merged.get(&e.uid) {
                Some((id, candidate)) if candidate == &row.id => Known::Merged(*id),
                Some((_, candidate)) => return Err(bad(format!("the event was merged before on row `{candidate}`"))),
                None if e.origin == "prefill" && started.contains(&row.id) => Known::Started,
                None => {
                    let same = |(f, at, origin, _): &&(Field, String, String, i64)| {
                        *f == field && *at == e.at && *origin == e.origin
                    };
                    match grouped.get(&row.id).and_then(|known| known.iter().find(same)) {
                        Some((.., id)) => Known::Merged(*id),
                        None => {
                            fresh = true;
                            Known::New
                        }
                    }
                }
            };
            events.push((e, field, old, value, known));
        }
        checked.push((row, c, events, fields, fresh));
    }
    if let Some(missing) = issued_rows.keys().find(|id| !seen.contains(id.as_str())) {
        return Err(refuse("rows", Some(missing), "an issued row is missing from the returned packet".into()));
    }
    // Rows the annotator had work on in the project that this return does not hold (a packet
    // issued before packets carried that work, or work done after the issue): the suggestions
    // the workspace recorded when the row was started there (origin `prefill`) are not the
    // annotator's changes, so they never replace that work. `uids` holds every event the return
    // names, now that every row was checked.
    let kept_work: HashSet<&str> =
        merged.iter().filter(|(uid, _)| !uids.contains(uid.as_str())).map(|(_, (_, c))| c.as_str()).collect();

    // Other workspaces of this packet: where they and this return both changed a row, the two
    // resulting annotations must be the same, or merging would make a label neither had.
    let others = other_workspaces(tx, &p.packet_id, &workspace_id)?;
    if !others.is_empty() {
        let mut disagree: Vec<String> = Vec::new();
        let mut named: Vec<(String, String)> = Vec::new();
        for (row, _, _, fields, fresh) in &checked {
            if !*fresh {
                continue;
            }
            for (ws, (file_name, folds)) in &others {
                match folds.get(&row.id) {
                    Some(theirs) if theirs != fields => {
                        if disagree.last() != Some(&row.id) {
                            disagree.push(row.id.clone());
                        }
                        if !named.iter().any(|(w, _)| w == ws) {
                            named.push((ws.clone(), file_name.clone()));
                        }
                    }
                    _ => {}
                }
            }
        }
        if !disagree.is_empty() {
            disagree.sort();
            let them = named
                .iter()
                .map(|(ws, f)| {
                    if f.is_empty() {
                        format!("an earlier return (workspace {ws})")
                    } else {
                        format!("`{f}` (workspace {ws})")
                    }
                })
                .collect::<Vec<_>>()
                .join(" and ");
            return Err(refuse(
                "workspaces",
                None,
                format!(
                    "this return (workspace {workspace_id}) and {them} come from two workspaces of {}'s packet `{}`, \
                     and both changed row{} {} with different results; merge only the return that holds {}'s work",
                    p.annotator,
                    p.packet_id,
                    if disagree.len() == 1 { "" } else { "s" },
                    some_rows(&disagree),
                    p.annotator
                ),
            ));
        }
    }

    project_edits(tx, p, annotator_id, &issued_at, file, &workspace_id, &checked)?;

    let mut return_id = None;
    let (mode, shows) = (crate::settings::suggestion_mode(tx)?, annotate::shows_axis_severity(tx)?);
    for (row, c, events, _, fresh) in &checked {
        // A row with new events is merged whatever its time; another row only when its time changed.
        if !*fresh {
            let seconds_changed = match row.seconds_spent {
                Some(seconds) => {
                    tx.prepare_cached(
                        "SELECT seconds_spent FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2",
                    )?
                    .query_row(params![row.id, annotator_id], |r| r.get::<_, f64>(0))
                    .optional()?
                        != Some(seconds)
                }
                None => false,
            };
            if !seconds_changed {
                continue;
            }
        }
        // A row a locked split froze takes no new label: its changes are left out, whole, and
        // listed with the reason (the rest of the return is merged: a packet issued before the
        // lock keeps its other rows); time spent on it since is not recorded, as in the app.
        // Every other check above still refuses the whole return.
        // An adjudicated row is left out the same way: its annotators' labels stay as they were
        // decided until the adjudicator reopens it.
        if let Err(frozen) = crate::rowstate::guard_labels(tx, &row.id) {
            if *fresh {
                let events = events.iter().filter(|e| matches!(e.4, Known::New)).count() as u64;
                let reason = match frozen {
                    // A lock freezes every row adjudicated by then, rejected rows too: only a
                    // row the split holds is said to be in it.
                    Error::SplitLocked { version, .. } if in_split(tx, &row.id, version)? => {
                        format!("the row is in locked split v{version}, which freezes its labels")
                    }
                    Error::RowAdjudicated(_) => {
                        "the row is adjudicated, which freezes its annotators' labels; the adjudicator must reopen it \
                         (`adjudicate reopen`) before they can change"
                            .to_string()
                    }
                    Error::SplitLocked { version, .. } => format!(
                        "locking split v{version} froze the row's labels (a lock freezes every row adjudicated \
                         by then, whether the split holds it or not)"
                    ),
                    other => other.to_string(),
                };
                report.frozen_rows.push(LeftRow { id: row.id.clone(), reason, events });
            }
            continue;
        }
        let return_id = match return_id {
            Some(id) => id,
            None => {
                tx.execute(
                    "INSERT INTO packet_returns (packet_id, checksum, merged_at, workspace_id, file_name) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![p.packet_id, mac, now(), workspace_id, file],
                )?;
                *return_id.insert(tx.last_insert_rowid())
            }
        };
        let mut local: HashMap<&str, i64> = HashMap::new();
        let mut last = None;
        let mut changed = false;
        // What one action wrote field by field (a start's pre-fills, a `y`'s confirmations) is
        // kept as one record, as it was where the work was done, when all of it is new here.
        let arriving: Vec<annotate::stored::Arriving> = events
            .iter()
            .map(|(e, field, old, value, _)| {
                marks::arriving(e, &row.events, p, *field, old.as_deref(), value.as_deref())
            })
            .collect();
        let runs = annotate::stored::runs(&arriving, &c.into());
        let mut runs = runs
            .iter()
            .filter(|(i, n, _)| {
                events[*i..*i + *n].iter().all(|e| matches!(e.4, Known::New))
                    && !(arriving[*i].origin == "prefill" && kept_work.contains(row.id.as_str()))
            })
            .peekable();
        let mut in_record = 0;
        for (i, (e, field, old, value, known)) in events.iter().enumerate() {
            if in_record > 0 {
                in_record -= 1;
                continue;
            }
            if let Some((_, n, bits)) = runs.next_if(|(start, ..)| *start == i) {
                let a = &arriving[i];
                let written = annotate::stored::insert_record(
                    tx,
                    a.origin,
                    &row.id,
                    annotator_id,
                    *bits,
                    a.at,
                    &e.uid,
                    a.mode,
                    a.guideline,
                    Some(return_id),
                )?;
                if written == 0 {
                    return Err(uid_taken(tx, &refuse, &row.id, &e.uid, p)?);
                }
                let id = tx.last_insert_rowid();
                for (member, ..) in &events[i..i + n] {
                    local.insert(member.uid.as_str(), id);
                }
                last = Some(id);
                changed = true;
                report.new_events += *n as u64;
                in_record = n - 1;
                continue;
            }
            match known {
                Known::Merged(id) => {
                    local.insert(e.uid.as_str(), *id);
                    continue;
                }
                Known::Started => continue,
                Known::New => {}
            }
            if e.origin == "prefill" && kept_work.contains(row.id.as_str()) {
                continue;
            }
            changed = true;
            let inserted = tx
                .prepare_cached(concat!(
                    "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin,
                         packet_return_id, undoes, uid, suggestion_mode, guideline_version, from_suggestion)
                     SELECT ?1, ?2, ?3, iif(k, NULL, ?4), iif(k, NULL, ?5), ?6, ?7, ?8, ?9, ?10, ?11, ?12, iif(k, 1, NULL)
                     FROM (SELECT ",
                    annotate::stored::from_suggestion_sql!("?1", "?3", "?4", "?5", "?7"),
                    " AS k) WHERE true
                     ON CONFLICT (uid) DO NOTHING"
                ))?
                .execute(params![
                    row.id,
                    annotator_id,
                    field.as_str(),
                    old,
                    value,
                    e.at,
                    match e.origin.as_str() {
                        "prefill" => "prefill",
                        "confirm" => "confirm",
                        _ => "packet",
                    },
                    return_id,
                    e.undoes.as_deref().and_then(|u| local.get(u).copied()),
                    annotate::stored::StoredUid(&e.uid),
                    e.suggestion_mode.unwrap_or(p.suggestion_mode).as_str(),
                    e.guideline_version.as_deref().or(p.guideline_version.as_deref()).unwrap_or(crate::guideline::FIRST)
                ])?;
            if inserted == 0 {
                return Err(uid_taken(tx, &refuse, &row.id, &e.uid, p)?);
            }
            let id = tx.last_insert_rowid();
            local.insert(e.uid.as_str(), id);
            last = Some(id);
            report.new_events += 1;
        }
        report.changed_rows += u64::from(changed);
        let mut current: Annotation = annotate::fold_with(tx, c, annotator_id, &p.annotator, mode, Some(shows), false)?;
        if let Some(seconds) = row.seconds_spent {
            current.seconds_spent = seconds;
        }
        annotate::store_row(tx, &current, annotator_id, last, true)?;
    }
    report.merged = return_id.is_some();
    report.finished_rows = count_finished(tx, p, annotator_id)?;
    Ok(report)
}

/// Whether split `version` holds the row (and is not only freezing it).
fn in_split(tx: &rusqlite::Connection, id: &str, version: i64) -> Result<bool> {
    Ok(tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM split_rows r JOIN splits s ON s.id = r.split_id WHERE s.version = ?1 AND r.candidate_id = ?2)",
        params![version, id],
        |r| r.get(0),
    )?)
}

/// The most time a return may say was spent on one row: a day.
const MAX_SECONDS_PER_ROW: f64 = 86_400.0;

/// The refusal of an event whose uid another packet's merged return already brought:
/// whose packet it came with, from which file, and how to recover, since this return can never
/// merge while the other event holds the uid.
fn uid_taken(
    tx: &rusqlite::Connection,
    refuse: &dyn Fn(&str, Option<&str>, String) -> Error,
    row: &str,
    uid: &str,
    p: &Packet,
) -> Result<Error> {
    let holder: Option<(String, String, Option<String>, Option<String>)> = tx
        .query_row(
            "SELECT a.name, coalesce(e.packet_id, r.packet_id, ''), r.file_name, r.merged_at FROM annotation_events e
             JOIN annotators a ON a.id = e.annotator_id LEFT JOIN packet_returns r ON r.id = e.packet_return_id
             WHERE e.uid = ?1",
            [annotate::stored::StoredUid(uid)],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((who, packet, file, at)) = holder else {
        return Err(Error::Internal(format!("event {uid} was refused as a duplicate but is not in the project")));
    };
    let source = match (file, at, packet.is_empty()) {
        (Some(f), Some(at), false) => format!("merged from {who}'s packet `{packet}` (file `{f}`, at {at})"),
        (_, _, false) => format!("merged from {who}'s packet `{packet}`"),
        _ => format!("recorded for {who} in this project"),
    };
    Ok(refuse(
        "event",
        Some(row),
        format!(
            "event {uid} is already in this project, {source}; one event cannot belong to two returns, so one of \
             them was copied from the other. If this return is {}'s genuine one, restore the project from a copy \
             made before that merge (the `.bak` files beside it, or your own backup) and merge this return \
             first",
            p.annotator
        ),
    ))
}

/// A row of a return as `merge_one` checked it: the row, its candidate, its events (with their
/// field, old value and normalised new value as made, a mark expanded, and standing), its fold,
/// and whether it brings a new event.
type CheckedRow<'p> = (&'p PacketRow, Candidate, Vec<CheckedEvent<'p>>, Fields, bool);
type CheckedEvent<'p> = (&'p PacketEvent, Field, Option<String>, Option<String>, Known);

/// The rows of the packet its annotator has finished in the project.
fn count_finished(tx: &rusqlite::Connection, p: &Packet, annotator_id: i64) -> Result<u64> {
    Ok(tx.query_row(
        "SELECT count(*) FROM packet_rows r JOIN annotations a ON a.candidate_id = r.candidate_id AND a.annotator_id = ?2
         WHERE r.packet_id = ?1 AND a.finished",
        params![p.packet_id, annotator_id],
        |r| r.get::<_, i64>(0),
    )? as u64)
}
