//! The annotator's workspace: a project file of its own, made from an issued packet, in which
//! the annotator works offline (an annotator never needs the lead's project). "Return packet"
//! writes the returned packet file from it: the issued packet plus every event (each with its
//! uid) and the time spent per row, naming the workspace and authenticated with an HMAC keyed
//! by the packet's secret (kept from the issued packet, never written into the return).
//!
//! A workspace uses the same schema as a lead's project; its `workspace` row records the packet.
//! Its rows keep the lead's content hashes (with strict blinding the hidden fields could not be
//! hashed again), and only the annotator is on its roster.

use rusqlite::{params, OptionalExtension};
use std::path::Path;

use crate::annotate;
use crate::error::{Error, Result};
use crate::packets::{self, Packet};
use crate::project::{now, Project};

/// Creates a workspace at `workspace_path` from the issued packet at `packet_path`.
pub fn open_packet(packet_path: &Path, workspace_path: &Path) -> Result<Project> {
    let packet = packets::read(packet_path)?;
    if packet.kind != "issued" {
        return Err(Error::WrongPacket(format!(
            "{}: this packet was already returned; open the packet as issued",
            packet_path.display()
        )));
    }
    let mut project = Project::create(workspace_path, &format!("{} ({})", packet.project.name, packet.annotator))?;
    let tx = project.conn_mut().transaction()?;
    tx.execute(
        "INSERT INTO workspace (singleton, packet_id, lead_project_id, annotator, blinding, issued_at, packet_json, workspace_id)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            packet.packet_id,
            packet.project.id,
            packet.annotator,
            packet.blinding.as_str(),
            packet.issued_at,
            serde_json::to_string(&packet).expect("packet serialises"),
            uuid::Uuid::new_v4().to_string()
        ],
    )?;
    tx.execute(
        "INSERT INTO imports (file_name, file_sha256, imported_at, rows_read, rows_inserted, rows_unchanged)
         VALUES (?1, ?2, ?3, ?4, ?4, 0)",
        params![
            packet_path.display().to_string(),
            packet.checksum.clone().unwrap_or_default(),
            now(),
            packet.rows.len() as i64
        ],
    )?;
    let import_id = tx.last_insert_rowid();
    // The workspace shows the suggestions as the lead chose when issuing the packet, and the
    // guideline version it was issued under.
    tx.execute("UPDATE project SET suggestions = ?1 WHERE singleton = 1", [packet.suggestion_mode.as_str()])?;
    crate::guideline::set_for_workspace(
        &tx,
        packet.guideline_version.as_deref().unwrap_or(crate::guideline::FIRST),
        packet.guideline.as_deref().unwrap_or(crate::guideline::GUIDELINE),
    )?;
    tx.execute(
        "INSERT INTO annotators (name, role, created_at) VALUES (?1, 'annotator', ?2)",
        params![packet.annotator, now()],
    )?;
    let annotator_id = tx.last_insert_rowid();
    // Prepared once for all the rows: compiling them again per row was a large part of opening a
    // packet.
    let mut candidate = tx.prepare(
        "INSERT INTO candidates (id, seq, group_id, source_dataset, source_id, context, passage, evidence_span,
             calibrated_claim, raised_claim, repair, rationale, axis, severity, content_sha256, import_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?;
    let mut assignment = tx.prepare(
        "INSERT INTO assignments (candidate_id, slot, annotator_id, seed, assigned_at) VALUES (?1, 1, ?2, 0, ?3)",
    )?;
    for (seq, row) in packet.rows.iter().enumerate() {
        let s = &row.suggestions;
        let prov = row.provenance.clone().unwrap_or(packets::Provenance {
            group_id: String::new(),
            source_dataset: String::new(),
            source_id: String::new(),
        });
        candidate.execute(params![
            row.id,
            seq as i64 + 1,
            prov.group_id,
            prov.source_dataset,
            prov.source_id,
            row.context,
            row.passage,
            s.evidence_span,
            s.calibrated_claim,
            s.raised_claim,
            s.repair,
            s.rationale,
            s.axis.map(|a| a.as_str()),
            s.severity,
            row.content_sha256,
            import_id
        ])?;
        assignment.execute(params![row.id, annotator_id, now()])?;
    }
    drop((candidate, assignment));
    for row in packet.rows.iter().filter(|r| !r.events.is_empty()) {
        carry_work(&tx, row, annotator_id, &packet, packet.format_version)?;
    }
    // Rows a locked split froze when the packet was issued are frozen here too, under
    // a split of the same version with no rows of its own: every change to them is refused with
    // a message naming the split, as in the lead's project, instead of being left out at merge.
    let mut versions: Vec<i64> = packet.rows.iter().filter_map(|r| r.locked_split).collect();
    versions.sort_unstable();
    versions.dedup();
    for version in versions {
        let params = serde_json::to_string(&crate::split::SplitParams::new(Default::default(), None, None))
            .expect("params serialise");
        tx.execute(
            "INSERT INTO splits (version, status, params_json, created_at, locked_at) VALUES (?1, 'locked', ?2, ?3, ?3)",
            params![version, params, packet.issued_at],
        )?;
        let split_id = tx.last_insert_rowid();
        for row in packet.rows.iter().filter(|r| r.locked_split == Some(version)) {
            tx.execute("INSERT INTO locked_rows (candidate_id, split_id) VALUES (?1, ?2)", params![row.id, split_id])?;
        }
    }
    tx.commit()?;
    Ok(project)
}

