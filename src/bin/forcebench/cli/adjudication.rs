//! CLI for adjudication, quality control and the locality audit.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json, shorten};
use forcebench::adjudicate::{self, QueueFilter};
use forcebench::error::{Error, Result};
use forcebench::{locality, qc};

#[derive(Debug, Subcommand)]
pub enum AdjudicateCommand {
    /// Adjudicate rows from a JSONL file (all or nothing; see schema/adjudication.schema.json)
    Import {
        file: PathBuf,
        #[arg(long)]
        adjudicator: String,
        #[arg(long)]
        json: bool,
    },
    /// The adjudication queue: decision disagreements, needs discussion, field disagreements, full agreements
    Queue {
        /// Only rows with this suggested axis (`none` for rows without one)
        #[arg(long)]
        axis: Option<String>,
        /// Only rows from this source dataset
        #[arg(long)]
        source: Option<String>,
        /// Only rows of this annotator pair, as NAME+NAME
        #[arg(long)]
        pair: Option<String>,
        /// Leave out rows already adjudicated
        #[arg(long)]
        open: bool,
        #[arg(long)]
        json: bool,
    },
    /// Confirm every full agreement not yet adjudicated, in bulk (logged as bulk-confirmed).
    /// Without --affirm the checklists stay unanswered and the rows are held back from splits
    ConfirmAgreements {
        #[arg(long)]
        adjudicator: String,
        /// Also affirm, in the adjudicator's name, every promotion check of the accepted rows
        /// (and of rows bulk-confirmed earlier without --affirm), so they may enter a split
        #[arg(long)]
        affirm: bool,
    },
    /// Show a row side by side: A, B, the suggestion, the final label, its history and QC
    Show {
        id: String,
        /// Hide the annotators' names
        #[arg(long)]
        hide_names: bool,
        #[arg(long)]
        json: bool,
    },
    /// Reopen an adjudicated row so its annotators may change their labels (recorded with who,
    /// when and why; the row is adjudicated again afterwards)
    Reopen {
        id: String,
        #[arg(long)]
        adjudicator: String,
        /// Why the row is reopened
        #[arg(long)]
        reason: String,
        #[arg(long)]
        json: bool,
    },
    /// Write the final labels (with each field's source) as JSONL
    Export {
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Replace FILE if it exists (a ForceBench project is never replaced)
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum QcCommand {
    /// Run quality control on every adjudicated row and list the failures per row
    Run {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum LocalityCommand {
    /// Mark an accepted row nonlocal (it leaves the benchmark; the reason is kept and exported)
    Mark {
        id: String,
        #[arg(long)]
        reason: String,
        /// Who marks it [default: the lead or adjudicator on the roster, else "cli"]
        #[arg(long)]
        by: Option<String>,
    },
    /// Take back a nonlocal mark
    Unmark { id: String },
    /// Keep a row with locality warnings after reviewing it (recorded with who and when)
    Keep {
        id: String,
        /// Who reviewed it [default: the lead or adjudicator on the roster, else "cli"]
        #[arg(long)]
        by: Option<String>,
        /// Why it stays (optional)
        #[arg(long)]
        note: Option<String>,
    },
    /// Accepted rows for the audit (rows with locality warnings first) and the marks made
    List {
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn adjudicate_cmd(project: Option<&Path>, cmd: AdjudicateCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        AdjudicateCommand::Import { file, adjudicator, json } => {
            let report = adjudicate::import_jsonl(&mut p, &file, &adjudicator)?;
            if json {
                return print_json(&report);
            }
            println!("adjudicated {} rows from {} as {}", report.rows, report.file, report.adjudicator);
            Ok(())
        }
        AdjudicateCommand::Queue { axis, source, pair, open, json } => {
            let queue = adjudicate::queue(&p, &QueueFilter { axis, source, pair, open_only: open })?;
            if json {
                return print_json(&queue);
            }
            for (category, count) in &queue.counts {
                println!("{:<22} {:>5} rows, {:>5} open", category.as_str(), count.total, count.open);
            }
            let mut last = None;
            for item in &queue.items {
                if last != Some(item.category) {
                    println!("\n{}", item.category.as_str());
                    last = Some(item.category);
                }
                let differing: Vec<&str> = item.differing.iter().map(|f| f.as_str()).collect();
                println!(
                    "  {} {:<12} {} vs {}  {}{}",
                    if item.adjudicated { "✓" } else { " " },
                    item.id,
                    item.decision_a.as_str(),
                    item.decision_b.as_str(),
                    if differing.is_empty() { String::new() } else { format!("differ: {}", differing.join(", ")) },
                    item.final_decision.map(|d| format!("  → {d}")).unwrap_or_default(),
                );
            }
            if queue.items.is_empty() {
                println!("\nno rows match");
            }
            Ok(())
        }
        AdjudicateCommand::ConfirmAgreements { adjudicator, affirm: true } => {
            let r = adjudicate::confirm_and_affirm(&mut p, &adjudicator)?;
            println!(
                "confirmed {} full agreements and affirmed the promotion checks ({}) of {} accepted rows, in bulk, as {}",
                r.confirmed,
                r.checks.join(", "),
                r.affirmed,
                r.adjudicator
            );
            if r.frozen > 0 {
                println!("{} bulk-confirmed row(s) are frozen by a locked split and were left unaffirmed", r.frozen);
            }
            Ok(())
        }
        AdjudicateCommand::ConfirmAgreements { adjudicator, affirm: false } => {
            let n = adjudicate::confirm_agreements(&mut p, &adjudicator)?;
            println!(
                "confirmed {n} full agreements as {adjudicator} (logged as bulk-confirmed; checklists unanswered, so accepted rows are held back from splits until affirmed: --affirm)"
            );
            Ok(())
        }
        AdjudicateCommand::Show { id, hide_names, json } => {
            let view = adjudicate::row_view(&p, &id, hide_names)?;
            if json {
                return print_json(&view);
            }
            println!("{}  [{}]", view.candidate.id, view.category.as_str());
            let (na, nb) = (view.annotator_a.as_deref().unwrap_or("A"), view.annotator_b.as_deref().unwrap_or("B"));
            for f in &view.fields {
                // Spans are stored as {text,start,end}; people read the text.
                let show = |v: &Option<String>| {
                    let text = v.as_deref().map(|v| match f.field {
                        forcebench::annotate::Field::EvidenceSpan => {
                            format!("\"{}\"", forcebench::annotate::Span::text_of(v))
                        }
                        _ => v.to_string(),
                    });
                    shorten(text.as_deref().unwrap_or("—"), 40)
                };
                println!(
                    "{} {:<17} {na}: {:<42} {nb}: {:<42}{}",
                    if f.differs { "≠" } else { " " },
                    f.field.as_str(),
                    show(&f.a),
                    show(&f.b),
                    f.final_value
                        .as_ref()
                        .map(|x| format!(" final ({}): {}", x.source.as_str(), show(&x.value)))
                        .unwrap_or_default()
                );
            }
            if let Some(j) = &view.adjudication {
                println!(
                    "decided by {} at {}{}",
                    j.adjudicator,
                    j.decided_at,
                    if j.bulk_confirmed { " (bulk-confirmed)" } else { "" }
                );
                if let Some(r) = &j.rationale {
                    println!("rationale: {r}");
                }
            }
            for r in view.qc.iter().filter(|r| !r.passed) {
                println!("qc {:?} {}: {}", r.severity, r.check, r.detail.as_deref().unwrap_or(""));
            }
            Ok(())
        }
        AdjudicateCommand::Reopen { id, adjudicator, reason, json } => {
            let r = adjudicate::reopen(&mut p, &id, &adjudicator, &reason)?;
            if json {
                return print_json(&r);
            }
            println!(
                "reopened {} (was {}) as {} at {}: its annotators may change their labels; adjudicate it again afterwards",
                r.id, r.decision, r.adjudicator, r.at
            );
            Ok(())
        }
        AdjudicateCommand::Export { out, force } => {
            forcebench::output::check_target(&out, force)?;
            let rows = adjudicate::export_rows(&p)?;
            let mut text = String::new();
            for row in &rows {
                text.push_str(&serde_json::to_string(row).map_err(|e| Error::Internal(e.to_string()))?);
                text.push('\n');
            }
            forcebench::output::write_file(&out, text.as_bytes(), force)?;
            println!("wrote {} final labels to {}", rows.len(), out.display());
            Ok(())
        }
    }
}

pub(super) fn qc_cmd(project: Option<&Path>, cmd: QcCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        QcCommand::Run { json } => {
            let report = qc::run(&mut p)?;
            // The checks across rows (duplicates, provenance) belong to the run as much as the
            // per-row ones: the JSON carries every finding the text shows.
            let findings = forcebench::provenance::findings(p.conn())?;
            if json {
                #[derive(serde::Serialize)]
                struct Run<'a> {
                    #[serde(flatten)]
                    report: &'a qc::QcReport,
                    findings: &'a [forcebench::provenance::Finding],
                }
                return print_json(&Run { report: &report, findings: &findings });
            }
            println!(
                "checked {} accepted rows: {} pass ({} with warnings), {} held back by a failed check",
                report.rows_checked, report.passed, report.warned, report.blocked
            );
            for row in &report.rows {
                println!("{} {}", if row.blocked { "FAIL" } else { "warn" }, row.id);
                for r in &row.failed {
                    println!(
                        "  {:<7} {:<32} {}",
                        format!("{:?}", r.severity).to_lowercase(),
                        r.check,
                        r.detail.as_deref().unwrap_or("")
                    );
                }
            }
            // Checks across rows (an error refuses its rows from a split draft).
            for f in &findings {
                println!(
                    "{} {:<30} {}: {}",
                    if f.severity == qc::Severity::Error { "FAIL" } else { "warn" },
                    f.check,
                    f.ids.join(", "),
                    f.detail
                );
            }
            Ok(())
        }
    }
}

pub(super) fn locality_cmd(project: Option<&Path>, cmd: LocalityCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        LocalityCommand::Mark { id, reason, by } => {
            let by = reviewer(&p, by)?;
            let mark = locality::mark(&mut p, &id, &reason, &by)?;
            println!("marked {} nonlocal ({}): {}", mark.id, mark.marked_by, mark.reason);
            Ok(())
        }
        LocalityCommand::Keep { id, by, note } => {
            let by = reviewer(&p, by)?;
            let keep = locality::keep(&mut p, &id, &by, note.as_deref())?;
            println!("kept {} after review ({} at {})", keep.id, keep.kept_by, keep.at);
            Ok(())
        }
        LocalityCommand::Unmark { id } => {
            let mark = locality::unmark(&mut p, &id)?;
            println!("removed the nonlocal mark on {} (was: {})", mark.id, mark.reason);
            Ok(())
        }
        LocalityCommand::List { json } => {
            let rows = locality::audit_rows(&p)?;
            if json {
                return print_json(&rows);
            }
            for row in &rows {
                let state = match &row.mark {
                    Some(m) => format!("REMOVED ({})", m.reason),
                    None if row.warnings.is_empty() => "ok".to_string(),
                    None => match &row.keep {
                        Some(k) => format!("{} warning(s), kept by {} at {}", row.warnings.len(), k.kept_by, k.at),
                        None => format!("{} warning(s), not reviewed", row.warnings.len()),
                    },
                };
                println!("{:<12} {:<9} {state}", row.id, row.axis.as_deref().unwrap_or("—"));
                for w in &row.warnings {
                    println!("    {}: {}", w.check, w.detail.as_deref().unwrap_or(""));
                }
            }
            Ok(())
        }
    }
}

/// Who a locality review is recorded as: the name given, else the roster's first lead or
/// adjudicator, else "cli".
fn reviewer(p: &forcebench::Project, by: Option<String>) -> Result<String> {
    Ok(match by {
        Some(b) => b,
        None => forcebench::roster::list(p)?
            .into_iter()
            .find(|a| a.role != forcebench::roster::Role::Annotator)
            .map_or_else(|| "cli".to_string(), |a| a.name),
    })
}
