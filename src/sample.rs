//! The sample project and synthetic candidate generation.
//!
//! The hand-written sample (`sample-data/candidates.csv`) is embedded so the app can fill a new
//! project with it offline. [`generate`] makes large synthetic pools for benchmarks and tests:
//! deterministic for a seed on every machine (SplitMix64, no platform-dependent randomness), and
//! marked synthetic in `source_dataset` and `context`.

use std::io::Write;
use std::path::Path;

use crate::candidate::{Candidate, FIELDS};
use crate::error::{Error, Result};
use crate::import::{self, ImportReport, InputFormat};
use crate::project::Project;
use crate::vocab::Axis;

/// The sample candidates, as shipped in `sample-data/candidates.csv`.
pub const SAMPLE_CSV: &[u8] = include_bytes!("../sample-data/candidates.csv");

/// Imports the embedded sample candidates into `project` (a no-op if they are already there).
pub fn load_sample(project: &mut Project) -> Result<ImportReport> {
    import::import_bytes(project, "sample-data/candidates.csv", InputFormat::Csv, SAMPLE_CSV, &mut |_, _| {})
}

/// SplitMix64: a tiny, well-known generator whose output is fixed by its seed on any platform.
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const SUBJECTS: &[&str] = &[
    "the drug",
    "the tutoring program",
    "the new zoning rule",
    "the vaccine",
    "the firmware update",
    "the diet",
    "the tax credit",
    "the irrigation scheme",
    "the reading app",
    "the bridge retrofit",
];
const OUTCOMES: &[&str] = &[
    "lower readmission rates",
    "higher test scores",
    "fewer outages",
    "reduced symptoms",
    "faster recovery",
    "more small-business openings",
    "lower crop losses",
    "fewer falls",
];
const POPULATIONS: &[&str] = &[
    "adults over 65",
    "schools in rural districts",
    "patients in one hospital network",
    "households in the pilot city",
    "devices running version 4.2",
    "farms in the northern region",
];
const SOURCES: &[&str] = &["synthetic-expertqa", "synthetic-attributedqa", "synthetic-garage", "synthetic-lfqa"];

/// Makes `rows` synthetic candidates. About one row in four shares its group with the row before.
pub fn generate(rows: usize, seed: u64) -> Vec<Candidate> {
    let mut rng = SplitMix64(seed);
    let mut out = Vec::with_capacity(rows);
    let mut group = 0usize;
    for i in 0..rows {
        if i == 0 || rng.below(4) != 0 {
            group += 1;
        }
        let subject = rng.pick(SUBJECTS);
        let outcome = rng.pick(OUTCOMES);
        let population = rng.pick(POPULATIONS);
        let low = 5 + rng.below(30);
        let high = low + 3 + rng.below(15);
        let year = 2005 + rng.below(18);
        let axis = Axis::ALL[rng.below(5) as usize];
        let (span, calibrated, raised) = match axis {
            Axis::Relation => (
                format!("{subject} was associated with {outcome}"),
                format!("In the study, {subject} was associated with {outcome}."),
                format!("In the study, {subject} caused {outcome}."),
            ),
            Axis::Modality => (
                format!("{subject} may lead to {outcome}"),
                format!("Early results suggest {subject} may lead to {outcome}."),
                format!("{subject} leads to {outcome}."),
            ),
            Axis::Scope => (
                format!("among {population}"),
                format!("Among {population}, {subject} was followed by {outcome}."),
                format!("{subject} was followed by {outcome} everywhere it was tried."),
            ),
            Axis::Temporal => (
                format!("As of {year}"),
                format!("As of {year}, {subject} was followed by {outcome}."),
                format!("{subject} is currently followed by {outcome}."),
            ),
            Axis::Numeric => (
                format!("between {low} and {high} percent"),
                format!("{subject} changed the outcome by between {low} and {high} percent."),
                format!("{subject} changed the outcome by exactly {high} percent."),
            ),
        };
        let passage = format!(
            "This is a synthetic passage generated for testing (row {i}). As of {year}, a report on \
             {population} found that {subject} was associated with {outcome}; the authors wrote that \
             {subject} may lead to {outcome}, with effects between {low} and {high} percent among \
             {population}."
        );
        let span = passage.contains(&span).then_some(span);
        out.push(Candidate {
            id: format!("syn-{seed}-{i:07}"),
            group_id: format!("syn-{seed}-g{group:07}"),
            source_dataset: rng.pick(SOURCES).to_string(),
            source_id: format!("syn-src-{}", rng.below(1_000_000)),
            context: format!("Synthetic question {i}: what did the report find about {subject}?"),
            passage,
            evidence_span: span,
            calibrated_claim: calibrated,
            raised_claim: raised,
            repair: Some("Restore the qualifier the passage states.".into()),
            rationale: Some("Synthetic row: the raised claim drops a limit the passage states.".into()),
            axis: Some(axis),
            severity: Some(1 + rng.below(3) as u8),
            construction_family: None,
        });
    }
    out
}

