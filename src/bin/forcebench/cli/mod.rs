//! The `forcebench` command-line interface (clap). Each subcommand parses its arguments, calls
//! the core, and prints either text for people or, with `--json`, the documented stable JSON.
//! Errors go to stderr with exit code 1 (2 for usage errors, from clap).
//!
//! To add a command: a variant in [`Command`], a `run_*` function here (or a submodule when it
//! grows), and a line in the CLI reference (docs/cli.md).

mod adjudication;
mod annotation;
mod contexts;
mod evaluate;
mod feedback;
mod guideline;
mod split;

use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use forcebench::error::{Error, Result};
use forcebench::project::{default_project_path, Project, PROJECT_ENV};
use forcebench::vocab::WorkflowState;
use forcebench::{candidate, import, sample, status};

/// `forcebench --version`: the version, the commit it was built from and the project schema it writes.
static LONG_VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(forcebench::software::describe);

#[derive(Debug, Parser)]
#[command(name = "forcebench", version = LONG_VERSION.as_str(), about = "Build contrastive citation-warrant benchmarks (ForceBench protocol)")]
pub struct Cli {
    /// Project file to use [default: `default.forcebench` in the user's data directory]
    #[arg(long, global = true, env = PROJECT_ENV, value_name = "PATH")]
    pub project: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new, empty project file
    Init {
        /// Project name [default: the file name]
        #[arg(long)]
        name: Option<String>,
    },
    /// Import candidate rows from a .csv or .jsonl file (all or nothing)
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Show the project and how many rows are in each workflow state
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Cited contexts before candidacy: import, list, show, screen (keep or drop with a reason), counts
    #[command(subcommand)]
    Contexts(contexts::ContextsCommand),
    /// Drafts of kept contexts: set fields by hand, list, show, promote into candidates, exclude
    #[command(subcommand)]
    Draft(contexts::DraftCommand),
    /// List or show candidate rows
    #[command(subcommand)]
    Candidates(CandidatesCommand),
    /// Sample and synthetic data
    #[command(subcommand)]
    Sample(SampleCommand),
    /// The roster: annotators, adjudicators and leads
    #[command(subcommand)]
    Annotators(annotation::AnnotatorsCommand),
    /// Assign every unassigned candidate to two distinct annotators (balanced, seeded)
    Assign {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Inter-annotator agreement on pre-adjudication labels (or on any item,annotator,label CSV)
    Agreement {
        /// `plan`: how many double-annotated rows a kappa interval needs
        #[command(subcommand)]
        action: Option<AgreementAction>,
        /// Compute from a long-format CSV with columns item,annotator,label instead of the project
        #[arg(long, value_name = "FILE")]
        from_csv: Option<PathBuf>,
        /// With --from-csv: the labels are ordered numbers (grades); adds the quadratic-weighted
        /// kappa and Krippendorff's ordinal alpha, each with its intervals
        #[arg(long)]
        ordinal: bool,
        /// Bootstrap replicates for the percentile interval (0 skips it)
        #[arg(long, default_value_t = forcebench::agreement::BOOTSTRAP_REPS)]
        bootstrap: u32,
        #[arg(long, default_value_t = forcebench::agreement::BOOTSTRAP_SEED)]
        seed: u64,
        #[arg(long)]
        json: bool,
        /// Write the project's report to FILE (replaced whole if it exists) instead of printing it
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The format of --out: csv (one value a line) or json (as --json prints)
        #[arg(long, value_name = "csv|json", default_value = "csv", requires = "out")]
        format: String,
    },
    /// Print the annotation guideline in force (or a version, or what changed); publish and list versions
    Guideline(guideline::GuidelineArgs),
    /// Show an annotator how their adjudicated rows were decided; write blinded feedback files
    Feedback(feedback::FeedbackArgs),
    /// Issue, open, return and merge annotation packets
    #[command(subcommand)]
    Packets(annotation::PacketsCommand),
    /// Annotate rows (import, set, undo, show, history, queue, session)
    #[command(subcommand)]
    Annotate(annotation::AnnotateCommand),
    /// Adjudicate double-annotated rows (import, queue, confirm-agreements, show, export)
    #[command(subcommand)]
    Adjudicate(adjudication::AdjudicateCommand),
    /// Quality control of final labels
    #[command(subcommand)]
    Qc(adjudication::QcCommand),
    /// The locality audit of accepted rows
    #[command(subcommand)]
    Locality(adjudication::LocalityCommand),
    /// Draft, show and lock the evaluation split
    #[command(subcommand)]
    Split(split::SplitCommand),
    /// Export the locked split to a folder (eval, benchmark, annotations, manifest, datasheet...)
    Export {
        dir: PathBuf,
        /// The locked split version to export (default: the latest locked one)
        #[arg(long, value_name = "N")]
        split_version: Option<i64>,
        #[arg(long)]
        json: bool,
    },
    /// Score an evaluator's outputs on the locked split (MVR, FS), or compare every stored one
    Evaluate(evaluate::EvaluateArgs),
    /// Deterministic baseline evaluators
    #[command(subcommand)]
    Baselines(evaluate::BaselinesCommand),
    /// Judge packets for an LLM judge: templates, export requests, import responses
    #[command(subcommand)]
    Judge(evaluate::JudgeCommand),
    /// Project settings the lead chooses
    #[command(subcommand)]
    Settings(SettingsCommand),
    /// Re-check an exported folder: hashes and internal consistency (non-zero exit on any mismatch)
    Verify {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// How annotators see the drafter's suggested span, axis, severity and repair: prefilled
    /// (to confirm or change), beside each field, or hidden. No argument prints the mode.
    Suggestions {
        mode: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum CandidatesCommand {
    /// List every candidate with its workflow state
    List {
        /// Only rows in this state
        #[arg(long)]
        state: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show one candidate in full
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SampleCommand {
    /// Write N synthetic candidate rows (for benchmarks and tests) to a .csv or .jsonl file
    Generate(GenerateArgs),
    /// Import the bundled hand-written sample candidates into the project
    Load,
    /// Import the bundled sample contexts and take them through every step before candidacy
    Contexts,
    /// Simulate both assigned annotators on the first N sample rows (for demonstrations)
    Annotate {
        #[arg(long, default_value_t = 80)]
        rows: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Simulate the final locality audit on the latest split draft: keep every selected sample
    /// row with an unreviewed locality warning (for demonstrations)
    Audit {
        /// Who the reviews are recorded as
        #[arg(long, default_value = "Eve")]
        by: String,
    },
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[arg(long)]
    rows: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Replace FILE if it exists (a ForceBench project is never replaced)
    #[arg(long)]
    force: bool,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are answers, not errors: clap prints them and exits 0.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            // A malformed command line carries a code like every other error, so a script can
            // branch on `usage` instead of clap's words; clap's own text (what was wrong and the
            // usage line) follows it, and the exit status stays clap's 2.
            let text = e.render().to_string();
            eprint!("error [usage]: {}", text.strip_prefix("error: ").unwrap_or(&text));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let e = match OPENED.lock().ok().and_then(|p| p.clone()) {
                Some(project) => e.in_project(&project),
                None => e,
            };
            // Every error carries its stable code (docs/cli.md#error-codes), so a script branches
            // on it without matching words. FORCEBENCH_ERROR_CODE=1, which once turned
            // the code on, is still accepted and changes nothing.
            eprintln!("error [{}]: {e}", e.code());
            ExitCode::FAILURE
        }
    }
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Init { name } => {
            let path = match cli.project {
                Some(p) => p,
                None => default_project_path()?,
            };
            let name = name.unwrap_or_else(|| {
                path.file_stem().and_then(|s| s.to_str()).unwrap_or("ForceBench project").to_string()
            });
            let project = Project::create(&path, &name)?;
            println!("created project `{}` ({}) at {}", project.info().name, project.info().id, project.info().path);
            Ok(())
        }
        Command::Import { file, json } => {
            let mut project = open(cli.project.as_deref())?;
            let report = with_progress(&file, |progress| import::import_file(&mut project, &file, progress))?;
            if json {
                print_json(&report)
            } else {
                println!("{}", report.summary());
                Ok(())
            }
        }
        Command::Status { json } => {
            let project = open(cli.project.as_deref())?;
            let report = status::status(&project)?;
            if json {
                return print_json(&report);
            }
            println!("project  {} ({})", report.project.name, report.project.path);
            println!("rows     {} in {} groups", report.candidates, report.groups);
            for (state, n) in &report.states {
                println!("  {:<18} {n}", state.as_str());
            }
            if let Some(c) = &report.contexts {
                contexts::print_counts(c);
            }
            let f = &report.funnel;
            println!("funnel");
            println!(
                "  {:<10} {:>10} {:>9} {:>11} {:>8} {:>10} {:>8} {:>8} {:>8} {:>5}",
                "axis",
                "candidates",
                "double",
                "adjudicated",
                "accepted",
                "qc-blocked",
                "rejected",
                "nonlocal",
                "retained",
                "eval"
            );
            let opt = |v: Option<i64>| v.map_or("—".to_string(), |n| n.to_string());
            for (axis, c) in f.by_axis.iter().map(|(a, c)| (a.as_str(), c)).chain([("all", &f.total)]) {
                println!(
                    "  {axis:<10} {:>10} {:>9} {:>11} {:>8} {:>10} {:>8} {:>8} {:>8} {:>5}",
                    c.candidates,
                    c.double_annotated,
                    c.adjudicated,
                    c.accepted,
                    c.qc_blocked,
                    c.rejected,
                    c.locality_removed,
                    opt(c.retained),
                    opt(c.evaluation)
                );
            }
            if f.total.unaffirmed > 0 {
                // Accepted rows a split draft holds back.
                println!(
                    "held back from splits: {} accepted row(s) with promotion checks not affirmed (adjudicate them, or `adjudicate confirm-agreements --affirm`)",
                    f.total.unaffirmed
                );
            }
            if f.total.rejected > 0 {
                println!("rejected by boundary type");
                for (b, n) in f.rejected_by_boundary.iter().filter(|(_, n)| **n > 0) {
                    println!("  {b:<30} {n}");
                }
            }
            if !report.by_source.is_empty() {
                println!("sources");
                for (source, n) in &report.by_source {
                    println!("  {source:<18} {n}");
                }
            }
            Ok(())
        }
        Command::Candidates(CandidatesCommand::List { state, json }) => {
            let project = open(cli.project.as_deref())?;
            let filter = state
                .map(|s| s.parse::<WorkflowState>().map_err(|e| Error::InvalidArgument(format!("--state: {e}"))))
                .transpose()?;
            let rows: Vec<_> =
                candidate::list(&project)?.into_iter().filter(|r| filter.is_none_or(|s| r.state == s)).collect();
            if json {
                return print_json(&rows);
            }
            let mut out = std::io::stdout().lock();
            for r in &rows {
                let axis = r.axis.map_or("-", |a| a.as_str());
                let severity = r.severity.map_or("-".to_string(), |s| s.to_string());
                let line = writeln!(
                    out,
                    "{:<14} {:<17} {:<9} {} {:<14} {}",
                    r.id,
                    r.state.as_str(),
                    axis,
                    severity,
                    r.source_dataset,
                    shorten(&r.raised_claim, 70)
                );
                if line.is_err() {
                    break; // stdout closed (e.g. piped into `head`)
                }
            }
            Ok(())
        }
        Command::Candidates(CandidatesCommand::Show { id, json }) => {
            let project = open(cli.project.as_deref())?;
            let row = candidate::get(&project, &id)?;
            if json {
                return print_json(&row);
            }
            let c = &row.candidate;
            let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            println!("id               {}", c.id);
            println!("state            {}", row.state);
            println!("group            {}", c.group_id);
            println!("source           {} {}", c.source_dataset, c.source_id);
            if let Some(family) = &c.construction_family {
                println!("family           {family}"); // construction family
            }
            println!(
                "axis / severity  {} / {}",
                c.axis.map_or("-", |a| a.as_str()),
                c.severity.map_or("-".into(), |s| s.to_string())
            );
            println!("context          {}", c.context);
            println!("passage          {}", c.passage);
            println!("span             {}", opt(&c.evidence_span));
            println!("calibrated       {}", c.calibrated_claim);
            println!("raised           {}", c.raised_claim);
            println!("repair           {}", opt(&c.repair));
            println!("rationale        {}", opt(&c.rationale));
            println!("content sha256   {}", row.content_sha256);
            println!("imported         {} from {}", row.imported_at, row.imported_from);
            Ok(())
        }
        Command::Sample(SampleCommand::Generate(args)) => {
            let rows = sample::generate_file(&args.out, args.rows, args.seed, args.force)?;
            println!("wrote {rows} synthetic rows (seed {}) to {}", args.seed, args.out.display());
            Ok(())
        }
        Command::Agreement {
            action: Some(AgreementAction::Plan { kappa, half_width, categories, prevalence, coefficient, json }),
            ..
        } => run_plan(cli.project.as_deref(), (coefficient, kappa, half_width), categories, &prevalence, json),
        Command::Agreement { action: None, from_csv, ordinal, bootstrap, seed, json, out, format } => {
            let boot = (bootstrap > 0).then_some((bootstrap, seed));
            if let Some(path) = out {
                return write_agreement(cli.project.as_deref(), from_csv.is_some(), boot, &path, &format);
            }
            if ordinal && from_csv.is_none() {
                return Err(Error::InvalidArgument(
                    "--ordinal reads the labels of --from-csv FILE as ordered; the project's own ordered figure (severity) is in the plain report".into(),
                ));
            }
            match from_csv {
                Some(file) => {
                    let r = if ordinal {
                        forcebench::agreement::labels_report_ordinal(&file, boot)?
                    } else {
                        forcebench::agreement::labels_report(&file, boot)?
                    };
                    if json {
                        return print_json(&r);
                    }
                    println!(
                        "{} annotators, {} items with two or more labels",
                        r.annotators.len(),
                        r.pair.kappa.n_items
                    );
                    print_pair(&r.pair);
                    println!(
                        "krippendorff alpha  {} {}  to read {}",
                        num(r.krippendorff_alpha),
                        ci_opt(&r.krippendorff_alpha_interval),
                        read_opt(&r.krippendorff_alpha_read_interval)
                    );
                    println!(
                        "fleiss kappa        {} {}  to read {}",
                        num(r.fleiss_kappa),
                        ci_opt(&r.fleiss_kappa_interval),
                        read_opt(&r.fleiss_kappa_read_interval)
                    );
                    if let Some(o) = &r.ordinal {
                        println!("ordered labels      {} (low to high), {} items", o.order.join(" < "), o.n_items);
                        println!(
                            "quadratic kappa     {} {}  to read {}",
                            num(o.quadratic_weighted_kappa),
                            ci_opt(&o.quadratic_weighted_kappa_interval),
                            read_opt(&o.quadratic_weighted_kappa_read_interval)
                        );
                        println!(
                            "ordinal alpha       {} {}  to read {}",
                            num(o.krippendorff_alpha_ordinal),
                            ci_opt(&o.krippendorff_alpha_ordinal_interval),
                            read_opt(&o.krippendorff_alpha_ordinal_read_interval)
                        );
                        for note in &o.notes {
                            println!("note: {note}");
                        }
                    }
                    for p in &r.pairs {
                        println!(
                            "  {} + {}: n {}, kappa {} {}",
                            p.annotator_a,
                            p.annotator_b,
                            p.report.kappa.n_items,
                            num(p.report.kappa.cohen_kappa),
                            ci_opt(&p.report.kappa_interval)
                        );
                    }
                }
                None => {
                    let project = open(cli.project.as_deref())?;
                    let r = forcebench::agreement::project_report(&project, boot)?;
                    if json {
                        return print_json(&r);
                    }
                    println!(
                        "{} rows with two finished annotations (pre-adjudication decisions)",
                        r.decision.kappa.n_items
                    );
                    print_pair(&r.decision);
                    let a = &r.accept_vs_not;
                    println!(
                        "accept vs not       kappa {} {}  AC1 {} {}  PABAK {} {}",
                        num(a.kappa.cohen_kappa),
                        ci_opt(&a.kappa_interval),
                        num(a.kappa.gwet_ac1),
                        ci_opt(&a.kappa.gwet_ac1_read_interval),
                        num(a.kappa.pabak),
                        ci_opt(&a.kappa.pabak_interval)
                    );
                    if let (Some(pi), Some(bi)) = (a.kappa.prevalence_index, a.kappa.bias_index) {
                        println!("                    prevalence index {pi:.3}   bias index {bi:.3}");
                    }
                    for sentence in &a.advice {
                        println!("read: {sentence}");
                    }
                    // The intervals to read (docs/agreement-intervals.md); the plain ones are in --json.
                    println!(
                        "krippendorff alpha  {} {}",
                        num(r.krippendorff_alpha),
                        ci_opt(&r.krippendorff_alpha_read_interval)
                    );
                    println!("fleiss kappa        {} {}", num(r.fleiss_kappa), ci_opt(&r.fleiss_kappa_read_interval));
                    println!(
                        "axis (both accept)  kappa {} {}  alpha {} {} on {} rows",
                        num(r.axis_when_both_accept.kappa.cohen_kappa),
                        ci_opt(&r.axis_when_both_accept.kappa_interval),
                        num(r.axis_krippendorff_alpha),
                        ci_opt(&r.axis_krippendorff_alpha_read_interval),
                        r.axis_when_both_accept.kappa.n_items
                    );
                    println!(
                        "severity            quadratic weighted kappa {} {}  ordinal alpha {} {} on {} rows",
                        num(r.severity_weighted_kappa),
                        ci_opt(&r.severity_weighted_kappa_read_interval),
                        num(r.severity_krippendorff_alpha),
                        ci_opt(&r.severity_krippendorff_alpha_read_interval),
                        r.severity_n_items
                    );
                    println!(
                        "span                exact {} {} token F1 {} {} on {} rows",
                        num(r.span.exact_match_rate),
                        ci_opt(&r.span.exact_match_interval),
                        num(r.span.mean_token_f1),
                        ci_opt(&r.span.mean_token_f1_interval),
                        r.span.n_items
                    );
                    for (title, rows) in [
                        ("by source", &r.by_source),
                        ("by suggested axis", &r.by_suggested_axis),
                        ("by pair", &r.by_pair),
                        ("by suggestion mode", &r.by_suggestion_mode),
                        ("by guideline version", &r.by_guideline_version),
                        ("by week", &r.by_week),
                    ] {
                        println!("{title}");
                        for b in rows.iter() {
                            println!(
                                "  {:<24} n {:>5}  agreement {}  kappa {} {}{}",
                                b.key,
                                b.n_items,
                                num(b.percent_agreement),
                                num(b.cohen_kappa),
                                ci_opt(&b.kappa_interval),
                                if b.plain_interval_under_covers { " (small n: read this interval)" } else { "" }
                            );
                        }
                    }
                    if !r.by_annotator.is_empty() {
                        println!("by annotator, against the final labels");
                        for a in &r.by_annotator {
                            let fields: Vec<String> = a
                                .per_field
                                .iter()
                                .map(|(f, p)| {
                                    format!("{f} {}", p.share.map_or("—".into(), |s| format!("{:.0}%", s * 100.0)))
                                })
                                .collect();
                            println!(
                                "  {:<12} {} adjudicated rows; {}; {} s per row; {} sent to discussion; {} decided in under 2 s",
                                a.annotator,
                                a.adjudicated_rows,
                                fields.join(", "),
                                a.seconds_per_row.map_or("—".into(), |s| format!("{s:.0}")),
                                a.sent_to_discussion.map_or("—".into(), |s| format!("{:.0}%", s * 100.0)),
                                a.under_two_seconds
                            );
                        }
                    }
                    if let Some(u) = &r.suggestion_uptake {
                        println!("suggestions followed through (the annotators' final values against the suggestions)");
                        contexts::print_uptake(u);
                    }
                }
            }
            Ok(())
        }
        Command::Contexts(cmd) => contexts::contexts_cmd(cli.project.as_deref(), cmd),
        Command::Draft(cmd) => contexts::draft_cmd(cli.project.as_deref(), cmd),
        Command::Guideline(args) => guideline::guideline_cmd(cli.project.as_deref(), args),
        Command::Feedback(args) => feedback::feedback_cmd(cli.project.as_deref(), args),
        Command::Annotators(cmd) => annotation::annotators(cli.project.as_deref(), cmd),
        Command::Assign { seed, json } => annotation::assign_rows(cli.project.as_deref(), seed, json),
        Command::Packets(cmd) => annotation::packets(cli.project.as_deref(), cmd),
        Command::Annotate(cmd) => annotation::annotate_cmd(cli.project.as_deref(), cmd),
        Command::Adjudicate(cmd) => adjudication::adjudicate_cmd(cli.project.as_deref(), cmd),
        Command::Qc(cmd) => adjudication::qc_cmd(cli.project.as_deref(), cmd),
        Command::Locality(cmd) => adjudication::locality_cmd(cli.project.as_deref(), cmd),
        Command::Split(cmd) => split::split_cmd(cli.project.as_deref(), cmd),
        Command::Export { dir, split_version, json } => {
            split::export_cmd(cli.project.as_deref(), dir, split_version, json)
        }
        Command::Verify { dir, json } => split::verify_cmd(dir, json),
        Command::Settings(SettingsCommand::Suggestions { mode, json }) => {
            let mut project = open(cli.project.as_deref())?;
            let mode = match mode {
                Some(text) => {
                    let mode = text.parse().map_err(Error::InvalidArgument)?;
                    forcebench::settings::set_suggestion_mode(&mut project, mode)?
                }
                None => forcebench::settings::suggestion_mode(project.conn())?,
            };
            if json {
                return print_json(&serde_json::json!({ "suggestions": mode }));
            }
            println!("suggestions  {}", mode.as_str());
            Ok(())
        }
        Command::Evaluate(args) => evaluate::evaluate_cmd(cli.project.as_deref(), args),
        Command::Baselines(cmd) => evaluate::baselines_cmd(cli.project.as_deref(), cmd),
        Command::Judge(cmd) => evaluate::judge_cmd(cli.project.as_deref(), cmd),
        Command::Sample(SampleCommand::Annotate { rows, seed }) => {
            let mut project = open(cli.project.as_deref())?;
            let n = sample::annotate_sample(&mut project, rows, seed)?;
            println!("simulated {n} annotations on the first {rows} rows (seed {seed})");
            Ok(())
        }
        Command::Sample(SampleCommand::Contexts) => {
            let mut project = open(cli.project.as_deref())?;
            if !sample::load_sample_contexts(&mut project)? {
                println!("the project already has contexts; the sample's were not loaded");
            }
            if let Some(c) = forcebench::contexts::accounting(project.conn())? {
                contexts::print_counts(&c);
            }
            Ok(())
        }
        Command::Sample(SampleCommand::Audit { by }) => {
            let mut project = open(cli.project.as_deref())?;
            let n = forcebench::split::audit_sample(&mut project, &by)?;
            println!("kept {n} selected sample row(s) with locality warnings after review, as {by}");
            Ok(())
        }
        Command::Sample(SampleCommand::Load) => {
            let mut project = open(cli.project.as_deref())?;
            println!("{}", sample::load_sample(&mut project)?.summary());
            Ok(())
        }
    }
}

/// Opens the named project (which must exist), or the default one (created on first use).
pub(crate) fn open(explicit: Option<&Path>) -> Result<Project> {
    let project = match explicit {
        Some(path) => {
            let project = Project::open(path)?;
            opened(path);
            project
        }
        None => {
            let path = default_project_path()?;
            let (project, created) = Project::open_or_create(&path)?;
            opened(&path);
            if created {
                eprintln!("created the default project at {}", path.display());
            }
            project
        }
    };
    // Said once, on the opening that upgraded the file; stdout (and --json) stays as documented.
    if let Some(upgrade) = &project.info().upgraded {
        eprintln!("{}: {upgrade}", project.info().path);
    }
    Ok(project)
}

/// The project file this command opened, as it was named: damage SQLite finds in it
/// after opening (in a page opening did not read) is then said as damage of that file, with the
/// copies beside it, as it is when opening finds it.
static OPENED: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

fn opened(path: &Path) {
    if let Ok(mut opened) = OPENED.lock() {
        *opened = Some(path.to_path_buf());
    }
}

/// Runs `work` with a progress bar on stderr (drawn only when stderr is a terminal).
fn with_progress<T>(file: &Path, work: impl FnOnce(import::Progress) -> Result<T>) -> Result<T> {
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("reading {}", file.display()));
    let result = work(&mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
    bar.finish_and_clear();
    result
}

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Internal(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// `forcebench agreement plan`.
#[derive(Debug, Subcommand)]
pub(crate) enum AgreementAction {
    /// How many double-annotated rows give a 95% interval of half-width W for kappa (or AC1 or
    /// alpha) at an expected kappa K (and, with --project, how many more the project's current
    /// interval needs)
    // Negative values are values: `--kappa -0.5` is an expected kappa, not an unknown flag.
    #[command(allow_negative_numbers = true)]
    Plan {
        /// The kappa you expect (it sets the population; the other coefficients' values there
        /// are printed)
        #[arg(long)]
        kappa: f64,
        /// The half-width the 95% interval should have (0.1: kappa +- 0.1)
        #[arg(long)]
        half_width: f64,
        /// Number of label categories (2: accept vs not; 3: the three decisions)
        #[arg(long, default_value_t = 2)]
        categories: usize,
        /// Expected share of each category, the first being accept (one value: the rest split
        /// evenly; none: equal shares)
        #[arg(long, num_args = 1..)]
        prevalence: Vec<f64>,
        /// The coefficient to plan for: kappa, ac1 or alpha
        #[arg(long, default_value = "kappa")]
        coefficient: forcebench::agreement::plan::PlanCoefficient,
        #[arg(long)]
        json: bool,
    },
}

/// `agreement --out FILE`: the project's report written as the app's Export writes it.
fn write_agreement(
    project: Option<&Path>,
    from_csv: bool,
    boot: Option<(u32, u64)>,
    path: &Path,
    format: &str,
) -> Result<()> {
    if from_csv {
        return Err(Error::InvalidArgument(
            "--out writes the project's report; a report read with --from-csv is printed (add --json to keep it)"
                .into(),
        ));
    }
    let format: forcebench::agreement::export::ExportFormat = format.parse()?;
    let project = open(project)?;
    let report = forcebench::agreement::project_report(&project, boot)?;
    let written = forcebench::agreement::export::write_report(&report, path, format)?;
    println!("wrote the agreement report to {}", written.display());
    Ok(())
}

fn run_plan(
    project: Option<&Path>,
    (coefficient, kappa, half_width): (forcebench::agreement::plan::PlanCoefficient, f64, f64),
    categories: usize,
    prevalence: &[f64],
    json: bool,
) -> Result<()> {
    use forcebench::agreement::{plan, project_report};
    let p = plan::plan_for(coefficient, kappa, half_width, categories, prevalence)?;
    // A project only when named: planning happens before there is one.
    let progress = match project {
        Some(path) => {
            let r = project_report(&open(Some(path))?, None)?;
            let reading = if categories == 2 { &r.accept_vs_not } else { &r.decision };
            Some(plan::progress_for(coefficient, reading, half_width))
        }
        None => None,
    };
    if json {
        return print_json(&serde_json::json!({ "plan": p, "project": progress }));
    }
    let name = coefficient.as_str();
    let shares: Vec<String> = p.marginals.iter().map(|m| format!("{m:.2}")).collect();
    println!(
        "{} double-annotated rows give a 95% interval of {name} +- {} at kappa {} ({name} {:.3} there; {} categories, shares {})",
        p.rows,
        p.half_width,
        p.kappa,
        p.value,
        p.marginals.len(),
        shares.join(", ")
    );
    let variance = match coefficient {
        plan::PlanCoefficient::Kappa => "large-sample variance of kappa, Fleiss, Cohen and Everitt 1969",
        _ => "Gwet's variance",
    };
    match p.simulated_share_reaching {
        Some(share) => println!(
            "({variance}, on that population: {} rows; {:.0}% of 1,000 simulated studies of {} rows reach it)",
            p.rows_formula,
            share * 100.0,
            p.rows
        ),
        None => println!(
            "({variance}, on that population: {} rows; too many to simulate, so the half-width's scatter was measured in 1,000 studies of {} rows and scaled by 1/sqrt(n): about 60% of studies of {} rows reach it)",
            p.rows_formula,
            plan::SIMULATED_ROWS_LIMIT,
            p.rows
        ),
    }
    if let Some(g) = progress {
        let reading = if categories == 2 { "accept vs not" } else { "decision" };
        match (g.kappa, g.half_width_now, g.more_rows) {
            (Some(k), Some(h), Some(more)) => println!(
                "this project ({reading}): {} rows, {name} {k:.3} +- {h:.3} now; {more} more rows to reach +- {half_width}",
                g.rows
            ),
            _ => println!("this project ({reading}): {} rows, no {name} interval yet", g.rows),
        }
    }
    Ok(())
}

fn read_opt(i: &Option<forcebench::agreement::stats::Interval>) -> String {
    i.as_ref().map_or("—".into(), |i| format!("{} ({})", ci(i), forcebench::agreement::export::method_name(i.method)))
}

fn ci(i: &forcebench::agreement::stats::Interval) -> String {
    format!("[{:.3}, {:.3}]", i.ci95[0], i.ci95[1])
}

fn ci_opt(i: &Option<forcebench::agreement::stats::Interval>) -> String {
    i.as_ref().map_or(String::new(), ci)
}

fn num(v: Option<f64>) -> String {
    v.map_or("undefined".into(), |x| format!("{x:.3}"))
}

fn print_pair(p: &forcebench::agreement::PairReport) {
    let k = &p.kappa;
    println!("cohen kappa         {}", num(k.cohen_kappa));
    if let Some([lo, hi]) = k.kappa_ci95 {
        println!("  95% CI (FCE SE {:.3})  {lo:.3} to {hi:.3}", k.kappa_se.unwrap_or_default());
    }
    if let Some([lo, hi]) = p.bootstrap_ci95 {
        println!("  95% bootstrap CI    {lo:.3} to {hi:.3}");
    }
    if let Some(i) = &p.kappa_interval {
        println!("  95% CI to read      {} ({})", ci(i), forcebench::agreement::export::method_name(i.method));
    }
    println!("percent agreement   {}   chance {}", num(k.percent_agreement), num(k.chance_agreement));
    println!(
        "PABAK {} {}   Gwet AC1 {} {}",
        num(k.pabak),
        ci_opt(&k.pabak_interval),
        num(k.gwet_ac1),
        ci_opt(&k.gwet_ac1_read_interval)
    );
    if let (Some(pi), Some(bi)) = (k.prevalence_index, k.bias_index) {
        println!("prevalence index {pi:.3}   bias index {bi:.3}");
    }
    for note in &p.notes {
        println!("note: {note}");
    }
    for sentence in &p.advice {
        println!("read: {sentence}");
    }
    println!("confusion (rows: A, columns: B; {})", p.labels.join(", "));
    for row in &p.confusion {
        println!("  {}", row.iter().map(|n| format!("{n:>6}")).collect::<String>());
    }
}

pub(crate) fn shorten(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        format!("{}…", flat.chars().take(max - 1).collect::<String>())
    }
}
