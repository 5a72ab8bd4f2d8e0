//! An adjudication's first values kept as one event (schema 21): the events one adjudication
//! writes for fields that had no value before, from one source, are one record without values,
//! and the history reads each field as set to the value that follows it. Every history reads as
//! it did, a record with nothing to follow it is refused, and a project written by schema 20
//! reads the same after the upgrade, which leaves the file smaller.

use crate::adjudicate::{fixture, YES};
use crate::suggestions_once::{fb, upgrade_by_opening, worked_project, written_at, ExportBefore};
use forcebench::adjudicate::{self, Choice, Resolution};
use forcebench::annotate::Field;
use forcebench::Project;
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;

/// The fields an accept's first adjudication sets, in the order it writes them.
const ACCEPT: [&str; 7] =
    ["decision", "evidence_span", "calibrated_claim", "raised_claim", "axis", "severity", "repair"];

/// A history as (field, old, new, source) lines.
fn changes(project: &Project, id: &str) -> Vec<(String, Option<String>, Option<String>, String)> {
    adjudicate::row_view(project, id, false)
        .unwrap()
        .history
        .into_iter()
        .map(|h| (h.field, h.old_value, h.new_value, h.source))
        .collect()
}

/// What the two annotators agreed on for `field` of row `id` (its stored value in the view).
fn agreed(project: &Project, id: &str, field: &str) -> Option<String> {
    let view = adjudicate::row_view(project, id, false).unwrap();
    let row = view.fields.iter().find(|f| f.field.as_str() == field).unwrap();
    assert_eq!(row.a, row.b, "{field}: the annotators agree");
    row.a.clone()
}

#[test]
fn a_first_adjudication_is_one_record_and_the_history_reads_every_value_it_set() {
    // Before: seven events, each repeating the row, source, adjudicator, time and guideline beside
    // a value the final fields hold too.
    let mut f = fixture();
    let id = f.ids[0].clone();
    let values: Vec<Option<String>> = ACCEPT.iter().map(|field| agreed(&f.project, &id, field)).collect();
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Resolution::default() }).unwrap();
    let stored: Vec<(String, Option<i64>, Option<String>)> = f
        .project
        .conn()
        .prepare("SELECT field, field_set, new_value FROM adjudication_events WHERE candidate_id = ?1 ORDER BY id")
        .unwrap()
        .query_map([&id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stored.len(), 2, "one record and the checklist: {stored:?}");
    assert_eq!((stored[0].0.as_str(), stored[0].1, stored[0].2.as_deref()), ("fields", Some(0b111_1111), None));
    assert_eq!(stored[1].0, "checklist");

    let history = adjudicate::row_view(&f.project, &id, false).unwrap().history;
    assert_eq!(history.len(), 8);
    for (i, field) in ACCEPT.iter().enumerate() {
        let h = &history[i];
        assert_eq!(
            (h.field.as_str(), &h.old_value, &h.new_value, h.source.as_str(), h.adjudicator.as_str()),
            (*field, &None, &values[i], "both", "eve"),
            "{field}"
        );
        assert_eq!(h.id, history[0].id, "the events a record stands for share its id");
    }
    assert_eq!(history[7].field, "checklist");
    assert!(history[7].id > history[0].id);
}

