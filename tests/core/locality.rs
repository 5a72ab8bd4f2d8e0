//! The locality audit: marks need a reason and an accepted row, and move the row out of the
//! funnel until taken back.

use crate::adjudicate::{fixture, YES};
use crate::common::dump;
use forcebench::adjudicate::{self, Resolution};
use forcebench::{locality, status};

#[test]
fn locality_marks_need_a_reason_and_an_accepted_row() {
    let mut f = fixture();
    let id = f.ids[0].clone();
    adjudicate::resolve(&mut f.project, &id, "eve", &Resolution { checklist: YES, ..Default::default() }).unwrap();
    let before = dump(&f.project);
    let err = locality::mark(&mut f.project, &id, "   ", "eve").unwrap_err().to_string();
    assert!(err.contains(&format!("marking row `{id}` nonlocal needs a reason")), "{err}");
    let err = locality::mark(&mut f.project, &f.ids[2].clone(), "adds a place", "eve").unwrap_err().to_string();
    assert!(err.contains("is double_annotated; the locality audit marks accepted rows only"), "{err}");
    assert_eq!(dump(&f.project), before);
    locality::mark(&mut f.project, &id, "the raised claim adds a place the passage never names", "eve").unwrap();
    let marks = locality::list(&f.project).unwrap();
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].reason, "the raised claim adds a place the passage never names");
    let s = status::status(&f.project).unwrap();
    assert_eq!((s.funnel.total.accepted, s.funnel.total.locality_removed), (0, 1));
    let exported = adjudicate::export_rows(&f.project).unwrap();
    assert_eq!(exported[0].state.as_str(), "locality_removed");
    locality::unmark(&mut f.project, &id).unwrap();
    assert_eq!(status::status(&f.project).unwrap().funnel.total.accepted, 1);
}
