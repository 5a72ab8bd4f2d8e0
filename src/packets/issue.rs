//! Issuing packets: one file per annotator with their rows, blinded as asked, and the per-packet
//! secret its return is authenticated with (see the parent module).

use super::*;

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
    /// Of the rows, those the annotator had already started in this project: the packet carries
    /// their labels (every change, with its uid) and time, so the workspace continues that work
    /// instead of starting again from the suggestions.
    #[ts(type = "number")]
    pub carried: u64,
}

/// Strict blinding hides the suggested axis and severity, which the annotator's own history can
/// hold too: the suggestions recorded when they started the row (origin `prefill`) are left out,
/// and no event says what an axis or severity was before it changed. Their own choices stay.
fn blind_suggestions(events: &mut Vec<PacketEvent>) {
    let hidden = |field: &str| matches!(field, "axis" | "severity");
    events.retain(|e| !(e.origin == "prefill" && hidden(&e.field)));
    for e in events.iter_mut().filter(|e| hidden(&e.field)) {
        e.old_value = None;
    }
}

/// The annotator's own history of one row in this project, as a packet carries it: every
/// change with its uid (an undo naming the uid of the event it undoes), oldest first, an event
/// that only records the suggestion as its mark (see `marks`), and the time spent. Empty when the
/// annotator has not started the row.
fn own_work(
    tx: &rusqlite::Connection,
    row: &PacketRow,
    annotator_id: i64,
    defaults: (SuggestionMode, Option<&str>),
) -> Result<(Vec<PacketEvent>, Option<f64>)> {
    let id = row.id.as_str();
    let events = super::marks::events_of(tx, row, annotator_id, FORMAT_VERSION, defaults)?;
    let seconds: Option<f64> = tx
        .prepare_cached("SELECT seconds_spent FROM annotations WHERE candidate_id = ?1 AND annotator_id = ?2")?
        .query_row(params![id, annotator_id], |r| r.get(0))
        .optional()?;
    Ok((events, seconds.filter(|s| *s > 0.0)))
}

/// Writes one packet per annotator with assignments into `dir`.
pub fn issue(project: &mut Project, dir: &Path, blinding: Blinding) -> Result<Vec<IssuedPacket>> {
    crate::settings::lead_only(project.conn(), "issuing packets")?;
    crate::output::check_out_folder(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    // The packet files written so far: removed if the issue fails, so no packet (and no key) is
    // left that the project never recorded (a full disk at the commit, say).
    let mut written: Vec<PathBuf> = Vec::new();
    let issued = issue_into(project, dir, blinding, &mut written);
    if issued.is_err() {
        for f in &written {
            let _ = std::fs::remove_file(f);
        }
    }
    issued
}

fn issue_into(
    project: &mut Project,
    dir: &Path,
    blinding: Blinding,
    written: &mut Vec<PathBuf>,
) -> Result<Vec<IssuedPacket>> {
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
            (row.events, row.seconds_spent) =
                own_work(&tx, &row, person.id, (suggestion_mode, Some(guideline.label.as_str())))?;
            if blinding == Blinding::Strict {
                blind_suggestions(&mut row.events);
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
        // A packet that cannot be written whole (a full disk, a file size limit) issues none: the
        // files written before it are removed by `issue`, and the transaction is not committed.
        crate::output::write_file(&file, text.as_bytes(), true).map_err(|e| match e {
            Error::Io { path, source } => Error::IoUndone {
                path,
                source,
                undone: "no packet was issued: any packet file written before it was removed, and the project \
                         records none"
                    .into(),
            },
            other => other,
        })?;
        written.push(file.clone());
        tx.execute(
            "INSERT INTO packets (id, annotator_id, blinding, issued_at, checksum, secret) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![packet.packet_id, person.id, blinding.as_str(), packet.issued_at, packet.checksum, packet.secret],
        )?;
        // One statement for all the rows, not one compiled per row.
        let mut insert =
            tx.prepare_cached("INSERT INTO packet_rows (packet_id, candidate_id, content_sha256) VALUES (?1, ?2, ?3)")?;
        for row in &packet.rows {
            insert.execute(params![packet.packet_id, row.id, row.content_sha256])?;
        }
        issued.push(IssuedPacket {
            annotator: person.name.clone(),
            packet_id: packet.packet_id.clone(),
            file: file.display().to_string(),
            rows: packet.rows.len() as u64,
            carried: packet.rows.iter().filter(|r| !r.events.is_empty()).count() as u64,
        });
    }
    if issued.is_empty() {
        return Err(Error::NothingAssigned("no one has assignments yet; run `forcebench assign` first".into()));
    }
    tx.commit()?;
    Ok(issued)
}

pub(super) fn candidate_with_hash(conn: &rusqlite::Connection, id: &str) -> Result<(Candidate, String)> {
    candidate::find_with_hash_in(conn, id)?.ok_or_else(|| Error::CandidateNotFound(id.into()))
}

fn safe_name(name: &str) -> String {
    crate::output::name_for_file(name)
}
