//! CLI for the guideline's versions (`guideline`, `guideline publish`, `guideline list`).

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use forcebench::error::Result;
use forcebench::guideline;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct GuidelineArgs {
    #[command(subcommand)]
    cmd: Option<GuidelineCommand>,
    /// Print this version instead of the one in force
    #[arg(long, value_name = "LABEL")]
    version: Option<String>,
    /// Print what changed from the previous version, line by line (+ added, - removed)
    #[arg(long)]
    changes: bool,
}

#[derive(Debug, Subcommand)]
pub enum GuidelineCommand {
    /// Publish FILE (Markdown) as a new version, in force from now on
    Publish {
        file: PathBuf,
        /// The new version's label (e.g. 2, or 1.1)
        #[arg(long, value_name = "LABEL")]
        version: String,
        /// What changed, in a sentence (shown to annotators)
        #[arg(long)]
        note: Option<String>,
        /// Who publishes it [default: the lead]
        #[arg(long, default_value = "the lead")]
        by: String,
        #[arg(long)]
        json: bool,
    },
    /// Every published version, oldest first
    List {
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn guideline_cmd(project: Option<&Path>, args: GuidelineArgs) -> Result<()> {
    match args.cmd {
        Some(GuidelineCommand::Publish { file, version, note, by, json }) => {
            let mut p = open(project)?;
            let v = guideline::publish(&mut p, &file, &version, note.as_deref(), &by)?;
            if json {
                return print_json(&v);
            }
            println!(
                "published guideline version {} (sha256 {}…); it is in force from now on",
                v.label,
                &v.sha256[..12]
            );
            Ok(())
        }
        Some(GuidelineCommand::List { json }) => {
            let p = open(project)?;
            let list = guideline::list(&p)?;
            if json {
                return print_json(&list);
            }
            for v in &list {
                println!(
                    "{:<8} {} by {}{}{}",
                    v.label,
                    v.published_at,
                    v.published_by,
                    v.note.as_deref().map_or(String::new(), |n| format!(": {n}")),
                    if v.current { "  (in force)" } else { "" }
                );
            }
            Ok(())
        }
        None => {
            let p = open(project)?;
            let v = match &args.version {
                Some(label) => guideline::get(&p, label)?,
                None => guideline::current(&p)?,
            };
            if args.changes {
                let lines = guideline::changes(&p, &v.label)?;
                if lines.is_empty() {
                    println!("version {} is the first: nothing to compare with", v.label);
                }
                for l in lines.iter().filter(|l| l.change != "same") {
                    println!("{} {}", if l.change == "added" { "+" } else { "-" }, l.text);
                }
                return Ok(());
            }
            print!("{}", v.text);
            Ok(())
        }
    }
}
