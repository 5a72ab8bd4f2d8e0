//! The project status: rows per workflow state and the funnel per axis.

use crate::adjudicate::fixture;
use forcebench::adjudicate;
use forcebench::annotate::Field;
use forcebench::status;

#[test]
fn funnel_counts_every_step_per_axis() {
    let mut f = fixture();
    adjudicate::confirm_agreements(&mut f.project, "eve").unwrap(); // rows 0 (accept) and 4 (reject)
    let s = status::status(&f.project).unwrap();
    let t = &s.funnel.total;
    assert_eq!((t.candidates, t.double_annotated, t.adjudicated), (106, 5, 2));
    // Row 0 was bulk-confirmed: its checklist is unanswered, which is a warning, so it is accepted.
    assert_eq!((t.accepted, t.rejected, t.qc_blocked, t.locality_removed), (1, 1, 0, 0));
    assert_eq!((t.retained, t.evaluation), (None, None), "no split yet");
    assert_eq!(s.funnel.rejected_by_boundary["ambiguous"], 1);
    assert_eq!(s.funnel.by_axis.values().map(|c| c.candidates).sum::<i64>(), 106);
    assert_eq!(s.funnel.by_axis.values().map(|c| c.accepted).sum::<i64>(), 1);
    let axis0 = adjudicate::get(&f.project, &f.ids[0]).unwrap().unwrap().value(Field::Axis).unwrap().to_string();
    assert_eq!(s.funnel.by_axis[&axis0].accepted, 1);
}
