//! IPC commands for the annotate view: the roster to annotate as, a window of an annotator's
//! queue, one row, and the changes to it (a field, confirming suggestions, undo, time spent),
//! with the guideline in force. Each is a call into `forcebench::{annotate, roster, guideline}`.
//!
//! They are `async` so they run off the main thread: a durable save (an fsync) must never stall
//! the window's event loop. Argument names are single words so they read the same in Rust and in
//! JavaScript (Tauri maps `snake_case` to `camelCase`).

use forcebench::annotate::{self, AnnotateRow, Annotation, Field, QueuePage, QueueQuery, QueueRow};
use forcebench::roster::{self, Annotator};
use forcebench::ErrorPayload;
use tauri::State;

use crate::Studio;

#[tauri::command]
pub fn list_annotators(studio: State<'_, Studio>) -> Result<Vec<Annotator>, ErrorPayload> {
    studio.with(roster::list)
}

/// A window of an annotator's queue with its counts: the window never holds a whole queue (half a
/// million rows on a 1M-row project).
#[tauri::command]
pub async fn annotate_queue_page(studio: State<'_, Studio>, query: QueueQuery) -> Result<QueuePage, ErrorPayload> {
    studio.with(|p| annotate::queue_page(p, &query))
}

/// The next row the annotator has not finished after `after` (going round), or from the start.
#[tauri::command]
pub async fn annotate_next_open(
    studio: State<'_, Studio>,
    annotator: String,
    after: Option<String>,
) -> Result<Option<QueueRow>, ErrorPayload> {
    studio.with(|p| annotate::next_open(p, &annotator, after.as_deref()))
}

#[tauri::command]
pub async fn annotate_row(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
) -> Result<AnnotateRow, ErrorPayload> {
    studio.with(|p| annotate::row_view(p, &id, &annotator))
}

/// Sets one field durably: the answer comes after the commit. `value: null` clears the field.
#[tauri::command]
pub async fn set_field(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
    field: Field,
    value: Option<String>,
) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::set_field(p, &id, &annotator, field, value.as_deref()))
}

/// Confirms every suggested field still unconfirmed on the row (the annotate view's `c`).
#[tauri::command]
pub async fn confirm_suggestions(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::confirm(p, &id, &annotator))
}

#[tauri::command]
pub async fn undo_change(studio: State<'_, Studio>, id: String, annotator: String) -> Result<Annotation, ErrorPayload> {
    studio.with_mut(|p| annotate::undo(p, &id, &annotator))
}

#[tauri::command]
pub async fn add_time(
    studio: State<'_, Studio>,
    id: String,
    annotator: String,
    seconds: f64,
) -> Result<(), ErrorPayload> {
    studio.with_mut(|p| annotate::add_time(p, &id, &annotator, seconds))
}

/// The guideline version in force (a workspace's: its packet's), with what changed from the
/// version before.
#[tauri::command]
pub async fn guideline(studio: State<'_, Studio>) -> Result<forcebench::guideline::InForce, ErrorPayload> {
    studio.with(forcebench::guideline::in_force)
}
