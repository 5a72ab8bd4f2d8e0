//! CLI for scoring evaluators: `evaluate` and `baselines run`.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use crate::error::Result;
use crate::evaluate::{self, EvaluatorReport, LabelMap};

#[derive(Debug, clap::Args)]
pub struct EvaluateArgs {
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
    /// Bootstrap replicates for the intervals (0 skips them)
    #[arg(long, default_value_t = evaluate::BOOTSTRAP_REPS)]
    bootstrap: u32,
    #[arg(long, default_value_t = evaluate::BOOTSTRAP_SEED)]
    seed: u64,
    #[arg(long)]
    json: bool,
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
    let mut p = open(project)?;
    let bootstrap = (args.bootstrap > 0).then_some((args.bootstrap, args.seed));
    match args.scores {
        Some(file) => {
            let map = LabelMap::named(&args.map)?;
            let name = args.name.unwrap_or_else(|| file.file_stem().map_or("evaluator".into(), |s| s.to_string_lossy().into_owned()));
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
    println!("{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8}", "evaluator", "pairs", "MVR", "  95% CI", "FS", "  95% CI", "missing");
    for r in reports {
        let m = &r.overall;
        println!(
            "{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8}",
            r.name, m.n_pairs, f(m.mvr), ci(m.mvr_ci95), f(m.fs), ci(m.fs_ci95), m.missing
        );
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
    for m in &r.missing_pairs {
        println!("missing {}: {}", m.id, m.problem);
    }
}
