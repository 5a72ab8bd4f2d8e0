//! CLI for the annotation steps: roster, assignment, packets, annotating and merging.

use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;

use super::{open, print_json};
use forcebench::annotate::{self, Field};
use forcebench::error::{Error, Result};
use forcebench::packets::{self, Blinding};
use forcebench::roster::{self, Role};
use forcebench::{assign, workspace, Project};

#[derive(Debug, Subcommand)]
pub enum AnnotatorsCommand {
    /// Add a person to the roster
    Add {
        name: String,
        #[arg(long, default_value = "annotator", value_parser = ["annotator", "adjudicator", "lead"])]
        role: String,
    },
    /// List the roster with each person's assigned rows
    List {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum PacketsCommand {
    /// Write one blinded packet per annotator into DIR
    Issue {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[arg(long, default_value = "standard", value_parser = ["standard", "strict"])]
        blinding: String,
        #[arg(long)]
        json: bool,
    },
    /// Merge returned packets (all or nothing; merging a file twice is a no-op)
    Merge {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Annotator side: make a workspace project file from an issued packet
    Open {
        file: PathBuf,
        #[arg(long, value_name = "PATH")]
        workspace: PathBuf,
    },
    /// Annotator side: write the returned packet from the workspace given with --project
    Return {
        /// Where to write it [default: <packet stem>.returned.json beside the issued packet, as the app does]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Replace FILE if it exists (a ForceBench project is never replaced)
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AnnotateCommand {
    /// Set annotations from a JSONL file for one annotator (all or nothing)
    Import {
        file: PathBuf,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// Set one field of one annotator's annotation (no VALUE clears it)
    Set {
        id: String,
        field: String,
        value: Option<String>,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// Confirm every suggested field still unconfirmed on a row (the app's `y`)
    Confirm {
        id: String,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// Undo the annotator's latest change on a row
    Undo {
        id: String,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// Show one annotator's current annotation of a row
    Show {
        id: String,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// Every change one annotator made to a row
    History {
        id: String,
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        json: bool,
    },
    /// The annotator's rows in the order they see them, with progress
    Queue {
        #[arg(long)]
        annotator: String,
        /// Only a window of the queue: skip this many rows (with --limit; JSON is then a page with its counts)
        #[arg(long, default_value_t = 0)]
        offset: u32,
        /// Only a window of the queue: at most this many rows (up to 5000)
        #[arg(long)]
        limit: Option<u32>,
        #[arg(long)]
        json: bool,
    },
    /// The annotator's next row not yet finished, after --after (going round to the start) or from the start
    Next {
        #[arg(long)]
        annotator: String,
        #[arg(long)]
        after: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Read changes as JSON lines on stdin, answer each on stdout once it is durably saved
    Session {
        #[arg(long)]
        annotator: String,
    },
}

pub fn annotators(project: Option<&std::path::Path>, cmd: AnnotatorsCommand) -> Result<()> {
    let p = open(project)?;
    match cmd {
        AnnotatorsCommand::Add { name, role } => {
            let role: Role = role.parse().map_err(Error::InvalidArgument)?;
            let a = roster::add(&p, &name, role)?;
            println!("added {} ({})", a.name, a.role.as_str());
        }
        AnnotatorsCommand::List { json } => {
            let list = roster::list(&p)?;
            if json {
                return print_json(&list);
            }
            for a in list {
                println!("{:<20} {:<12} {} rows", a.name, a.role.as_str(), a.assigned);
            }
        }
    }
    Ok(())
}

pub fn assign_rows(project: Option<&std::path::Path>, seed: u64, json: bool) -> Result<()> {
    let mut p = open(project)?;
    let report = assign::assign(&mut p, seed)?;
    if json {
        return print_json(&report);
    }
    println!(
        "assigned {} rows to two annotators each (seed {}); {} were already assigned",
        report.assigned, report.seed, report.already_assigned
    );
    for (name, n) in &report.per_annotator {
        println!("  {name:<20} {n}");
    }
    Ok(())
}

pub fn packets(project: Option<&std::path::Path>, cmd: PacketsCommand) -> Result<()> {
    match cmd {
        PacketsCommand::Issue { out, blinding, json } => {
            let mut p = open(project)?;
            let blinding: Blinding = blinding.parse().map_err(Error::InvalidArgument)?;
            let issued = packets::issue(&mut p, &out, blinding)?;
            if json {
                return print_json(&issued);
            }
            for i in issued {
                println!("{:<20} {:>5} rows  {}", i.annotator, i.rows, i.file);
                // The packet continues the annotator's own work: say so, so the lead is not
                // surprised by rows that open already labelled.
                if i.carried > 0 {
                    println!(
                        "{:<20} {:>5} of them carry {}'s own labels from this project (the packet continues that work)",
                        "", i.carried, i.annotator
                    );
                }
            }
        }
        PacketsCommand::Merge { files, json } => {
            let mut p = open(project)?;
            let reports = packets::merge(&mut p, &files)?;
            if json {
                return print_json(&reports);
            }
            for r in reports {
                if r.merged {
                    println!(
                        "{}: merged {} new change{} on {} of the packet's {} rows from {} ({} of its rows finished)",
                        r.file,
                        r.new_events,
                        if r.new_events == 1 { "" } else { "s" },
                        r.changed_rows,
                        r.rows,
                        r.annotator,
                        r.finished_rows
                    );
                } else if r.frozen_rows.is_empty() {
                    println!("{}: already merged; nothing changed", r.file);
                } else {
                    println!("{}: nothing merged from {}: every row it changed is frozen", r.file, r.annotator);
                }
                // Rows a locked split froze are left out of the merge, each with its reason.
                if !r.frozen_rows.is_empty() {
                    println!(
                        "{}: {} row{} left out (frozen by a locked split or an adjudication; the annotator's changes there were not merged):",
                        r.file,
                        r.frozen_rows.len(),
                        if r.frozen_rows.len() == 1 { "" } else { "s" }
                    );
                    for left in &r.frozen_rows {
                        println!(
                            "  {}: {} change{} left out: {}",
                            left.id,
                            left.events,
                            if left.events == 1 { "" } else { "s" },
                            left.reason
                        );
                    }
                }
                if let Some(newer) = &r.newer_guideline {
                    println!(
                        "{}: labelled under guideline version {}; version {newer} has been published since",
                        r.file, r.guideline_version
                    );
                }
            }
        }
        PacketsCommand::Open { file, workspace: path } => {
            let w = workspace::open_packet(&file, &path)?;
            println!("opened {} as the workspace {}", file.display(), w.info().path);
        }
        PacketsCommand::Return { out, force } => {
            let p = open(project)?;
            let out = match out {
                Some(out) => out,
                None => workspace::default_return_path_of(&p)?.ok_or_else(|| {
                    forcebench::Error::InvalidArgument(
                        "cannot tell where the issued packet is from the workspace's file name; pass --out FILE".into(),
                    )
                })?,
            };
            forcebench::output::check_target(&out, force)?;
            let packet = workspace::return_packet(&p, &out)?;
            println!("wrote the returned packet ({} rows) to {}", packet.rows.len(), out.display());
        }
    }
    Ok(())
}

pub fn annotate_cmd(project: Option<&std::path::Path>, cmd: AnnotateCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        AnnotateCommand::Import { file, annotator, json } => {
            let r = annotate::import_jsonl(&mut p, &file, &annotator)?;
            if json {
                return print_json(&r);
            }
            println!("{}: set {} fields on {} rows for {}", r.file, r.changed_fields, r.rows, r.annotator);
        }
        AnnotateCommand::Set { id, field, value, annotator, json } => {
            let field: Field = field.parse().map_err(Error::InvalidArgument)?;
            let a = annotate::set_field(&mut p, &id, &annotator, field, value.as_deref())?;
            show(&a, json)?;
        }
        AnnotateCommand::Confirm { id, annotator, json } => show(&annotate::confirm(&mut p, &id, &annotator)?, json)?,
        AnnotateCommand::Undo { id, annotator, json } => show(&annotate::undo(&mut p, &id, &annotator)?, json)?,
        AnnotateCommand::Show { id, annotator, json } => show(&annotate::get(&p, &id, &annotator)?, json)?,
        AnnotateCommand::History { id, annotator, json } => {
            let events = annotate::history(&p, &id, &annotator)?;
            if json {
                return print_json(&events);
            }
            // A value as people read it: quoted text, or `(empty)` (not `None`/`Some(..)`).
            let shown = |v: &Option<String>| v.as_ref().map_or("(empty)".to_string(), |t| format!("{t:?}"));
            for e in events {
                println!(
                    "{}  {:<16} {} -> {}  ({}{})",
                    e.at,
                    e.field,
                    shown(&e.old_value),
                    shown(&e.new_value),
                    e.origin,
                    e.undoes.map(|u| format!(", undoes {u}")).unwrap_or_default()
                );
            }
        }
        AnnotateCommand::Queue { annotator, offset, limit, json } => {
            let (q, done, total) = match limit {
                Some(limit) => {
                    let page = annotate::queue_page(
                        &p,
                        &annotate::QueueQuery { annotator: annotator.clone(), offset, limit },
                    )?;
                    if json {
                        return print_json(&page);
                    }
                    (page.rows, page.finished as usize, page.total as usize)
                }
                None => {
                    let q = annotate::queue(&p, &annotator)?;
                    if json {
                        return print_json(&q);
                    }
                    let done = q.iter().filter(|r| r.finished).count();
                    let total = q.len();
                    (q.into_iter().skip(offset as usize).collect(), done, total)
                }
            };
            println!("{annotator}: {done} of {total} rows finished");
            for r in q {
                println!(
                    "{:>4}  {:<14} {}",
                    r.position,
                    r.id,
                    if r.finished {
                        r.decision.map_or("", |d| d.as_str())
                    } else if r.started {
                        "in progress"
                    } else {
                        ""
                    }
                );
            }
        }
        AnnotateCommand::Next { annotator, after, json } => {
            let next = annotate::next_open(&p, &annotator, after.as_deref())?;
            if json {
                return print_json(&next);
            }
            match next {
                Some(r) => println!("{}  (position {})", r.id, r.position),
                None => println!("{annotator} has finished every row"),
            }
        }
        AnnotateCommand::Session { annotator } => session(&mut p, &annotator)?,
    }
    Ok(())
}

fn show(a: &annotate::Annotation, json: bool) -> Result<()> {
    if json {
        return print_json(a);
    }
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    println!("row        {} ({})", a.candidate_id, a.annotator);
    println!("decision   {}", a.decision.map_or("-", |d| d.as_str()));
    println!(
        "span       {}",
        a.evidence_span.as_ref().map_or("-".into(), |s| format!("{:?} [{}..{}]", s.text, s.start, s.end))
    );
    println!("calibrated {}", opt(&a.calibrated_claim));
    println!("raised     {}", opt(&a.raised_claim));
    println!(
        "axis       {}   severity {}",
        a.axis.map_or("-", |x| x.as_str()),
        a.severity.map_or("-".into(), |s| s.to_string())
    );
    println!("boundary   {}", a.boundary_type.map_or("-", |b| b.as_str()));
    println!("repair     {}", opt(&a.repair));
    println!("notes      {}", opt(&a.notes));
    if !a.suggested.is_empty() {
        let names: Vec<&str> = a.suggested.iter().map(|f| f.label()).collect();
        println!(
            "suggested  {} (not yet confirmed; `forcebench annotate confirm` confirms them)",
            annotate::join_and(&names)
        );
    }
    println!("status     {}", if a.finished { "finished".to_string() } else { a.problems.join("; ") });
    Ok(())
}

/// One request of `annotate session`: `{"op":"set","id":…,"field":…,"value":…}`,
/// `{"op":"confirm","id":…}`, `{"op":"undo","id":…}` or `{"op":"get","id":…}`. `value` is text, `null` to clear, a number
/// for a numeric field (severity) or a span object for the evidence span.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionRequest {
    op: String,
    id: String,
    #[serde(default)]
    field: Option<String>,
    #[serde(default)]
    value: Option<serde_json::Value>,
}

/// Answers requests one line at a time until stdin ends. A line that cannot be read as a request
/// (too long, not UTF-8, not JSON, an unknown op or field) gets an error answer and the session
/// goes on; only a failure of stdin or stdout itself ends it.
fn session(p: &mut Project, annotator: &str) -> Result<()> {
    use forcebench::input::{read_line_bounded, BoundedLine, MAX_LINE_BYTES};
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let refuse = |message: String| serde_json::json!({"ok": false, "code": "invalid_argument", "message": message});
    loop {
        let answer = match read_line_bounded(&mut input).map_err(|e| Error::io("<stdin>", e))? {
            BoundedLine::End => break,
            BoundedLine::TooLong => {
                refuse(format!("this request is longer than {} MiB, the limit for one line", MAX_LINE_BYTES >> 20))
            }
            BoundedLine::Line(bytes) => match String::from_utf8(bytes) {
                Err(e) => {
                    refuse(format!("byte {} of this request is not valid UTF-8", e.utf8_error().valid_up_to() + 1))
                }
                Ok(line) if line.trim().is_empty() => continue,
                Ok(line) => match serde_json::from_str::<SessionRequest>(&line) {
                    Err(e) => refuse(format!(
                        "not a request ({e}); send {{\"op\":\"set\"|\"confirm\"|\"undo\"|\"get\",\"id\":…}}"
                    )),
                    Ok(req) => match answer_request(p, annotator, req) {
                        Ok(a) => serde_json::json!({"ok": true, "annotation": a}),
                        Err(e) => serde_json::json!({"ok": false, "code": e.code(), "message": e.to_string()}),
                    },
                },
            },
        };
        // The answer is written only after the change's transaction has committed.
        writeln!(out, "{answer}").and_then(|_| out.flush()).map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(())
}

fn answer_request(p: &mut Project, annotator: &str, req: SessionRequest) -> Result<annotate::Annotation> {
    match req.op.as_str() {
        "set" => {
            let field: Field = req
                .field
                .as_deref()
                .ok_or_else(|| Error::InvalidArgument("`set` needs a field".into()))?
                .parse()
                .map_err(Error::InvalidArgument)?;
            // Text for a text field, a number (never a string of digits) for severity.
            let value = match req.value {
                Some(other) => forcebench::input::field_text(field.value_kind(), other)
                    .map_err(|m| Error::InvalidArgument(format!("field `{}`: {m}", field.as_str())))?,
                None => None,
            };
            annotate::set_field(p, &req.id, annotator, field, value.as_deref())
        }
        "undo" => annotate::undo(p, &req.id, annotator),
        "confirm" => annotate::confirm(p, &req.id, annotator),
        "get" => annotate::get(p, &req.id, annotator),
        other => Err(Error::InvalidArgument(format!("unknown op `{other}` (set, confirm, undo, get)"))),
    }
}