/// Puts the annotator's own work on a row, as the issued packet carries it from the lead's
/// project, into the workspace: the same events (same uids, so a merge recognises them and adds
/// only what is new) and the time spent, then the row's label as they fold to. The annotator
/// continues where they were instead of starting again from the suggestions.
/// An event carried with the mark is written with the values the packet's row gives it, and so
/// stored with the mark again. Each carried event is stored as one event, as the packet names it
/// (a record of the lead's arrives as the events it stands for), so the return names every one by
/// the uid the lead knows.
fn carry_work(
    tx: &rusqlite::Connection,
    row: &packets::PacketRow,
    annotator_id: i64,
    packet: &Packet,
    version: u32,
) -> Result<()> {
    let annotator = packet.annotator.as_str();
    let mut local: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    let mut last = None;
    for e in &row.events {
        let undoes = match e.undoes.as_deref() {
            Some(uid) => Some(*local.get(uid).ok_or_else(|| {
                Error::WrongPacket(format!(
                    "row {}: event {} undoes `{uid}`, which is not an earlier event of the row",
                    row.id, e.uid
                ))
            })?),
            None => None,
        };
        let field: annotate::Field = e.field.parse().map_err(|m| bad_event(row, e, m))?;
        let (old_value, new_value) =
            packets::marks::values(e, field, row, version).map_err(|m| bad_event(row, e, m))?;
        // Prepared once per transaction: made again for each event, parsing and compiling this
        // statement took most of opening a packet that carries earlier work.
        tx.prepare_cached(concat!(
                "INSERT INTO annotation_events (candidate_id, annotator_id, field, old_value, new_value, at, origin, undoes,
                     uid, suggestion_mode, guideline_version, from_suggestion)
                 SELECT ?1, ?2, ?3, iif(k, NULL, ?4), iif(k, NULL, ?5), ?6, ?7, ?8, ?9, ?10, ?11, iif(k, 1, NULL)
                 FROM (SELECT ",
                crate::annotate::stored::from_suggestion_sql!("?1", "?3", "?4", "?5", "?7"),
                " AS k)"
            ))?
            .execute(params![
                row.id,
                annotator_id,
                e.field,
                old_value,
                new_value,
                e.at,
                e.origin,
                undoes,
                crate::annotate::stored::StoredUid(&e.uid),
                // An event without them was made under the packet's (as a merge reads it too).
                e.suggestion_mode.unwrap_or(packet.suggestion_mode).as_str(),
                e.guideline_version.as_deref().or(packet.guideline_version.as_deref()).unwrap_or(crate::guideline::FIRST)
            ])?;
        let id = tx.last_insert_rowid();
        local.insert(e.uid.as_str(), id);
        last = Some(id);
    }
    let c = crate::candidate::find_in(tx, &row.id)?.ok_or_else(|| Error::CandidateNotFound(row.id.clone()))?;
    let mut a = annotate::fold(tx, &c, annotator_id, annotator)?;
    a.seconds_spent = row.seconds_spent.unwrap_or(0.0);
    annotate::store(tx, &a, annotator_id, last)
}

