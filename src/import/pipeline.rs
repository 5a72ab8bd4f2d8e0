//! The candidate import's threads: the calling thread reads the file, checks every row and
//! hashes it, while a second thread inserts the rows already checked into the project, so that
//! parsing and SQLite's work overlap instead of following one another; a third takes the whole
//! file's digest meanwhile, and the written rows go back to the reader to be freed.
//!
//! Import stays all-or-nothing. The writer holds one transaction from its first row to the end
//! and commits only when the reader has gone through the whole file without a single problem and
//! no row conflicts with a stored one; otherwise the transaction is rolled back and the project
//! is exactly as it was. Once the reader has found a problem it sends no more rows (there is no
//! point writing them) but reads on, so that every problem in the file is reported, as before.
//!
//! The rows travel in batches over a bounded channel, so at most [`IN_FLIGHT`] batches wait in
//! memory whatever the file's size; the reader blocks when the writer falls behind. A file under
//! [`SMALL_FILE`] is read whole first and written after on the calling thread: handing it to
//! another thread saves nothing there, and on a busy machine waking that thread cost more.

use sha2::{Digest, Sha256};
use std::collections::hash_map::{Entry, HashMap};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use super::{
    each_row, insert_candidates, invalid, record_import, validate, ImportReport, InputFormat, Problems, Progress,
    CANDIDATES,
};
use crate::candidate::{self, Candidate};
use crate::error::{Error, Result};
use crate::problem::ImportConflict;
use crate::project::Project;

/// Files smaller than this (about 1,400 rows of the bench's CSV) are not split over two threads.
const SMALL_FILE: usize = 1 << 20;

/// Rows sent to the writer at a time.
const BATCH: usize = 256;

/// Batches read ahead of the writer at most.
const IN_FLIGHT: usize = 8;

/// Checked rows, each with its content hash.
type Rows = Vec<(Candidate, String)>;

/// A batch of checked rows: each row's line, the row and its content hash.
struct Batch {
    lines: Vec<u64>,
    rows: Rows,
}

impl Batch {
    fn new() -> Self {
        Batch { lines: Vec::with_capacity(BATCH), rows: Vec::with_capacity(BATCH) }
    }
}

enum Message {
    Rows(Batch),
    /// The whole file was read and every row is valid: keep what was written, recording the
    /// import with these figures (`inserted` and `unchanged` are the writer's to fill).
    Keep(ImportReport),
}

/// Reads, checks and writes the candidate file `bytes` (already decoded) into the project.
pub(super) fn import(
    project: &mut Project,
    file: &str,
    format: InputFormat,
    bytes: &[u8],
    progress: Progress,
) -> Result<ImportReport> {
    if bytes.len() < SMALL_FILE {
        let (send, receive) = channel();
        let report = read(file, format, bytes, progress, &|m| send.send(m).is_ok(), None)?;
        let _ = send.send(Message::Keep(ImportReport { file_sha256: file_digest(bytes), ..report }));
        drop(send);
        return write(project, file, receive, None)?.ok_or_else(|| Error::Internal("the import wrote nothing".into()));
    }
    let (send, receive) = sync_channel(IN_FLIGHT);
    // Written rows go back to the reader to be freed: their memory was allocated there, and
    // freeing it there is cheaper than on the writer, which is the slower of the two threads.
    let (give_back, given_back) = channel();
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("import-writer".into())
            .spawn_scoped(scope, || write(project, file, receive, Some(give_back)))
            .map_err(|e| Error::Internal(format!("cannot start the import's writer thread: {e}")))?;
        // The whole file's digest is the import record's; taken on a third thread, it fills time
        // the writer spends waiting for rows instead of holding up the end of the reading.
        let digest = std::thread::Builder::new()
            .name("import-digest".into())
            .spawn_scoped(scope, || file_digest(bytes))
            .map_err(|e| Error::Internal(format!("cannot start the import's digest thread: {e}")))?;
        let read = read(file, format, bytes, progress, &|m| send.send(m).is_ok(), Some(&given_back));
        let digest = digest.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let read = read.map(|report| ImportReport { file_sha256: digest, ..report });
        if let Ok(report) = &read {
            // A writer that stopped on an error no longer listens; its error is returned below.
            let _ = send.send(Message::Keep(report.clone()));
        }
        // Without `Keep`, the writer finds the channel closed and rolls back.
        drop(send);
        let written = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // A problem in the file is reported before anything the writer met (as when the file was
        // checked whole before writing).
        read?;
        written?.ok_or_else(|| Error::Internal("the import's writer stopped before the end of the file".into()))
    })
}

