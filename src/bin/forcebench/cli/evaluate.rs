//! CLI for scoring evaluators: `evaluate` and `baselines run`.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use forcebench::error::Result;
use forcebench::evaluate::{self, EvaluatorReport, LabelMap};

/// The bootstrap behind every interval `evaluate` prints (the comparison, a panel, a paired test).
#[derive(Debug, clap::Args)]
pub struct Bootstrap {
    /// Bootstrap replicates for the intervals (0 skips them)
    #[arg(long, default_value_t = evaluate::BOOTSTRAP_REPS)]
    bootstrap: u32,
    #[arg(long, default_value_t = evaluate::BOOTSTRAP_SEED)]
    seed: u64,
}

impl Bootstrap {
    /// Replicates and seed, or `None` when intervals are skipped.
    fn plan(&self) -> Option<(u32, u64)> {
        (self.bootstrap > 0).then_some((self.bootstrap, self.seed))
    }
}

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvaluateArgs {
    #[command(subcommand)]
    sub: Option<EvaluateSub>,
    /// Evaluator outputs (JSONL: id, claim safe|raised, score or label, optional raw); without
    /// it, every stored evaluator is compared
    #[arg(long, value_name = "FILE")]
    scores: Option<PathBuf>,
    /// Name to store the evaluator under [default: the file name]
    #[arg(long)]
    name: Option<String>,
    /// How labels become scores: generic, force, audit, or a JSON file of label -> number
    #[arg(long, default_value = "generic")]
    map: String,
    #[command(flatten)]
    bootstrap: Bootstrap,
    /// Also write the comparison plots (MVR vs FS, MVR per axis) as SVG and PNG into DIR
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Replace plots already in the --plots folder
    #[arg(long, requires = "plots")]
    force: bool,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
pub enum EvaluateSub {
    /// Pool several evaluators into one aggregate over units = evaluators × pairs (the paper's
    /// model aggregate), with intervals from a bootstrap over pairs
    Panel {
        /// The evaluators to pool (names as `forcebench evaluate` lists them)
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        bootstrap: Bootstrap,
        /// Pool incomplete evaluators too (their never-answered pairs are left out and counted)
        #[arg(long)]
        include_incomplete: bool,
        #[arg(long)]
        json: bool,
    },
    /// Compare two evaluators (or two panels, comma-separated, matched member by member) on the
    /// same pairs: discordant counts, ΔMVR and ΔFS with paired-bootstrap intervals, McNemar's
    /// exact p-value
    Paired {
        /// Evaluator A, or a panel A1,A2,...
        a: String,
        /// Evaluator B, or a panel B1,B2,... of as many members
        b: String,
        #[command(flatten)]
        bootstrap: Bootstrap,
        /// Compare incomplete evaluators too (units either side never answered are left out)
        #[arg(long)]
        include_incomplete: bool,
        #[arg(long)]
        json: bool,
    },
    /// MVR and FS of every stored evaluator per construction family, and the shortcut audit (a
    /// family a lexical baseline finds far easier than the rest is flagged)
    Families {
        #[command(flatten)]
        bootstrap: Bootstrap,
        #[arg(long)]
        json: bool,
    },
    /// Compare two evaluators' agreement with the adjudicated labels on the claims both judged:
    /// kappa and AC1 of each, and A − B with a paired bootstrap interval over rows and the
    /// jackknife's
    AgreementPaired {
        /// Evaluator A (a name as `forcebench evaluate` lists it)
        a: String,
        /// Evaluator B
        b: String,
        #[command(flatten)]
        bootstrap: Bootstrap,
        #[arg(long)]
        json: bool,
    },
    /// Remove a stored evaluator from the locked split, with the judge runs stored under its name
    Remove {
        name: String,
        #[arg(long)]
        json: bool,
    },
}

fn names_of(list: &str) -> Vec<String> {
    list.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

fn evaluate_sub(project: Option<&Path>, sub: EvaluateSub) -> Result<()> {
    match sub {
        EvaluateSub::Panel { names, bootstrap, include_incomplete, json } => {
            let p = open(project)?;
            let names: Vec<String> = names.iter().flat_map(|n| names_of(n)).collect();
            let r = evaluate::panel::panel_with(&p, &names, bootstrap.plan(), include_incomplete)?;
            if json {
                return print_json(&r);
            }
            println!("panel of {} on split v{}: {}", r.members.len(), r.split_version, r.members.join(", "));
            let o = &r.overall;
            println!(
                "MVR {} = {}/{} {}  FS {} {}  ({} pairs × {} evaluators; {} units missing, counted as violations)",
                f(o.mvr),
                o.violations,
                o.units,
                ci(o.mvr_ci95),
                f(o.fs),
                ci(o.fs_ci95),
                o.n_pairs,
                r.members.len(),
                o.missing
            );
            if o.unanswered > 0 {
                println!(
                    "note: {} unit(s) never answered by an incomplete member are left out of these figures (not violations)",
                    o.unanswered
                );
            }
            for (title, groups) in [("per axis", &r.per_axis), ("per construction family", &r.per_family)] {
                println!("{title}");
                for (key, m) in groups {
                    println!(
                        "  {key:<12} MVR {} = {}/{} {}  FS {} {}",
                        f(m.mvr),
                        m.violations,
                        m.units,
                        ci(m.mvr_ci95),
                        f(m.fs),
                        ci(m.fs_ci95)
                    );
                }
            }
            Ok(())
        }
        EvaluateSub::Paired { a, b, bootstrap, include_incomplete, json } => {
            let p = open(project)?;
            let r =
                evaluate::panel::paired_with(&p, &names_of(&a), &names_of(&b), bootstrap.plan(), include_incomplete)?;
            if json {
                return print_json(&r);
            }
            println!("A: {}\nB: {}", r.a.join(", "), r.b.join(", "));
            println!("{} pairs, {} matched units on split v{}", r.n_pairs, r.units, r.split_version);
            println!(
                "MVR  A {}  B {}  ΔMVR (A − B) {} {}",
                f(r.mvr_a),
                f(r.mvr_b),
                f(r.delta_mvr),
                ci(r.delta_mvr_ci95)
            );
            println!("FS   A {}  B {}  ΔFS (A − B) {} {}", f(r.fs_a), f(r.fs_b), f(r.delta_fs), ci(r.delta_fs_ci95));
            println!(
                "discordant units: only A violates {}, only B violates {} (both {}, neither {}); McNemar exact p = {:.4}",
                r.only_a_violates, r.only_b_violates, r.both_violate, r.neither_violates, r.mcnemar_p
            );
            if r.unanswered > 0 {
                println!(
                    "note: {} unit(s) that either side never answered are left out of these figures",
                    r.unanswered
                );
            }
            Ok(())
        }
        EvaluateSub::Families { bootstrap, json } => {
            let p = open(project)?;
            let r = evaluate::family::family_report(&evaluate::compare(&p, bootstrap.plan())?);
            if json {
                return print_json(&r);
            }
            print_families(&r);
            Ok(())
        }
        EvaluateSub::AgreementPaired { a, b, bootstrap, json } => {
            let p = open(project)?;
            let r = evaluate::agreement_paired::agreement_paired(&p, &a, &b, bootstrap.plan())?;
            if json {
                return print_json(&r);
            }
            println!("A: {}\nB: {}", r.a, r.b);
            println!(
                "{} claims on {} rows of split v{} judged by both ({} left out: no usable verdict from one or both)",
                r.claims, r.rows, r.split_version, r.left_out
            );
            for (name, d) in [("kappa", &r.kappa), ("AC1  ", &r.gwet_ac1)] {
                println!(
                    "{name}  A {}  B {}  A − B {}  paired bootstrap {}  jackknife {}",
                    f(d.a),
                    f(d.b),
                    f(d.difference),
                    ci(d.bootstrap_ci95),
                    ci(d.jackknife_ci95)
                );
            }
            for note in &r.notes {
                println!("note: {note}");
            }
            Ok(())
        }
        EvaluateSub::Remove { name, json } => {
            let mut p = open(project)?;
            let runs = evaluate::panel::remove(&mut p, &name)?;
            if json {
                return print_json(&serde_json::json!({ "removed": name.trim(), "judge_runs": runs }));
            }
            println!("removed {} and {runs} judge run(s) stored under its name", name.trim());
            Ok(())
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum BaselinesCommand {
    /// Run the five deterministic baselines on the locked split (stored as baseline:<name>)
    Run {
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn evaluate_cmd(project: Option<&Path>, args: EvaluateArgs) -> Result<()> {
    if let Some(sub) = args.sub {
        return evaluate_sub(project, sub);
    }
    let mut p = open(project)?;
    let bootstrap = args.bootstrap.plan();
    match args.scores {
        Some(file) => {
            let map = LabelMap::named(&args.map)?;
            let name = args
                .name
                .unwrap_or_else(|| file.file_stem().map_or("evaluator".into(), |s| s.to_string_lossy().into_owned()));
            let report = evaluate::import_and_score(&mut p, &file, &name, &map, bootstrap)?;
            if args.json {
                return print_json(&report);
            }
            print_table(std::slice::from_ref(&report));
            print_breakdown(&report);
            Ok(())
        }
        None => {
            let reports = evaluate::compare(&p, bootstrap)?;
            if let Some(dir) = &args.plots {
                for path in evaluate::plots::write_all(&reports, dir, args.force)? {
                    eprintln!("wrote {}", path.display());
                }
            }
            if args.json {
                return print_json(&reports);
            }
            if reports.is_empty() {
                println!("no evaluator scored yet: `forcebench evaluate --scores FILE` or `forcebench baselines run`");
            }
            print_table(&reports);
            Ok(())
        }
    }
}

pub(super) fn baselines_cmd(project: Option<&Path>, cmd: BaselinesCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        BaselinesCommand::Run { json } => {
            let reports = evaluate::run_baselines(&mut p, Some((evaluate::BOOTSTRAP_REPS, evaluate::BOOTSTRAP_SEED)))?;
            if json {
                return print_json(&reports);
            }
            print_table(&reports);
            Ok(())
        }
    }
}

fn f(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.3}"))
}

fn ci(v: Option<[f64; 2]>) -> String {
    v.map_or(String::new(), |[a, b]| format!("[{a:.3}, {b:.3}]"))
}

fn print_table(reports: &[EvaluatorReport]) {
    println!(
        "{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8} {:>10}",
        "evaluator", "pairs", "MVR", "  95% CI", "FS", "  95% CI", "missing", "unanswered"
    );
    for r in reports {
        let m = &r.overall;
        println!(
            "{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8} {:>10}",
            r.name,
            m.n_pairs,
            f(m.mvr),
            ci(m.mvr_ci95),
            f(m.fs),
            ci(m.fs_ci95),
            m.missing,
            m.unanswered
        );
    }
    let incomplete: Vec<String> = reports
        .iter()
        .filter(|r| !r.completeness.complete())
        .map(|r| {
            format!("{} ({} of {} requests never answered)", r.name, r.completeness.unanswered, r.completeness.requests)
        })
        .collect();
    if !incomplete.is_empty() {
        println!(
            "incomplete (their unanswered pairs are left out above, and they are kept out of panels and tables): {}",
            incomplete.join(", ")
        );
    }
}

fn print_families(r: &evaluate::family::FamilyReport) {
    if r.per_family.is_empty() {
        println!("no evaluator is stored on the locked split yet: nothing to break down");
        return;
    }
    for (name, families) in &r.per_family {
        println!("{name}");
        for (family, m) in families {
            println!(
                "  {family:<24} n {:>4}  MVR {} {:<16}  FS {} {}",
                m.n_pairs,
                f(m.mvr),
                ci(m.mvr_ci95),
                f(m.fs),
                ci(m.fs_ci95)
            );
        }
    }
    println!("\nshortcut audit ({})", r.rule);
    if r.shortcuts.is_empty() {
        println!("  no lexical baseline is stored: run `forcebench baselines run` for the audit");
    }
    for s in &r.shortcuts {
        let verdict = if s.flagged {
            "FLAGGED"
        } else if s.too_few {
            "too few pairs to judge"
        } else {
            "ok"
        };
        println!(
            "  {:<24} {:<28} MVR {} (n {}) vs rest {} (n {})  {verdict}",
            s.family,
            s.baseline,
            f(s.mvr),
            s.n_pairs,
            f(s.mvr_rest),
            s.n_rest
        );
    }
    if !r.flagged.is_empty() {
        println!("flagged families: {}", r.flagged.join(", "));
    }
}

fn print_breakdown(r: &EvaluatorReport) {
    println!("per axis");
    for (axis, m) in &r.per_axis {
        println!("  {axis:<12} n {:>4}  MVR {}  FS {}", m.n_pairs, f(m.mvr), f(m.fs));
    }
    println!("per severity");
    for (s, m) in &r.per_severity {
        println!("  {s:<12} n {:>4}  MVR {}  FS {}", m.n_pairs, f(m.mvr), f(m.fs));
    }
    println!("per construction family");
    for (family, m) in &r.per_family {
        println!(
            "  {family:<12} n {:>4}  MVR {} {}  FS {} {}",
            m.n_pairs,
            f(m.mvr),
            ci(m.mvr_ci95),
            f(m.fs),
            ci(m.fs_ci95)
        );
    }
    for m in &r.missing_pairs {
        println!("missing {}: {}", m.id, m.problem);
    }
}

#[derive(Debug, Subcommand)]
pub enum JudgeCommand {
    /// Write the shipped prompt templates into DIR, to edit
    Templates {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Replace template files already in DIR
        #[arg(long)]
        force: bool,
    },
    /// Write one request per claim of the locked split (JSONL), from a template name or file
    Export {
        /// generic, force_aware, axis_free, dummy_axis, or a template file
        #[arg(long)]
        template: String,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Replace FILE if it exists (a ForceBench project is never replaced)
        #[arg(long)]
        force: bool,
        /// Seed of the request order
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Send every request of the locked split to an OpenAI-compatible endpoint, store the answers
    /// as they arrive, and score them (running it again resumes an interrupted run)
    Run(Box<RunArgs>),
    /// Run every model × template on the locked split (each cell a resumable `judge run`
    /// stored as <model>@<template>), pool each prompt over the models, and write the report
    /// folder (Tables 2 and 3, Figures 2-4 as CSV, JSON and SVG)
    Battery(Box<BatteryArgs>),
    /// Every judge run of the project: endpoint, model, template, parameters, progress
    Runs {
        #[arg(long)]
        json: bool,
    },
    /// Every request of a run as recorded (prompt, times, raw answer), as JSONL
    Requests {
        /// The run's evaluator name
        name: String,
        #[arg(long, default_value = "none")]
        control: String,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        #[arg(long)]
        force: bool,
    },
    /// How far a judge can be trusted: agreement with the adjudicated labels, the evidence-swap
    /// and order controls
    Trust {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Read the judge's responses (JSONL: request_id, response) and score them
    Import {
        file: PathBuf,
        #[arg(long)]
        name: String,
        /// generic, force, audit, or a JSON file of label -> number [default: force]
        #[arg(long, default_value = "force")]
        map: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    common: CommonRunArgs,
    /// The model's name as the endpoint knows it
    #[arg(long)]
    model: String,
    /// generic, force_aware, axis_free, dummy_axis, pairwise (for --control order), or a file
    #[arg(long)]
    template: String,
    /// The evaluator's name (a run is resumed by running it again under the same name)
    #[arg(long)]
    name: String,
    /// none (the judge itself), swapped_evidence or order
    #[arg(long, default_value = "none")]
    control: String,
    /// Accepted for clarity: every run resumes what an earlier run under the same name left
    #[arg(long)]
    resume: bool,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct BatteryArgs {
    #[command(flatten)]
    common: CommonRunArgs,
    /// The models, comma-separated, as the endpoint knows them
    #[arg(long, value_delimiter = ',', required_unless_present = "panel", conflicts_with = "panel")]
    models: Vec<String>,
    /// A panel file (TOML): the models, each with its provider profile (API style, base URL, key
    /// variable, output cap, deterministic setting, extra fields); see schema/panel.schema.json
    #[arg(long, value_name = "FILE")]
    panel: Option<PathBuf>,
    /// The prompts, comma-separated (shipped names or template files)
    #[arg(long, value_delimiter = ',', default_value = "generic,force_aware,axis_free,dummy_axis")]
    templates: Vec<String>,
    /// Controls to run on each model's force_aware judge as well: swapped_evidence, order
    #[arg(long, value_delimiter = ',')]
    controls: Vec<String>,
    /// Where to write the report folder
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace report files already in DIR
    #[arg(long)]
    force: bool,
    /// Only write the report from what is stored: send nothing
    #[arg(long)]
    no_run: bool,
    /// Pool incomplete cells too: their never-answered pairs are left out, and every table and
    /// figure counts them (`unanswered`) with a footnote
    #[arg(long)]
    include_incomplete: bool,
    #[arg(long)]
    json: bool,
}

/// The options `judge run` and `judge battery` share.
#[derive(Debug, clap::Args)]
pub struct CommonRunArgs {
    /// The endpoint's base URL, e.g. http://127.0.0.1:8080/v1 (requests go to BASE/chat/completions,
    /// BASE/responses or BASE/messages by --api); a panel file gives one per model
    #[arg(long)]
    base_url: Option<String>,
    /// The API style: chat (OpenAI chat completions), responses (OpenAI Responses) or anthropic
    /// (Anthropic Messages)
    #[arg(long, default_value = "chat")]
    api: String,
    /// The field the output cap is sent in [default: max_tokens, or max_output_tokens for responses]
    #[arg(long, value_name = "FIELD")]
    cap_field: Option<String>,
    /// Send no temperature (for a provider whose deterministic mode is a named setting: --extra)
    #[arg(long)]
    no_temperature: bool,
    /// A fixed field added to every request body, as KEY=JSON (repeatable), e.g.
    /// --extra 'reasoning={"effort":"minimal"}'
    #[arg(long, value_name = "KEY=JSON")]
    extra: Vec<String>,
    /// How labels become scores [default: the template's own map]
    #[arg(long)]
    map: Option<String>,
    /// The environment variable holding the API key (sent as a bearer token, never stored)
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Requests in flight at once
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Sampling temperature (the paper: 0, deterministic)
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// The output cap sent as max_tokens (the paper: 1024); 0 sends none
    #[arg(long, default_value_t = evaluate::runner::DEFAULT_MAX_TOKENS)]
    max_tokens: u32,
    /// Sent to the endpoint, and orders the requests
    #[arg(long)]
    seed: Option<u64>,
    /// Send at most N unanswered requests, then stop (a later run sends the rest)
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Seconds one request may take before it is retried (at least 1)
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Tries per request (429, 5xx, timeouts and lost connections are retried)
    #[arg(long, default_value_t = 5)]
    attempts: u32,
    /// Answers asked for per request while the answer holds no usable verdict (prose, broken
    /// JSON, a refusal); after the last, the claim counts as missing (a violation, margin 0)
    #[arg(long, default_value_t = evaluate::runner::DEFAULT_ANSWER_ATTEMPTS)]
    answer_attempts: u32,
    /// Milliseconds before the first retry, doubled after each (a Retry-After header wins)
    #[arg(long, default_value_t = 500)]
    retry_wait_ms: u64,
}

impl CommonRunArgs {
    fn options(&self, name: &str, model: &str, template: &str) -> Result<evaluate::runner::RunOptions> {
        let mut opts = evaluate::runner::RunOptions::new(name, self.base_url.as_deref().unwrap_or(""), model, template);
        opts.sampling.api = self.api.parse().map_err(forcebench::Error::InvalidArgument)?;
        opts.sampling.cap_field = self.cap_field.clone();
        opts.sampling.no_temperature = self.no_temperature;
        opts.sampling.extra = evaluate::providers::parse_extra(&self.extra)?;
        opts.map = self.map.clone();
        opts.sampling.api_key_env = self.api_key_env.clone();
        opts.sampling.temperature = self.temperature;
        opts.sampling.max_tokens = (self.max_tokens > 0).then_some(self.max_tokens);
        opts.sampling.seed = self.seed;
        opts.concurrency = self.concurrency;
        opts.limit = self.limit;
        // Zeros are passed on as given: the runner refuses them in words.
        opts.timeout = std::time::Duration::from_secs(self.timeout);
        opts.max_attempts = self.attempts;
        opts.answer_attempts = self.answer_attempts;
        opts.retry_wait = std::time::Duration::from_millis(self.retry_wait_ms);
        Ok(opts)
    }

    /// The options of one run, refused without a base URL.
    fn run_options(&self, name: &str, model: &str, template: &str) -> Result<evaluate::runner::RunOptions> {
        if self.base_url.is_none() {
            return Err(forcebench::Error::InvalidArgument(
                "--base-url is required (the endpoint, e.g. http://127.0.0.1:8080/v1)".into(),
            ));
        }
        self.options(name, model, template)
    }
}

fn progress_bar() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("judging {prefix} [{bar:30}] {pos}/{len} answered {msg} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

fn show_progress(bar: &indicatif::ProgressBar, s: &evaluate::runner::RunProgress) {
    bar.set_length(s.total);
    bar.set_position(s.done);
    bar.set_message(match (s.failed, s.retries, s.answer_retries) {
        (0, 0, 0) => String::new(),
        (f, r, a) => format!("· {r} retried · {a} asked again · {f} given up"),
    });
}

fn run_battery(project: Option<&Path>, a: BatteryArgs) -> Result<()> {
    // Every input is checked before anything is sent or stored: the report folder, the lists,
    // the controls, the run settings and (in the runner) every template.
    evaluate::battery::check_out(&a.out, a.force)?;
    let controls: Vec<evaluate::runner::Control> =
        a.controls.iter().map(|c| c.parse().map_err(forcebench::Error::InvalidArgument)).collect::<Result<_>>()?;
    let profiles = match &a.panel {
        Some(file) => {
            if a.common.base_url.is_some() {
                return Err(forcebench::Error::InvalidArgument(
                    "--base-url and --panel: the panel file gives each model's base URL".into(),
                ));
            }
            evaluate::panel_file::read(file, &a.common.options("battery", "", "")?)?
        }
        None => {
            let base = a.common.run_options("battery", "m", "generic")?;
            evaluate::runner::check_options(&base)?;
            a.models
                .iter()
                .map(|m| {
                    let mut o = base.clone();
                    o.model = m.clone();
                    o
                })
                .collect()
        }
    };
    let models: Vec<String> = profiles.iter().map(|o| o.model.clone()).collect();
    evaluate::battery::check_lists(&models, &a.templates)?;
    let mut p = open(project)?;
    let mut failed = Vec::new();
    if !a.no_run {
        let bar = progress_bar();
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let (done, errors) = evaluate::battery::run_profiles(
            &mut p,
            &profiles,
            &a.templates,
            &controls,
            &mut |cell, s| {
                bar.set_prefix(cell.to_string());
                show_progress(&bar, s);
            },
            &cancel,
        )?;
        bar.finish_and_clear();
        for s in &done {
            eprintln!(
                "{} ({}): {} of {} answered, {} asked again for a usable verdict",
                s.name,
                s.control.as_str(),
                s.requests - s.unanswered,
                s.requests,
                s.answer_retries
            );
        }
        for (cell, e) in &errors {
            eprintln!("{cell}: {}: {e}", e.code());
        }
        failed = errors;
    }
    let report = evaluate::battery::report(&p, &models, &a.templates, a.include_incomplete)?;
    let written = report.write(&a.out, a.force)?;
    if a.json {
        print_json(&report)?;
    } else {
        println!("Table 2");
        print_rows(&report.table2());
        println!("Table 3 (prompt ablation)");
        print_rows(&report.table3());
        for note in &report.footnotes {
            println!("note: {note}");
        }
        for path in &written {
            println!("wrote {}", path.display());
        }
    }
    if let Some((cell, e)) = failed.into_iter().next() {
        return Err(forcebench::Error::Unfinished(format!(
            "{cell} did not finish ({}: {e}); the report holds what is stored, and running the same command again resumes",
            e.code()
        )));
    }
    Ok(())
}

fn print_rows(rows: &[evaluate::battery::TableRow]) {
    println!(
        "  {:<24} {:<24} {:>9} {:>7} {:<16} {:>7} {:<16}",
        "evaluator", "prompt", "count", "MVR", "  95% CI", "FS", "  95% CI"
    );
    for r in rows {
        println!(
            "  {:<24} {:<24} {:>9} {:>7} {:<16} {:>7} {:<16}",
            r.evaluator,
            r.prompt,
            format!("{}/{}", r.violations, r.units),
            f(r.mvr),
            ci(r.mvr_ci95),
            f(r.fs),
            ci(r.fs_ci95)
        );
    }
}

fn run_judge(project: Option<&Path>, a: RunArgs) -> Result<()> {
    let mut p = open(project)?;
    let mut opts = a.common.run_options(&a.name, &a.model, &a.template)?;
    opts.control = a.control.parse().map_err(forcebench::Error::InvalidArgument)?;
    let _ = a.resume;
    let bar = progress_bar();
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let summary = evaluate::runner::run(&mut p, &opts, &mut |s| show_progress(&bar, s), &cancel);
    bar.finish_and_clear();
    let summary = summary?;
    if a.json {
        print_json(&summary)?;
    } else {
        println!(
            "{} ({}) with {} at {}: {} of {} requests answered ({} before this run, {} now)",
            summary.name,
            summary.control.as_str(),
            summary.model,
            summary.base_url,
            summary.requests - summary.unanswered,
            summary.requests,
            summary.answered_before,
            summary.answered_now
        );
        for (rid, why) in &summary.failures {
            println!("  not answered: {rid}: {why}");
        }
        if let Some(stats) = &summary.stats {
            println!(
                "{} answers: {} as JSON, {} by a label in the text, {} without a usable verdict after {} tries each (missing); {} asked again in this run",
                stats.responses,
                stats.json,
                stats.label_in_text,
                stats.unparsable.len(),
                opts.answer_attempts,
                summary.answer_retries
            );
        }
        if let Some(report) = &summary.report {
            print_table(std::slice::from_ref(report));
        }
        if summary.control != evaluate::runner::Control::None {
            println!("see `forcebench judge trust {}` for what this control shows", summary.name);
        }
    }
    if summary.unanswered > 0 && opts.limit.is_none() {
        return Err(forcebench::Error::Unfinished(format!(
            "{} request(s) are still unanswered; run the same command again to send them (answered ones are not sent again)",
            summary.unanswered
        )));
    }
    Ok(())
}

fn print_trust(t: &evaluate::trust::TrustReport) {
    println!("trust report for the judge {}", t.name);
    match &t.human_agreement {
        Some(h) => {
            println!(
                "agreement with the adjudicated labels: kappa {} {} on {} claims ({} left out)",
                f(h.overall.cohen_kappa),
                ci(h.overall.kappa_ci95),
                h.claims,
                h.left_out
            );
            for (axis, k) in &h.per_axis {
                println!("  {axis:<12} kappa {} {} (n {})", f(k.cohen_kappa), ci(k.kappa_ci95), k.n_items);
            }
        }
        None => println!("agreement with the adjudicated labels: no run of the judge itself yet"),
    }
    if let Some(m) = &t.axis_match {
        println!(
            "primary axis named on the raised claims called a gap: matches the adjudicated axis {}/{} = {} {} ({} named none)",
            m.overall.hits,
            m.overall.n,
            f(m.overall.rate),
            ci(m.overall.ci95),
            m.no_axis_named
        );
        for (axis, p) in &m.per_axis {
            println!("  {axis:<12} {}/{} = {} {}", p.hits, p.n, f(p.rate), ci(p.ci95));
        }
    }
    match &t.swapped_evidence {
        Some(s) => println!(
            "evidence swap: calibrated claims supported {} against their own passage, {} against another group's; drop {}; still supported {} (n {})",
            f(s.safe_own),
            f(s.safe_swapped),
            f(s.support_drop),
            f(s.still_supported),
            s.pairs
        ),
        None => println!("evidence swap: no swapped_evidence run yet (`judge run --control swapped_evidence`)"),
    }
    match &t.order {
        Some(o) => println!(
            "order: same position picked in both orders {} of pairs (position bias); calibrated claim picked {} (n {})",
            f(o.position_bias),
            f(o.picks_calibrated),
            o.pairs
        ),
        None => println!("order: no order run yet (`judge run --control order --template pairwise`)"),
    }
}

pub(super) fn judge_cmd(project: Option<&Path>, cmd: JudgeCommand) -> Result<()> {
    match cmd {
        JudgeCommand::Run(args) => run_judge(project, *args),
        JudgeCommand::Battery(args) => run_battery(project, *args),
        JudgeCommand::Runs { json } => {
            let p = open(project)?;
            let runs = evaluate::runner::runs(&p)?;
            if json {
                return print_json(&runs);
            }
            if runs.is_empty() {
                println!(
                    "no judge run yet: `forcebench judge run --base-url URL --model NAME --template T --name NAME`"
                );
            }
            for r in &runs {
                println!(
                    "{} ({}) split v{}: {} at {}, template {} (sha256 {}…), {}/{} answered{}{}",
                    r.name,
                    r.control.as_str(),
                    r.split_version,
                    r.model,
                    r.base_url,
                    r.template,
                    &r.template_sha256[..12],
                    r.answered,
                    r.requests,
                    r.finished_at.as_deref().map_or(String::new(), |t| format!(", finished {t}")),
                    r.leaky.as_deref().map_or(String::new(), |why| format!(
                        "\n  LEAKY: {why}; kept out of every table, panel and comparison"
                    ))
                );
            }
            Ok(())
        }
        JudgeCommand::Requests { name, control, out, force } => {
            let p = open(project)?;
            let control = control.parse().map_err(forcebench::Error::InvalidArgument)?;
            let rows = evaluate::runner::requests(&p, &name, control)?;
            let mut text = String::new();
            for r in &rows {
                text.push_str(&serde_json::to_string(r).map_err(|e| forcebench::Error::Internal(e.to_string()))?);
                text.push('\n');
            }
            forcebench::output::write_file(&out, text.as_bytes(), force)?;
            println!("wrote {} requests of {name} to {}", rows.len(), out.display());
            Ok(())
        }
        JudgeCommand::Trust { name, json } => {
            let p = open(project)?;
            let t = evaluate::trust::trust(&p, &name)?;
            if json {
                return print_json(&t);
            }
            print_trust(&t);
            Ok(())
        }
        JudgeCommand::Templates { out, force } => {
            forcebench::output::check_out_folder(&out)?; // never through a symbolic link
                                                         // Every file is checked before any is written: all or nothing.
            for (name, ..) in evaluate::judge::TEMPLATES {
                forcebench::output::check_target(&out.join(format!("{name}.txt")), force)?;
            }
            std::fs::create_dir_all(&out).map_err(|e| forcebench::Error::io(&out, e))?;
            for (name, text, map) in evaluate::judge::TEMPLATES {
                let path = out.join(format!("{name}.txt"));
                forcebench::output::write_file(&path, text.as_bytes(), force)?;
                println!("{}  (answers read with --map {map})", path.display());
            }
            Ok(())
        }
        JudgeCommand::Export { template, out, force, seed } => {
            let p = open(project)?;
            let n = evaluate::judge_export(&p, &template, &out, seed, force)?;
            println!("wrote {n} requests (two per pair, each a complete prompt) to {}", out.display());
            Ok(())
        }
        JudgeCommand::Import { file, name, map, json } => {
            let mut p = open(project)?;
            let map = LabelMap::named(&map)?;
            let (report, stats) = evaluate::judge_import(
                &mut p,
                &file,
                &name,
                &map,
                Some((evaluate::BOOTSTRAP_REPS, evaluate::BOOTSTRAP_SEED)),
            )?;
            if json {
                return print_json(&serde_json::json!({ "report": report, "parsing": stats }));
            }
            println!(
                "{} responses: {} as JSON, {} by a label in the text, {} unparsable",
                stats.responses,
                stats.json,
                stats.label_in_text,
                stats.unparsable.len()
            );
            for id in &stats.unparsable {
                println!("  unparsable: {id}");
            }
            print_table(std::slice::from_ref(&report));
            Ok(())
        }
    }
}