/// The refusal of an issued packet's event that cannot be carried into the workspace.
fn bad_event(row: &packets::PacketRow, e: &packets::PacketEvent, why: String) -> Error {
    Error::WrongPacket(format!("row {}: event {}: {why}", row.id, e.uid))
}

/// How many of the packet's rows came with the annotator's own work from the lead's project.
pub fn carried_rows(packet: &Packet) -> u64 {
    packet.rows.iter().filter(|r| !r.events.is_empty()).count() as u64
}

/// How many rows were changed in this workspace (rows whose only events are the work the packet
/// carried in are not counted): what "Return packet" says it returns.
pub fn changed_rows(project: &Project) -> Result<u64> {
    let packet = packet_of(project)?.ok_or_else(not_a_workspace)?;
    let carried: std::collections::HashSet<&str> =
        packet.rows.iter().flat_map(|r| r.events.iter().map(|e| e.uid.as_str())).collect();
    let mut stmt = project.conn().prepare("SELECT candidate_id, uid FROM annotation_events")?;
    let mut rows = stmt.query([])?;
    let mut changed: std::collections::HashSet<String> = std::collections::HashSet::new();
    while let Some(r) = rows.next()? {
        let (id, uid): (String, String) = (r.get(0)?, r.get::<_, crate::annotate::stored::ReadUid>(1)?.0);
        if !carried.contains(uid.as_str()) {
            changed.insert(id);
        }
    }
    Ok(changed.len() as u64)
}

/// The packet a workspace was made from, or `None` for a lead's project.
pub fn packet_of(project: &Project) -> Result<Option<Packet>> {
    let json: Option<String> = project
        .conn()
        .query_row("SELECT packet_json FROM workspace WHERE singleton = 1", [], |r| r.get(0))
        .optional()?;
    json.map(|j| serde_json::from_str(&j).map_err(|e| Error::Corrupt(format!("workspace packet is unreadable: {e}"))))
        .transpose()
}