#[test]
fn a_change_a_reopening_and_a_second_adjudication_read_as_they_happened() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    let v = |field: &str| agreed(&f.project, &id, field);
    let first: Vec<Option<String>> = ACCEPT.iter().map(|field| v(field)).collect();
    let both = |field: &str, new: &Option<String>| (field.to_string(), None, new.clone(), "both".to_string());

    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Resolution::default() }).unwrap();
    // The repair changed: the record's repair is the value this change replaces.
    let repair = Some("Say it as the passage does.".to_string());
    adjudicate::resolve(
        &mut f.project,
        &id,
        "eve",
        &Resolution {
            choices: vec![(Field::Repair, Choice::Value(repair.clone()))],
            rationale: Some("the annotators' repair adds a claim".into()),
            checklist: YES,
        },
    )
    .unwrap();
    adjudicate::reopen(&mut f.project, &id, "eve", "look at the span again").unwrap();
    // Adjudicated again with yet another repair: a second record of the fields the annotators'
    // agreement settles, then the repair on its own (another source). The first record's repair
    // is neither this final value nor the one the reopening took away.
    let last = Some("Keep the hedge.".to_string());
    adjudicate::resolve(
        &mut f.project,
        &id,
        "eve",
        &Resolution {
            choices: vec![(Field::Repair, Choice::Value(last.clone()))],
            rationale: Some("a smaller repair".into()),
            checklist: YES,
        },
    )
    .unwrap();

    let checklist = serde_json::to_string(&YES).unwrap();
    let mut want: Vec<(String, Option<String>, Option<String>, String)> =
        ACCEPT.iter().zip(&first).map(|(field, value)| both(field, value)).collect();
    want.push(("checklist".into(), None, Some(checklist.clone()), "edited".into()));
    want.push(("repair".into(), first[6].clone(), repair.clone(), "edited".into()));
    want.push(("rationale".into(), None, Some("the annotators' repair adds a claim".into()), "edited".into()));
    for (field, value) in ACCEPT.iter().zip(&first) {
        let value = if *field == "repair" { repair.clone() } else { value.clone() };
        want.push((field.to_string(), value, None, "reopened".into()));
    }
    want.push(("rationale".into(), Some("the annotators' repair adds a claim".into()), None, "reopened".into()));
    want.extend(ACCEPT[..6].iter().zip(&first).map(|(field, value)| both(field, value)));
    want.push(("repair".into(), None, last, "edited".into()));
    want.push(("rationale".into(), None, Some("a smaller repair".into()), "edited".into()));
    want.push(("checklist".into(), None, Some(checklist), "edited".into()));
    assert_eq!(changes(&f.project, &id), want);

    let records: i64 = f
        .project
        .conn()
        .query_row(
            "SELECT count(*) FROM adjudication_events WHERE candidate_id = ?1 AND field_set IS NOT NULL",
            [&id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(records, 2, "each first adjudication is one record");
}

#[test]
fn a_record_with_nothing_to_follow_it_is_refused_and_the_storage_guards_records() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Resolution::default() }).unwrap();
    let conn = f.project.conn();
    let rec: i64 = conn
        .query_row("SELECT id FROM adjudication_events WHERE candidate_id = ?1 AND field_set IS NOT NULL", [&id], |r| {
            r.get(0)
        })
        .unwrap();
    // A record's rules: two fields at least, from the adjudicated fields, no values, its fields
    // named; and it is append-only like every event.
    for (sql, says) in [
        (
            "INSERT INTO adjudication_events (candidate_id, field, source, adjudicator_id, at, field_set)
          SELECT candidate_id, 'fields', source, adjudicator_id, at, 4 FROM adjudication_events WHERE id = ?1",
            "CHECK",
        ),
        (
            "INSERT INTO adjudication_events (candidate_id, field, source, adjudicator_id, at, field_set)
          SELECT candidate_id, 'fields', source, adjudicator_id, at, 256 + 3 FROM adjudication_events WHERE id = ?1",
            "CHECK",
        ),
        (
            "INSERT INTO adjudication_events (candidate_id, field, new_value, source, adjudicator_id, at, field_set)
          SELECT candidate_id, 'fields', 'x', source, adjudicator_id, at, 3 FROM adjudication_events WHERE id = ?1",
            "CHECK",
        ),
        (
            "INSERT INTO adjudication_events (candidate_id, field, source, adjudicator_id, at)
          SELECT candidate_id, 'fields', source, adjudicator_id, at FROM adjudication_events WHERE id = ?1",
            "names the fields",
        ),
        ("UPDATE adjudication_events SET field_set = 3 WHERE id = ?1", "append-only"),
        ("DELETE FROM adjudication_events WHERE id = ?1", "append-only"),
    ] {
        let err = conn.execute(sql, [rec]).unwrap_err();
        assert!(err.to_string().contains(says), "{sql}: {err}");
    }
    // A final field taken out leaves the record's value nowhere to be read: refused, not empty.
    conn.execute("DELETE FROM adjudication_fields WHERE candidate_id = ?1 AND field = 'repair'", [&id]).unwrap();
    let err = adjudicate::row_view(&f.project, &id, false).unwrap_err();
    assert_eq!(err.code(), "corrupt_project", "{err}");
    assert!(err.to_string().contains(&id) && err.to_string().contains("repair"), "{err}");
}

