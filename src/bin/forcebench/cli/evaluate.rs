//! CLI for scoring evaluators: `evaluate` and `baselines run`.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use forcebench::error::Result;
use forcebench::evaluate::{self, EvaluatorReport, LabelMap};

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
        "{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8}",
        "evaluator", "pairs", "MVR", "  95% CI", "FS", "  95% CI", "missing"
    );
    for r in reports {
        let m = &r.overall;
        println!(
            "{:<28} {:>6} {:>7} {:<16} {:>7} {:<16} {:>8}",
            r.name,
            m.n_pairs,
            f(m.mvr),
            ci(m.mvr_ci95),
            f(m.fs),
            ci(m.fs_ci95),
            m.missing
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

pub(super) fn judge_cmd(project: Option<&Path>, cmd: JudgeCommand) -> Result<()> {
    match cmd {
        JudgeCommand::Templates { out, force } => {
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
