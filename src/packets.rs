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
use std::collections::{BTreeMap, HashMap, HashSet};
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

mod read;
use read::read_canonical;
pub use read::{checksum_of, checksum_of_bytes, mac_of, mac_of_bytes, read};

pub const FORMAT: &str = "forcebench-packet";
pub const FORMAT_VERSION: u32 = 2;

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
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub at: String,
    pub origin: String,
    /// The uid of the event this one undoes (an earlier event of the same row).
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
    /// Returned packets only: every change, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<PacketEvent>,
    /// Returned packets only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_spent: Option<f64>,
    /// The locked split that froze the row when the packet was issued (issue 31): the workspace
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

/// A fresh per-packet secret: 32 bytes from the operating system's generator.
fn new_secret() -> Result<[u8; 32]> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key)
        .map_err(|e| Error::Internal(format!("could not draw a packet key from the operating system: {e}")))?;
    Ok(key)
}

/// Decodes a packet secret as stored (hex of 32 bytes).
pub(crate) fn decode_secret(hex_text: &str) -> Option<Vec<u8>> {
    hex::decode(hex_text).ok().filter(|k| k.len() == 32)
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
        locked_split: None,
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
    let suggestion_mode = crate::settings::suggestion_mode(project.conn())?;
    let guideline = crate::guideline::current(project)?;
    let mut issued = Vec::new();
    let tx = project.conn_mut().transaction()?;
    let frozen = crate::rowstate::Frozen::load(&tx)?;
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
            let mut row = row_for(&c, &hash, blinding);
            if let Err(Error::SplitLocked { version, .. }) = frozen.guard(id) {
                row.locked_split = Some(version);
            }
            rows.push(row);
        }
        let secret = new_secret()?;
        let mut packet = Packet {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            kind: "issued".into(),
            project: PacketProject { id: info.id.clone(), name: info.name.clone() },
            packet_id: uuid::Uuid::new_v4().to_string(),
            annotator: person.name.clone(),
            blinding,
            suggestion_mode,
            guideline_version: Some(guideline.label.clone()),
            guideline: Some(guideline.text.clone()),
            issued_at: now(),
            returned_at: None,
            secret: Some(hex::encode(secret)),
            workspace_id: None,
            rows,
            checksum: None,
            mac: None,
        };
        let text = packet.to_json();
        let file = dir.join(format!("{}-{}.packet.json", safe_name(&person.name), &packet.packet_id[..8]));
        crate::output::write_file(&file, text.as_bytes(), true)?;
        tx.execute(
            "INSERT INTO packets (id, annotator_id, blinding, issued_at, checksum, secret) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![packet.packet_id, person.id, blinding.as_str(), packet.issued_at, packet.checksum, packet.secret],
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
        return Err(Error::NothingAssigned("no one has assignments yet; run `forcebench assign` first".into()));
    }
    tx.commit()?;
    Ok(issued)
}

fn candidate_with_hash(conn: &rusqlite::Connection, id: &str) -> Result<(Candidate, String)> {
    // Reuse the candidate reader through a lightweight query of the hash.
    let hash: String =
        conn.prepare_cached("SELECT content_sha256 FROM candidates WHERE id = ?1")?.query_row([id], |r| r.get(0))?;
    let c = candidate::find_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.into()))?;
    Ok((c, hash))
}

