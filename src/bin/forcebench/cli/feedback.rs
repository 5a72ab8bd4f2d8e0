//! CLI for feedback to annotators (`feedback --annotator NAME`, `feedback issue`): their rows the
//! adjudicator decided otherwise, blinded.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use forcebench::error::Result;
use forcebench::feedback;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct FeedbackArgs {
    #[command(subcommand)]
    cmd: Option<FeedbackCommand>,
    /// The annotator whose adjudicated rows to show
    #[arg(long)]
    annotator: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
pub enum FeedbackCommand {
    /// Write one blinded feedback file per annotator into DIR (opens in the annotator's app)
    Issue {
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Replace feedback files already in DIR
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn feedback_cmd(project: Option<&Path>, args: FeedbackArgs) -> Result<()> {
    let p = open(project)?;
    match args.cmd {
        Some(FeedbackCommand::Issue { out, force, json }) => {
            let written = feedback::issue(&p, &out, force)?;
            if json {
                return print_json(&written);
            }
            for w in &written {
                println!(
                    "{}: {} rows where the final label differs ({} adjudicated)",
                    w.file, w.differing_rows, w.adjudicated_rows
                );
            }
            Ok(())
        }
        None => {
            let who = args.annotator.ok_or_else(|| {
                forcebench::Error::InvalidArgument("name the annotator: `forcebench feedback --annotator NAME`".into())
            })?;
            let f = feedback::for_annotator(&p, &who)?;
            if args.json {
                return print_json(&f);
            }
            println!(
                "{}: {} adjudicated rows, {} where the final label differs from yours",
                f.annotator, f.summary.adjudicated_rows, f.summary.differing_rows
            );
            for (field, a) in &f.summary.per_field {
                println!("  {field:<16} agrees with the final label on {} of {}", a.agree, a.total);
            }
            for r in &f.rows {
                println!(
                    "{} {}: yours {} → final {} (guideline {}){}",
                    r.id,
                    r.field,
                    r.yours.as_deref().unwrap_or("—"),
                    r.final_value.as_deref().unwrap_or("—"),
                    r.guideline_version,
                    r.rationale.as_deref().map_or(String::new(), |t| format!("; rationale: {t}"))
                );
            }
            Ok(())
        }
    }
}
