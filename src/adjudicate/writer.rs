//! What the writes of one adjudication transaction share, and the history event each change
//! appends.

use std::cell::RefCell;
use std::rc::Rc;

use rusqlite::types::ToSql;
use rusqlite::{params, Transaction};

use super::history::{self, Event};
use crate::error::Result;

/// What every write of one transaction shares, read once rather than once per row and
/// statement: who decides, the guideline version in force, and, for a step over many rows, the
/// rows a locked split froze (one read of them instead of a look-up per row; the storage's own
/// triggers still refuse a write to a frozen row).
pub(crate) struct Writer {
    pub(super) who: i64,
    pub(super) name: String,
    pub(super) guideline: String,
    pub(super) frozen: Option<crate::rowstate::Frozen>,
    /// The multi-row INSERT texts made so far, by table, row count and whether they overwrite:
    /// made once per transaction rather than formatted again for every row written.
    texts: RefCell<Vec<(Text, Rc<str>)>>,
    /// The QC check lists this transaction has stored or found.
    pub(super) check_lists: crate::qc::CheckLists,
}

/// Which statement, for how many rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Text {
    Events(usize),
    Fields { rows: usize, overwrite: bool },
}

impl Writer {
    /// `many`: the transaction writes many rows, so the frozen rows are read once up front.
    pub(super) fn new(tx: &Transaction, who: (i64, String), many: bool) -> Result<Writer> {
        let frozen = if many { Some(crate::rowstate::Frozen::load(tx)?) } else { None };
        Ok(Writer {
            who: who.0,
            name: who.1,
            guideline: crate::guideline::current_label(tx)?,
            frozen,
            texts: RefCell::default(),
            check_lists: crate::qc::CheckLists::default(),
        })
    }

    /// The statement text of `kind`, made by `make` the first time.
    fn text(&self, kind: Text, make: impl FnOnce() -> String) -> Rc<str> {
        let mut texts = self.texts.borrow_mut();
        if let Some((_, t)) = texts.iter().find(|(k, _)| *k == kind) {
            return t.clone();
        }
        let t: Rc<str> = make().into();
        texts.push((kind, t.clone()));
        t
    }

    pub(super) fn guard(&self, tx: &Transaction, id: &str) -> Result<()> {
        match &self.frozen {
            Some(frozen) => frozen.guard(id),
            None => crate::rowstate::guard(tx, id),
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn event(
    tx: &Transaction,
    id: &str,
    field: &str,
    old: Option<&str>,
    new: Option<&str>,
    source: &str,
    who: i64,
    at: &str,
    guideline: &str,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO adjudication_events (candidate_id, field, old_value, new_value, source, adjudicator_id, at, guideline_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![id, field, old, new, source, who, at, guideline])?;
    Ok(())
}

impl Writer {
    /// Appends a row's history events, in order, with one statement: each run of fields set
    /// where they had no value, from one source, as one record ([`history::stored`]).
    pub(super) fn events(&self, tx: &Transaction, id: &str, events: &[Event], at: &str) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let rows = history::stored(events);
        let sql = self.text(Text::Events(rows.len()), || {
            format!(
                "INSERT INTO adjudication_events (candidate_id, field, old_value, new_value, source, adjudicator_id, at, guideline_version, field_set)
                 VALUES {}",
                vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?)"; rows.len()].join(", ")
            )
        });
        let mut values: Vec<&dyn ToSql> = Vec::with_capacity(rows.len() * 9);
        for (field, old, new, source, bits) in &rows {
            values.extend([&id as &dyn ToSql, field, old, new, source, &self.who, &at, &self.guideline, bits]);
        }
        tx.prepare_cached(&sql)?.execute(values.as_slice())?;
        Ok(())
    }

    /// Writes a row's changed final fields, `(field, value, source)`, with one statement;
    /// `overwrite`: the row has final fields already, which these may replace.
    pub(super) fn fields(
        &self,
        tx: &Transaction,
        id: &str,
        fields: &[(&str, &Option<String>, &str)],
        at: &str,
        overwrite: bool,
    ) -> Result<()> {
        if fields.is_empty() {
            return Ok(());
        }
        let sql = self.text(Text::Fields { rows: fields.len(), overwrite }, || {
            format!(
                "INSERT INTO adjudication_fields (candidate_id, field, value, source, adjudicator_id, at) VALUES {}{}",
                vec!["(?, ?, ?, ?, ?, ?)"; fields.len()].join(", "),
                if overwrite {
                    " ON CONFLICT (candidate_id, field) DO UPDATE SET value = excluded.value, source = excluded.source,
                     adjudicator_id = excluded.adjudicator_id, at = excluded.at"
                } else {
                    ""
                }
            )
        });
        let mut values: Vec<&dyn ToSql> = Vec::with_capacity(fields.len() * 6);
        for (field, value, source) in fields {
            values.extend([&id as &dyn ToSql, field, *value, source, &self.who, &at]);
        }
        tx.prepare_cached(&sql)?.execute(values.as_slice())?;
        Ok(())
    }
}