/// Writes `rows` synthetic candidates (seeded) to `out` as CSV or JSONL (`sample generate`),
/// replacing a file there only with `force`; a count of rows out of bounds is refused before
/// anything is made ([`crate::limits::generated_rows`]). Returns the number of rows written.
pub fn generate_file(out: &Path, rows: usize, seed: u64, force: bool) -> Result<usize> {
    crate::limits::generated_rows(rows)?;
    let rows = generate(rows, seed);
    crate::output::write_through(out, force, |tmp| write_candidates(tmp, &rows))?;
    Ok(rows.len())
}

/// Writes candidates as CSV or JSONL, chosen by the extension of `path`.
pub fn write_candidates(path: &Path, rows: &[Candidate]) -> Result<()> {
    let format = InputFormat::from_path(path).map_err(Error::InvalidArgument)?;
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    let io = |e: std::io::Error| Error::io(path, e);
    match format {
        InputFormat::Csv => {
            let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(&mut out);
            // A write that failed (a full disk, a file size limit) keeps its kind, so it is said
            // in the io words; anything else the CSV writer refuses is said as it says it.
            let csv_err = |e: csv::Error| {
                if !e.is_io_error() {
                    return Error::io(path, std::io::Error::other(e));
                }
                match e.into_kind() {
                    csv::ErrorKind::Io(e) => Error::io(path, e),
                    _ => unreachable!("an io error"),
                }
            };
            w.write_record(FIELDS).map_err(csv_err)?;
            for c in rows {
                w.serialize(c).map_err(csv_err)?;
            }
            w.flush().map_err(io)?;
        }
        InputFormat::Jsonl => {
            for c in rows {
                serde_json::to_writer(&mut out, c).map_err(|e| io(e.into()))?;
                out.write_all(b"\n").map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)
}

/// The people of the sample project: four annotators, an adjudicator and a lead.
pub const SAMPLE_ROSTER: &[(&str, crate::roster::Role)] = &[
    ("Ana", crate::roster::Role::Annotator),
    ("Ben", crate::roster::Role::Annotator),
    ("Chidi", crate::roster::Role::Annotator),
    ("Dana", crate::roster::Role::Annotator),
    ("Eve", crate::roster::Role::Adjudicator),
    ("Lee", crate::roster::Role::Lead),
];

/// Fills a new project as the app's first run does: the sample candidates, the sample roster,
/// and every row assigned to two annotators (seed 1), ready to annotate.
pub fn load_sample_project(project: &mut Project) -> Result<()> {
    load_sample(project)?;
    for (name, role) in SAMPLE_ROSTER {
        if crate::roster::find(project, name)?.is_none() {
            crate::roster::add(project, name, *role)?;
        }
    }
    crate::assign::assign(project, 1)?;
    Ok(())
}

/// Rows the first-run project has simulated annotations on (the rest are left to annotate).
pub const DEMO_ANNOTATED_ROWS: usize = 80;

/// The app's first-run project: [`load_sample_project`] plus simulated annotations of the first
/// [`DEMO_ANNOTATED_ROWS`] rows, so agreement and adjudication have something to show while 26
/// rows remain to annotate.
pub fn load_demo_project(project: &mut Project) -> Result<()> {
    load_sample_project(project)?;
    let already: i64 = project.conn().query_row("SELECT count(*) FROM annotation_events", [], |r| r.get(0))?;
    if already == 0 {
        annotate_sample(project, DEMO_ANNOTATED_ROWS, 1)?;
    }
    // After the annotations: the promoted context joins the pool unassigned, and the sample
    // rows' assignment and simulated labels stay as they were.
    load_sample_contexts(project)?;
    Ok(())
}

/// The sample's cited contexts (`sample-data/contexts.csv`, in a cited-QA shape read through the
/// field-name table), written by the ForceBench Studio team like the candidates.
pub const SAMPLE_CONTEXTS_CSV: &[u8] = include_bytes!("../sample-data/contexts.csv");

/// Imports the sample's contexts and takes them to every stage before candidacy, so each step
/// has something to show: two left unscreened, two dropped (each with its reason), one kept and
/// not drafted, one drafted and ready, one drafted with a span that promotion would refuse, two
/// drafts excluded (each with its reason) and one promoted into the candidate pool. Does nothing
/// in a project that already has contexts (and returns false).
pub fn load_sample_contexts(project: &mut Project) -> Result<bool> {
    use crate::contexts::{self, draft, ExclusionReason as R, ScreenDecision as D};
    let any: bool = project.conn().query_row("SELECT EXISTS (SELECT 1 FROM contexts)", [], |r| r.get(0))?;
    if any {
        return Ok(false);
    }
    contexts::import_bytes(project, "sample-data/contexts.csv", InputFormat::Csv, SAMPLE_CONTEXTS_CSV, &mut |_, _| {})?;
    let by = "the lead";
    contexts::screen(
        project,
        "ctx-03",
        D::Drop,
        Some(R::NoVisibleBoundary),
        Some("names the founders; no wording to overstate"),
        by,
    )?;
    contexts::screen(project, "ctx-04", D::Drop, Some(R::PassageUnavailable), None, by)?;
    for id in ["ctx-05", "ctx-06", "ctx-07", "ctx-08", "ctx-09", "ctx-10"] {
        contexts::screen(project, id, D::Keep, None, None, by)?;
    }
    let drafts: &[(&str, [&str; 7])] = &[
        ("ctx-06", [
            "Schools chose whether to join the pilot",
            "Reading scores in the Brenn pilot schools rose more over one year than in comparison schools.",
            "The Brenn reading program raised reading scores.",
            "Reading scores in the schools that chose to join the Brenn pilot rose more than in comparison schools.",
            "The passage compares schools that chose to join, which shows an association, not that the program caused the rise.",
            "relation",
            "2",
        ]),
        ("ctx-07", [
            "Caldor will pass 50,000",
            "Planners expect Caldor to pass 50,000 residents before 2030 if current growth continues.",
            "Caldor will pass 50,000 residents before 2030.",
            "Planners expect Caldor to pass 50,000 residents before 2030 if growth continues.",
            "The passage gives a conditional projection, not a certainty.",
            "modality",
            "2",
        ]),
        ("ctx-08", [
            "manufactured under licence by Pell Industries",
            "The Halden pump is manufactured under licence by Pell Industries.",
            "The Halden pump was designed by Pell Industries.",
            "",
            "",
            "relation",
            "2",
        ]),
        ("ctx-09", [
            "include bicycle parking",
            "The Sorrel ordinance requires new buildings over four storeys to include bicycle parking.",
            "The Sorrel ordinance requires new buildings over four storeys to include bicycle and car parking.",
            "",
            "",
            "scope",
            "1",
        ]),
        ("ctx-10", [
            "has not reported results",
            "The Lumo vaccine is approved for adults aged 18 and over.",
            "The Lumo vaccine is approved for everyone aged 12 and over.",
            "The Lumo vaccine is approved for adults; a trial in children aged 12 to 17 has not reported.",
            "The approval covers adults only; the trial in children has not reported results.",
            "scope",
            "3",
        ]),
    ];
    for (id, values) in drafts {
        for (field, value) in draft::DRAFT_FIELDS.iter().zip(values) {
            if !value.is_empty() {
                draft::set(project, id, field, value, by)?;
            }
        }
    }
    draft::exclude(
        project,
        "ctx-08",
        R::ChangesEntityOrTarget,
        Some("the raised claim names the designer, not the maker"),
        by,
    )?;
    draft::exclude(project, "ctx-09", R::OrdinaryAddition, None, by)?;
    draft::promote(project, &["ctx-10".to_string()], false, by)?;
    Ok(true)
}

/// The sample's answer key (`sample-data/README.md`): rows written to be rejected, with the
/// boundary type that says why. Every other sample row is meant to be accepted as suggested.
pub const SAMPLE_ANSWER_KEY: &[(&str, crate::vocab::BoundaryType)] = {
    use crate::vocab::BoundaryType::*;
    &[
        ("fb-0006", RaisedClaimSupported),
        ("fb-0015", NonlocalRewrite),
        ("fb-0023", MultipleForceShifts),
        ("fb-0030", RaisedClaimSupported),
        ("fb-0033", NonlocalRewrite),
        ("fb-0039", MultipleForceShifts),
        ("fb-0042", NoDecisiveSpan),
        ("fb-0051", UnsupportedCalibratedClaim),
        ("fb-0059", Duplicate),
        ("fb-0066", UnrelatedAddition),
        ("fb-0075", SafeOrUnderclaimed),
        ("fb-0084", NoDecisiveSpan),
        ("fb-0089", NeedsOutsideKnowledge),
        ("fb-0095", UnsupportedCalibratedClaim),
        ("fb-0102", UnrelatedAddition),
    ]
};

/// FNV-1a: a fixed, platform-independent hash to seed each simulated annotator's choices.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.iter().chain([&0xffu8]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Simulates both assigned annotators on the first `rows` sample rows (import order), so a
/// demonstration project has agreement to read and disagreements to adjudicate. The simulated
/// annotators mostly follow the answer key (a flawed row is rejected with its boundary type 92%
/// of the time, a sound row accepted 97% of the time) and the suggestions, with seeded slips: another axis, a severity one step off, a
/// shorter span, `needs_discussion`. Deterministic for a seed on every machine. Recorded as
/// `import` events like any imported annotation; returns the number of annotations written.
pub fn annotate_sample(project: &mut Project, rows: usize, seed: u64) -> Result<u64> {
    use crate::annotate::{set_in, Field, Origin};
    use crate::vocab::Decision;
    // Simulated work made inside an annotator's workspace would be returned and merged as theirs.
    crate::settings::lead_only(project.conn(), "simulating annotations (a demonstration)")?;
    crate::limits::simulated_rows(rows)?;
    let targets: Vec<(String, Vec<String>)> = {
        let conn = project.conn();
        let mut stmt = conn.prepare(
            "SELECT c.id, group_concat(a.name, char(31)) FROM candidates c
             JOIN assignments s ON s.candidate_id = c.id JOIN annotators a ON a.id = s.annotator_id
             GROUP BY c.id ORDER BY c.seq LIMIT ?1",
        )?;
        let rows = stmt.query_map([i64::try_from(rows).unwrap_or(i64::MAX)], |r| {
            let names: String = r.get(1)?;
            Ok((r.get(0)?, names.split('\u{1f}').map(String::from).collect()))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let tx = project.conn_mut().transaction()?;
    let mut written = 0;
    for (id, names) in &targets {
        let c = crate::candidate::find_in(&tx, id)?.ok_or_else(|| Error::CandidateNotFound(id.clone()))?;
        let flaw = SAMPLE_ANSWER_KEY.iter().find(|(k, _)| k == id).map(|(_, b)| *b);
        for name in names {
            let mut rng = SplitMix64::new(fnv1a(&[&seed.to_le_bytes(), id.as_bytes(), name.as_bytes()]));
            let set =
                |field: Field, value: Option<&str>| set_in(&tx, &c, name, field, value, Origin::Import).map(|_| ());
            let roll = rng.below(100);
            let decision = match flaw {
                Some(_) if roll < 92 => Decision::RejectNotForceGap,
                Some(_) if roll < 96 => Decision::NeedsDiscussion,
                Some(_) => Decision::AcceptForceGap,
                None if roll < 97 => Decision::AcceptForceGap,
                None if roll < 99 => Decision::NeedsDiscussion,
                None => Decision::RejectNotForceGap,
            };
            match decision {
                Decision::RejectNotForceGap => {
                    let boundary = flaw.unwrap_or(crate::vocab::BoundaryType::Ambiguous);
                    set(Field::Decision, Some(decision.as_str()))?;
                    set(Field::BoundaryType, Some(boundary.as_str()))?;
                }
                Decision::NeedsDiscussion => {
                    set(Field::Decision, Some(decision.as_str()))?;
                    set(Field::Notes, Some("Unsure where the boundary lies; flagging for the adjudicator."))?;
                }
                Decision::AcceptForceGap => {
                    let suggested = c.axis.unwrap_or(Axis::Modality);
                    let axis = if rng.below(100) < 8 {
                        Axis::ALL[(Axis::ALL.iter().position(|a| *a == suggested).unwrap() + 1) % Axis::ALL.len()]
                    } else {
                        suggested
                    };
                    let severity = match (c.severity.unwrap_or(2), rng.below(100)) {
                        (s, r) if r < 8 && s < 3 => s + 1,
                        (s, r) if r < 16 && s > 1 => s - 1,
                        (s, _) => s,
                    };
                    set(Field::Axis, Some(axis.as_str()))?;
                    set(Field::Severity, Some(&severity.to_string()))?;
                    if let Some(span) = c.evidence_span.as_deref().filter(|_| rng.below(100) < 12) {
                        let words: Vec<&str> = span.split(' ').collect();
                        if words.len() >= 4 {
                            set(Field::EvidenceSpan, Some(&words[..words.len().div_ceil(2)].join(" ")))?;
                        }
                    }
                    if c.repair.as_deref().is_none_or(|r| r.trim().is_empty()) {
                        set(Field::Repair, Some(&c.calibrated_claim))?;
                    }
                    set(Field::Decision, Some(decision.as_str()))?;
                    // The simulated annotator looked at the suggestions it kept: it confirms them.
                    crate::annotate::confirm_in(&tx, &c, name)?;
                }
            }
            written += 1;
        }
    }
    tx.commit()?;
    Ok(written)
}