/// Every row's adjudication history (as (field, old, new, source, adjudicator, time) lines,
/// without ids, which the upgrade gives a record's events) and whether its ids never go back.
fn histories(path: &Path) -> BTreeMap<String, String> {
    let project = Project::open(path).unwrap();
    let ids: Vec<String> = project
        .conn()
        .prepare("SELECT DISTINCT candidate_id FROM adjudication_events ORDER BY 1")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    ids.into_iter()
        .map(|id| {
            let history = adjudicate::row_view(&project, &id, false).unwrap().history;
            assert!(history.windows(2).all(|w| w[0].id <= w[1].id), "{id}: in order");
            let lines: Vec<String> = history
                .iter()
                .map(|h| {
                    format!("{}|{:?}|{:?}|{}|{}|{}", h.field, h.old_value, h.new_value, h.source, h.adjudicator, h.at)
                })
                .collect();
            (id, lines.join("\n"))
        })
        .collect()
}

#[test]
fn a_schema_20_project_reads_the_same_after_the_upgrade_and_is_smaller() {
    let dir = tempfile::tempdir().unwrap();
    let p = worked_project(dir.path());
    {
        // Beside the bulk confirmation: a row adjudicated, changed, reopened and adjudicated again.
        let mut project = Project::open(&p).unwrap();
        let open = adjudicate::queue(&project, &Default::default())
            .unwrap()
            .items
            .into_iter()
            .find(|i| !i.adjudicated && i.category == adjudicate::Category::FieldDisagreement)
            .unwrap();
        let res = Resolution {
            choices: open.differing.iter().map(|f| (*f, Choice::B)).collect(),
            rationale: None,
            checklist: YES,
        };
        adjudicate::resolve(&mut project, &open.id, "Eve", &res).unwrap();
        let mut choices: Vec<(Field, Choice)> = open.differing.iter().map(|f| (*f, Choice::B)).collect();
        choices.push((Field::Repair, Choice::Value(Some("Say it as the passage does.".into()))));
        let changed = Resolution { choices, rationale: Some("a closer repair".into()), checklist: YES };
        adjudicate::resolve(&mut project, &open.id, "Eve", &changed).unwrap();
        adjudicate::reopen(&mut project, &open.id, "Eve", "again").unwrap();
        let res = Resolution { choices: open.differing.iter().map(|f| (*f, Choice::A)).collect(), ..res };
        adjudicate::resolve(&mut project, &open.id, "Eve", &res).unwrap();
    }
    let before = histories(&p);
    let status_before = fb(&p, &["status", "--json"]);
    let export = ExportBefore::take(&p, dir.path());

    crate::common::rewind(&p, 20);
    // An event an earlier version wrote whose value is not the one that follows it (here: a bulk
    // confirmation's axis edited in the file) cannot be part of a record: it is kept as written,
    // and the events on either side of it become records of their own.
    let odd: String = {
        let conn = Connection::open(&p).unwrap();
        let row: String = conn
            .query_row(
                "SELECT min(candidate_id) FROM adjudication_events e WHERE source = 'both' AND field = 'axis'
                 AND (SELECT count(*) FROM adjudication_events o WHERE o.candidate_id = e.candidate_id AND o.source = 'both') = 7",
                [],
                |r| r.get(0),
            )
            .unwrap();
        conn.execute_batch(&format!(
            "DROP TRIGGER adjudication_events_no_update;
             UPDATE adjudication_events SET new_value = 'an axis of an earlier era' WHERE candidate_id = '{row}' AND field = 'axis';
             CREATE TRIGGER adjudication_events_no_update BEFORE UPDATE ON adjudication_events
             BEGIN SELECT RAISE(ABORT, 'adjudication events are append-only'); END;"
        ))
        .unwrap();
        row
    };
    // Every history as schema 20 stored it, event by event, read with SQL alone.
    let raw: BTreeMap<String, String> = {
        let conn = Connection::open(&p).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT e.candidate_id, e.field, e.old_value, e.new_value, e.source, a.name, e.at FROM adjudication_events e
                 JOIN annotators a ON a.id = e.adjudicator_id ORDER BY e.candidate_id, e.id",
            )
            .unwrap();
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let rows = stmt
            .query_map([], |r| {
                let (old, new): (Option<String>, Option<String>) = (r.get(2)?, r.get(3)?);
                Ok((
                    r.get::<_, String>(0)?,
                    format!(
                        "{}|{old:?}|{new:?}|{}|{}|{}",
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                        r.get::<_, String>(6)?
                    ),
                ))
            })
            .unwrap();
        for row in rows {
            let (id, line) = row.unwrap();
            out.entry(id).or_default().push(line);
        }
        out.into_iter().map(|(id, lines)| (id, lines.join("\n"))).collect()
    };
    for (id, history) in &raw {
        if *id != odd {
            assert_eq!(Some(history), before.get(id), "{id}: the rewind gives back the events schema 20 wrote");
        }
    }
    let events_20: i64 =
        Connection::open(&p).unwrap().query_row("SELECT count(*) FROM adjudication_events", [], |r| r.get(0)).unwrap();
    let (size_20, size_21) = upgrade_by_opening(&p, 20);
    assert!(size_21 < size_20, "the upgrade leaves the file smaller: {size_20} -> {size_21} bytes");
    let (events_21, records, stood_for): (i64, i64, i64) = Connection::open(&p)
        .unwrap()
        .query_row(
            "SELECT count(*), count(field_set), coalesce(sum(CASE WHEN field_set IS NULL THEN 1 END), 0) FROM adjudication_events",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert!(records > 10 && events_21 * 2 < events_20, "{events_20} events became {events_21} ({records} records)");
    let in_records: i64 = Connection::open(&p)
        .unwrap()
        .prepare("SELECT field_set FROM adjudication_events WHERE field_set IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get::<_, i64>(0))
        .unwrap()
        .map(|b| i64::from(b.unwrap().count_ones()))
        .sum();
    assert_eq!(stood_for + in_records, events_20, "every event of 20 is in 21, alone or in a record");

    let after = histories(&p);
    assert_eq!(after.len(), raw.len());
    for (id, history) in &raw {
        assert_eq!(after.get(id), Some(history), "{id}: the history reads as schema 20 stored it");
    }
    let odd_events: Vec<(String, Option<i64>)> = Connection::open(&p)
        .unwrap()
        .prepare("SELECT field, field_set FROM adjudication_events WHERE candidate_id = ?1 ORDER BY id")
        .unwrap()
        .query_map([&odd], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        &odd_events[..3],
        [("fields".to_string(), Some(0b1111)), ("axis".to_string(), None), ("fields".to_string(), Some(0b110_0000))],
        "decision to raised claim, the axis as written, severity and repair: {}",
        raw[&odd]
    );
    assert_eq!(fb(&p, &["status", "--json"]), status_before);
    export.assert_same(&p, dir.path(), written_at);
}