/// The id of the workspace (a uuid made when it was opened from its packet), or `None` for a
/// lead's project.
pub fn workspace_id(project: &Project) -> Result<Option<String>> {
    Ok(project
        .conn()
        .query_row("SELECT workspace_id FROM workspace WHERE singleton = 1", [], |r| r.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// Writes the returned packet (issued packet + events + time) to `out`; returns the packet.
///
/// Each event travels with its uid (and an undo with the uid of the event it undoes); the
/// return names this workspace and is authenticated with an HMAC keyed by the packet's secret,
/// which the return itself never carries.
pub fn return_packet(project: &Project, out: &Path) -> Result<Packet> {
    let mut packet = packet_of(project)?.ok_or_else(not_a_workspace)?;
    let secret = packet.secret.as_deref().and_then(packets::decode_secret).ok_or_else(|| {
        Error::NotAWorkspace(
            "this workspace was opened from a packet without a packet key; open a newly issued packet".into(),
        )
    })?;
    let workspace_id = workspace_id(project)?
        .ok_or_else(|| Error::NotAWorkspace("this workspace has no workspace id; open the packet again".into()))?;
    let conn = project.conn();
    let annotator_id: i64 =
        conn.query_row("SELECT id FROM annotators WHERE name = ?1", [&packet.annotator], |r| r.get(0))?;
    // A return is written in the format its packet was issued in, so a lead whose ForceBench
    // reads only that format can still merge it (a format-2 return carries every event's values).
    let version = packet.format_version;
    let (mode, guideline) = (packet.suggestion_mode, packet.guideline_version.clone());
    for row in &mut packet.rows {
        row.events = packets::marks::events_of(conn, row, annotator_id, version, (mode, guideline.as_deref()))?;
        let annotation = annotate::get(project, &row.id, &packet.annotator)?;
        row.seconds_spent = Some(annotation.seconds_spent);
    }
    packet.kind = "returned".into();
    packet.returned_at = Some(now());
    packet.workspace_id = Some(workspace_id);
    // Printed straight into the file: holding the whole text (about 5 KB per row) beside the
    // packet nearly doubled the memory a return takes.
    packet.seal_returned(&secret);
    crate::output::write_through(out, true, |tmp| {
        let created = std::fs::OpenOptions::new().write(true).create_new(true).open(tmp);
        let mut file = std::io::BufWriter::with_capacity(1 << 16, created.map_err(|e| Error::io(tmp, e))?);
        // Compact, as the HMAC covers it: indentation was about a quarter of a return's bytes.
        serde_json::to_writer(&mut file, &packet).map_err(|e| Error::io(tmp, e.into()))?;
        std::io::Write::flush(&mut file).map_err(|e| Error::io(tmp, e))
    })?;
    Ok(packet)
}

fn not_a_workspace() -> Error {
    Error::NotAWorkspace(
        "this project is not an annotator workspace; only a workspace opened from a packet can be returned".into(),
    )
}

/// Where a return is written when no path is given: `<packet stem>.returned.json` beside the
/// issued packet (`ana.json` -> `ana.returned.json`). The app and `forcebench packets return`
/// share it.
pub fn default_return_path(packet_path: &Path) -> std::path::PathBuf {
    let stem = packet_path.file_stem().and_then(|s| s.to_str()).unwrap_or("packet");
    packet_path.with_file_name(format!("{stem}.returned.json"))
}

/// The issued packet a workspace file belongs to, told from its name (the inverse of
/// [`workspace_path_for`]); `None` for a file not named so.
pub fn packet_path_of_workspace(workspace: &Path) -> Option<std::path::PathBuf> {
    let name = workspace.file_name()?.to_str()?;
    let packet = name.strip_suffix(".workspace.forcebench")?;
    (!packet.is_empty()).then(|| workspace.with_file_name(packet))
}

/// Where the workspace `project` is returned to when no path is given ([`default_return_path`]
/// beside the packet its file was opened from); `None` when its file is not named after a packet
/// (a workspace opened with `packets open --workspace` elsewhere), so the caller must ask for a
/// path. Refuses a project that is not a workspace, as [`return_packet`] does.
pub fn default_return_path_of(project: &Project) -> Result<Option<std::path::PathBuf>> {
    if packet_of(project)?.is_none() {
        return Err(not_a_workspace());
    }
    Ok(packet_path_of_workspace(Path::new(&project.info().path)).map(|packet| default_return_path(&packet)))
}

/// The workspace file kept beside a packet: `<packet file>.workspace.forcebench`.
pub fn workspace_path_for(packet_path: &Path) -> std::path::PathBuf {
    let mut name = packet_path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".workspace.forcebench");
    packet_path.with_file_name(name)
}

/// Opens the workspace of an issued packet, creating it beside the packet the first time and
/// resuming it afterwards (so closing the app never loses work).
pub fn open_or_resume(packet_path: &Path) -> Result<Project> {
    let ws = workspace_path_for(packet_path);
    if ws.exists() {
        let project = Project::open(&ws)?;
        let packet = packets::read(packet_path)?;
        match packet_of(&project)? {
            Some(p) if p.packet_id == packet.packet_id => Ok(project),
            _ => Err(Error::WrongPacket(format!("{} is not the workspace of {}", ws.display(), packet_path.display()))),
        }
    } else {
        open_packet(packet_path, &ws)
    }
}