fn safe_name(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
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
    /// The guideline version the packet was issued under, and, when a newer one was published
    /// while the packet was out, the version in force now (its labels were given under the older).
    pub guideline_version: String,
    pub newer_guideline: Option<String>,
    /// Rows whose changes were left out because a locked split froze the row (issue 31): the rest
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

/// A packet whose rows a lock freezes (issue 31): the lead is told at the lock which packets are
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
    for f in files {
        let (packet, canonical) = read_canonical(f)?;
        let secret: Option<Option<String>> = project
            .conn()
            .query_row("SELECT secret FROM packets WHERE id = ?1", [&packet.packet_id], |r| r.get(0))
            .optional()?;
        let authentic = match secret.flatten().as_deref().and_then(decode_secret) {
            Some(key) => canonical.mac_matches(&key, packet.mac.as_deref().unwrap_or_default())?,
            None => false,
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
    Ok(reports)
}

/// A row's annotation as the fold of some events: each field's stored value, in [`Field::ALL`]
/// order. Two workspaces agree on a row when these are equal.
type Fields = [Option<String>; 9];

fn apply(fields: &mut Fields, field: Field, value: Option<String>) {
    let i = Field::ALL.iter().position(|f| *f == field).expect("every field is in Field::ALL");
    fields[i] = value;
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
    /// Merged before (from this packet and row): its local id.
    Merged(i64),
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
        finished_rows: 0,
        newer_guideline: (now_in_force != issued_under).then_some(now_in_force),
        guideline_version: issued_under,
        frozen_rows: Vec::new(),
    };
    if already {
        return Ok(report);
    }

    // The events of this packet already in the project, by uid (one indexed pass).
    let mut merged: HashMap<String, (i64, String)> = HashMap::new();
    {
        let mut stmt = tx.prepare("SELECT uid, id, candidate_id FROM annotation_events WHERE packet_id = ?1")?;
        let rows = stmt
            .query_map([&p.packet_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (uid, id, candidate) = row?;
            merged.insert(uid, (id, candidate));
        }
    }

    // Rows: exactly the issued ones, each unchanged since issue, none twice; every event valid.
    let issued_rows: HashMap<String, String> = {
        let mut stmt = tx.prepare("SELECT candidate_id, content_sha256 FROM packet_rows WHERE packet_id = ?1")?;
        let rows = stmt.query_map([&p.packet_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut seen = HashSet::new();
    let mut uids: HashSet<&str> = HashSet::new();
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
            if !matches!(e.origin.as_str(), "prefill" | "app" | "import" | "confirm") {
                return Err(bad(format!("`{}` is not an event origin (prefill, app, import or confirm)", e.origin)));
            }
            let field: Field = e.field.parse().map_err(bad)?;
            let value = annotate::normalise(field, e.new_value.as_deref(), &c.passage)
                .map_err(|m| bad(format!("`{}`: {m}", e.field)))?;
            apply(&mut fields, field, value.clone());
            let known = match merged.get(&e.uid) {
                Some((id, candidate)) if candidate == &row.id => Known::Merged(*id),
                Some((_, candidate)) => return Err(bad(format!("the event was merged before on row `{candidate}`"))),
                None => {
                    fresh = true;
                    Known::New
                }
            };
            events.push((e, field, value, known));
        }
        checked.push((row, c, events, fields, fresh));
    }
    if let Some(missing) = issued_rows.keys().find(|id| !seen.contains(id.as_str())) {
        return Err(refuse("rows", Some(missing), "an issued row is missing from the returned packet".into()));
    }

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

    let mut return_id = None;
    for (row, c, events, _, fresh) in &checked {
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
        if !*fresh && !seconds_changed {
            continue;
        }
        // A row a locked split froze takes no new label: its changes are left out, whole, and
        // listed with the reason (the rest of the return is merged: a packet issued before the
        // lock keeps its other rows); time spent on it since is not recorded, as in the app.
        // Every other check above still refuses the whole return.
        if let Err(frozen) = crate::rowstate::guard(tx, &row.id) {
            if *fresh {
                let events = events.iter().filter(|e| matches!(e.3, Known::New)).count() as u64;
                let reason = match frozen {
                    Error::SplitLocked { version, .. } => {
                        format!("the row is in locked split v{version}, which freezes its labels")
                    }
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
        for (e, field, value, known) in events {
            if let Known::Merged(id) = known {
                local.insert(e.uid.as_str(), *id);
                continue;
            }
            let inserted = tx
                .prepare_cached(
                    "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin,
                         packet_return_id, undoes, packet_id, uid, suggestion_mode, guideline_version)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                     ON CONFLICT (uid) DO NOTHING",
                )?
                .execute(params![
                    row.id,
                    annotator_id,
                    field.as_str(),
                    e.old_value,
                    value,
                    e.at,
                    match e.origin.as_str() {
                        "prefill" => "prefill",
                        "confirm" => "confirm",
                        _ => "packet",
                    },
                    return_id,
                    e.undoes.as_deref().and_then(|u| local.get(u).copied()),
                    p.packet_id,
                    e.uid,
                    e.suggestion_mode.unwrap_or(p.suggestion_mode).as_str(),
                    e.guideline_version.as_deref().or(p.guideline_version.as_deref()).unwrap_or(crate::guideline::FIRST)
                ])?;
            if inserted == 0 {
                return Err(refuse(
                    "event",
                    Some(&row.id),
                    format!("event {} is already in this project from another packet; the return was not written by this packet's workspace", e.uid),
                ));
            }
            let id = tx.last_insert_rowid();
            local.insert(e.uid.as_str(), id);
            last = Some(id);
            report.new_events += 1;
        }
        let mut current: Annotation = annotate::fold(tx, c, annotator_id, &p.annotator)?;
        if let Some(seconds) = row.seconds_spent {
            current.seconds_spent = seconds;
        }
        annotate::store(tx, &current, annotator_id, last)?;
        tx.prepare_cached("UPDATE annotations SET seconds_spent = ?1 WHERE candidate_id = ?2 AND annotator_id = ?3")?
            .execute(params![current.seconds_spent, row.id, annotator_id])?;
    }
    report.merged = return_id.is_some();
    report.finished_rows = count_finished(tx, p, annotator_id)?;
    Ok(report)
}

/// The rows of the packet its annotator has finished in the project.
fn count_finished(tx: &rusqlite::Connection, p: &Packet, annotator_id: i64) -> Result<u64> {
    Ok(tx.query_row(
        "SELECT count(*) FROM packet_rows r JOIN annotations a ON a.candidate_id = r.candidate_id AND a.annotator_id = ?2
         WHERE r.packet_id = ?1 AND a.finished",
        params![p.packet_id, annotator_id],
        |r| r.get::<_, i64>(0),
    )? as u64)
}

/// Per workspace id: the file its latest return was merged from, and the fold of its events on
/// each row it changed.
type Workspaces = BTreeMap<String, (String, HashMap<String, Fields>)>;

/// Every other workspace whose returns of this packet were merged.
fn other_workspaces(tx: &rusqlite::Connection, packet_id: &str, workspace_id: &str) -> Result<Workspaces> {
    let mut out = Workspaces::new();
    let mut stmt = tx.prepare(
        "SELECT e.candidate_id, coalesce(r.workspace_id, 'from before workspace ids'), coalesce(r.file_name, ''), e.field, e.new_value
         FROM annotation_events e JOIN packet_returns r ON r.id = e.packet_return_id
         WHERE e.packet_id = ?1 AND r.workspace_id IS NOT ?2
         ORDER BY e.id",
    )?;
    let mut rows = stmt.query(params![packet_id, workspace_id])?;
    while let Some(r) = rows.next()? {
        let (candidate, ws, file): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let field: Field = r.get::<_, String>(3)?.parse().map_err(Error::Corrupt)?;
        let entry = out.entry(ws).or_insert_with(|| (String::new(), HashMap::new()));
        entry.0 = file;
        apply(entry.1.entry(candidate).or_default(), field, r.get(4)?);
    }
    Ok(out)
}