/// sha256 (hex) of the whole file as read, recorded with the import.
fn file_digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The reader's side: every row parsed, checked, its id checked against the earlier rows and its
/// content hashed, and sent while the file has shown no problem. Returns the report to record
/// (its file digest left for the caller to fill), or every problem found.
fn read(
    file: &str,
    format: InputFormat,
    bytes: &[u8],
    progress: Progress,
    send: &dyn Fn(Message) -> bool,
    written: Option<&Receiver<Rows>>,
) -> Result<ImportReport> {
    let mut problems = Problems { file: file.to_string(), list: Vec::new() };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        problems.add(None, None, "the file is empty");
        return Err(invalid(problems));
    }
    let mut first_line_of: HashMap<String, u64> = HashMap::new();
    let (mut seen, mut valid) = (0u64, 0u64);
    let mut batch = Batch::new();
    // False once the writer has stopped (on an error of its own): nothing more is hashed or sent.
    let mut writer_listens = true;
    each_row(&CANDIDATES, format, bytes, &mut problems, progress, &mut |row, problems| {
        seen += 1;
        let line = row.line;
        let Some(candidate) = validate(row, problems) else { return };
        match first_line_of.entry(candidate.id.clone()) {
            Entry::Occupied(first) => {
                problems.add(
                    Some(line),
                    Some("id"),
                    format!("duplicate id `{}` (first used on line {})", candidate.id, first.get()),
                );
                return;
            }
            Entry::Vacant(slot) => {
                slot.insert(line);
            }
        }
        valid += 1;
        if !problems.list.is_empty() || !writer_listens {
            return;
        }
        let hash = candidate.content_hash();
        batch.lines.push(line);
        batch.rows.push((candidate, hash));
        if batch.rows.len() == BATCH {
            writer_listens = send(Message::Rows(std::mem::replace(&mut batch, Batch::new())));
            for rows in written.into_iter().flat_map(Receiver::try_iter) {
                drop(rows);
            }
        }
    });
    if seen == 0 && problems.list.is_empty() {
        problems.add(None, None, "the file has no data rows");
    }
    if !problems.list.is_empty() {
        return Err(invalid(problems));
    }
    if !batch.rows.is_empty() && writer_listens {
        send(Message::Rows(batch));
    }
    Ok(ImportReport {
        file: file.to_string(),
        format,
        file_sha256: String::new(),
        rows_read: valid,
        inserted: 0,
        unchanged: 0,
    })
}

/// The writer's side: one transaction from the first batch on, committed only on `Keep` when
/// no row conflicts; `None` when the reader stopped without it (a problem in the file), the
/// transaction rolled back.
fn write(
    project: &mut Project,
    file: &str,
    receive: Receiver<Message>,
    give_back: Option<Sender<Rows>>,
) -> Result<Option<ImportReport>> {
    // Nothing is locked until there is something to write: a file refused before its first
    // valid row never takes the project's write lock.
    let Ok(mut message) = receive.recv() else { return Ok(None) };
    let tx = project.conn_mut().transaction()?;
    let pool_was_empty: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM candidates)", [], |r| r.get(0))?;
    // The record's figures are known only at the end; it is written first because every row
    // names it, and filled in before the commit.
    let placeholder = ImportReport {
        file: file.to_string(),
        format: InputFormat::Csv,
        file_sha256: String::new(),
        rows_read: 0,
        inserted: 0,
        unchanged: 0,
    };
    let (import_id, first_seq) = record_import(&tx, "imports", "candidates", &placeholder, 0)?;
    let (mut inserted, mut unchanged) = (0u64, 0u64);
    let mut conflicts = Vec::new();
    loop {
        match message {
            Message::Rows(batch) => {
                let rows =
                    if pool_was_empty { batch.rows } else { sort_out(&tx, batch, &mut unchanged, &mut conflicts)? };
                // After a conflict nothing will be kept; the rest is only checked, to list them all.
                if conflicts.is_empty() {
                    insert_candidates(&tx, import_id, first_seq + inserted as i64, &rows)?;
                    inserted += rows.len() as u64;
                    crate::crashpoint::hit("import-rows-written");
                }
                if let Some(give_back) = &give_back {
                    // A reader that has finished no longer takes them; they are freed here then.
                    let _ = give_back.send(rows);
                }
            }
            Message::Keep(mut report) => {
                if !conflicts.is_empty() {
                    return Err(Error::ImportConflict { file: report.file, conflicts });
                }
                report.inserted = inserted;
                report.unchanged = unchanged;
                if inserted == 0 {
                    // Every row was there already: nothing changes, not even the import record.
                    return Ok(Some(report));
                }
                tx.execute(
                    "UPDATE imports SET file_sha256 = ?1, rows_read = ?2, rows_inserted = ?3, rows_unchanged = ?4
                     WHERE id = ?5",
                    rusqlite::params![
                        report.file_sha256,
                        report.rows_read as i64,
                        inserted as i64,
                        unchanged as i64,
                        import_id
                    ],
                )?;
                crate::crashpoint::hit("import-before-commit");
                tx.commit()?;
                return Ok(Some(report));
            }
        }
        // A closed channel without `Keep`: the reader met a problem, and nothing is kept.
        let Ok(next) = receive.recv() else { return Ok(None) };
        message = next;
    }
}

/// Of a batch read into a project that already holds rows: the rows not stored yet. A row stored
/// with the same content counts as unchanged; one stored with other content is a conflict
/// (listed with the fields that differ).
fn sort_out(
    tx: &rusqlite::Transaction,
    batch: Batch,
    unchanged: &mut u64,
    conflicts: &mut Vec<ImportConflict>,
) -> Result<Rows> {
    let mut stored_hash = tx.prepare_cached("SELECT content_sha256 FROM candidates WHERE id = ?1")?;
    let mut new = Vec::with_capacity(batch.rows.len());
    for (line, (row, hash)) in batch.lines.into_iter().zip(batch.rows) {
        let stored: Option<String> =
            rusqlite::OptionalExtension::optional(stored_hash.query_row([&row.id], |r| r.get(0)))?;
        match stored {
            None => new.push((row, hash)),
            Some(s) if s == hash => *unchanged += 1,
            Some(_) => {
                let old = candidate::find_in(tx, &row.id)?.expect("a row with this id is stored");
                let fields = old.differing_fields(&row).into_iter().map(String::from).collect();
                conflicts.push(ImportConflict { id: row.id, line, fields });
            }
        }
    }
    Ok(new)
}
