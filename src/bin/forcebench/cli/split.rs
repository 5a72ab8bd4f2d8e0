//! CLI for the evaluation split: draft, show, lock, export and verify.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json};
use forcebench::error::Result;
use forcebench::split::{self, SplitParams, SplitShow};

#[derive(Debug, Subcommand)]
pub enum SplitCommand {
    /// Draft a split from the accepted rows (replaces an unlocked draft)
    Draft {
        /// Cap an over-represented axis, e.g. --cap relation=48 (repeatable)
        #[arg(long = "cap", value_name = "AXIS=N", value_parser = split::parse_cap)]
        caps: Vec<(forcebench::vocab::Axis, u32)>,
        /// Evaluation rows per axis
        #[arg(long, default_value_t = split::DEFAULT_PER_AXIS)]
        per_axis: u32,
        /// Seed of the stable hash that breaks ties
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// Show the latest split with the locality filter applied
    Show {
        #[arg(long)]
        json: bool,
    },
    /// Lock the latest draft: it can no longer change. Refused while a selected row has a locality
    /// warning nobody reviewed or a QC error not resolved
    Lock {
        /// Lock even so; the manifest and datasheet list the rows whose audit was skipped
        #[arg(long)]
        allow_unreviewed: bool,
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn split_cmd(project: Option<&Path>, cmd: SplitCommand) -> Result<()> {
    let mut p = open(project)?;
    match cmd {
        SplitCommand::Draft { caps, per_axis, seed, json } => {
            let params = SplitParams::new(split::caps_from(&caps)?, Some(per_axis), Some(seed));
            let s = split::draft(&mut p, &params)?;
            if json {
                return print_json(&s);
            }
            print_show(&s);
            Ok(())
        }
        SplitCommand::Show { json } => {
            let s = split::show(&p)?;
            if json {
                return print_json(&s);
            }
            match s {
                Some(s) => print_show(&s),
                None => println!("no split yet: draft one with `forcebench split draft`"),
            }
            Ok(())
        }
        SplitCommand::Lock { allow_unreviewed, json } => {
            let s = split::lock_with(&mut p, allow_unreviewed)?;
            if json {
                return print_json(&s);
            }
            print_show(&s);
            println!(
                "\nlocked: the final labels of these rows can no longer change; export with `forcebench export DIR`"
            );
            println!("{}", s.audit.never_adjudicated_words());
            // The packets out whose rows this lock froze, and how many.
            let out = forcebench::packets::packets_at_lock(p.conn())?;
            if !out.is_empty() {
                println!("\npackets out with rows this lock froze (a merge leaves their changes to those rows out, and lists them):");
                for k in out {
                    println!(
                        "  {} packet {} (issued {}): {} of its {} rows frozen; {} return{} merged so far",
                        k.annotator,
                        &k.packet_id[..8.min(k.packet_id.len())],
                        k.issued_at,
                        k.frozen,
                        k.rows,
                        k.returns_merged,
                        if k.returns_merged == 1 { "" } else { "s" }
                    );
                }
            }
            Ok(())
        }
    }
}

pub(super) fn export_cmd(project: Option<&Path>, dir: PathBuf, version: Option<i64>, json: bool) -> Result<()> {
    let p = open(project)?;
    let bar = indicatif::ProgressBar::new(split::EXPORT_FILES.len() as u64);
    let exported =
        forcebench::evaluate::release::export(&p, &dir, version, &mut |done, _| bar.set_position(done as u64))?;
    bar.finish_and_clear();
    if json {
        return print_json(&exported);
    }
    let (report, release) = (&exported.split, &exported.release);
    println!("exported split v{} to {}", report.version, report.dir);
    for (name, hash) in &report.files {
        println!("  {name:<24} {hash}");
    }
    println!("content sha256 {}", report.content_sha256);
    println!(
        "evaluation release in {}: {} files ({} judge run(s), {} stored evaluator(s)), listed in its own manifest.json",
        release.dir,
        release.files.len() + 1,
        release.runs,
        release.evaluators
    );
    Ok(())
}

pub(super) fn verify_cmd(dir: PathBuf, json: bool) -> Result<()> {
    let report = split::verify(&dir)?;
    let release = forcebench::evaluate::release::verify(&dir)?;
    if json {
        let mut out = serde_json::to_value(&report).map_err(|e| forcebench::Error::Internal(e.to_string()))?;
        out["release_files_checked"] = release.into();
        return print_json(&out);
    }
    println!(
        "ok: {} files match their sha256; {} evaluation rows, {} retained; content sha256 {}",
        report.files_checked, report.eval_rows, report.retained_rows, report.content_sha256
    );
    if release > 0 {
        println!("ok: the evaluation release's {release} files match its manifest");
    }
    Ok(())
}

fn print_show(s: &SplitShow) {
    println!("split v{} ({})  seed {}  per axis {}", s.version, s.status, s.params.seed, s.params.per_axis);
    if !s.params.caps.is_empty() {
        let caps: Vec<String> = s.params.caps.iter().map(|(a, n)| format!("{a}={n}")).collect();
        println!("caps {}", caps.join(", "));
    }
    if let Some(b) = &s.before_candidacy {
        println!(
            "contexts {} → kept {} → drafted {} → excluded {} → promoted {} (dropped at screening {})",
            b.imported, b.kept, b.drafted, b.excluded, b.promoted, b.dropped
        );
    }
    let c = &s.counts;
    println!(
        "candidates {} → accepted {} → capped {} → selected {} → locality-removed {} → retained {}, evaluation {}",
        c.candidates, c.accepted, c.capped, c.selected, c.locality_removed, c.retained, c.eval
    );
    println!(
        "{:<10} {:>8} {:>7} {:>9} {:>9} {:>5}  eval severity 1/2/3",
        "axis", "accepted", "capped", "nonlocal", "retained", "eval"
    );
    for t in &s.per_axis {
        println!(
            "{:<10} {:>8} {:>7} {:>9} {:>9} {:>5}  {}/{}/{}",
            t.axis,
            t.accepted,
            t.capped,
            t.locality_removed,
            t.retained,
            t.eval,
            t.eval_severity[0],
            t.eval_severity[1],
            t.eval_severity[2]
        );
    }
    for r in &s.locality_removed {
        println!("removed {} ({}{}): {}", r.id, r.axis, if r.was_eval { ", was selected" } else { "" }, r.reason);
    }
    if !s.stale.is_empty() {
        println!("warning: {} row(s) changed state since the draft; draft again before locking", s.stale.len());
    }
    let a = &s.audit;
    if a.allowed_unreviewed {
        println!("locked with its final audit unfinished (--allow-unreviewed): {}", a.describe());
    } else if !a.is_clean() {
        println!("not ready to lock: {}", a.describe());
    }
    // The split by construction family (only when some row has one).
    if s.by_family.keys().any(|f| f != forcebench::split::NO_FAMILY) {
        println!("{:<24} {:>9} {:>5}", "construction family", "retained", "eval");
        for (family, [r, e]) in &s.by_family {
            println!("{family:<24} {r:>9} {e:>5}");
        }
    }
    // How the retained rows were affirmed, and the accepted rows held back.
    let pr = &s.promotion;
    println!("promotion: {} affirmed one by one, {} in bulk", pr.one_by_one, pr.in_bulk);
    for (who, [one, bulk]) in &pr.by {
        println!("  {who}: {one} one by one, {bulk} in bulk");
    }
    if !pr.held_back.is_empty() {
        println!("held back (promotion checks not affirmed): {} row(s)", pr.held_back.len());
        for r in pr.held_back.iter().take(20) {
            println!("  held back {} ({}): {}", r.id, r.axis, r.reason);
        }
        if pr.held_back.len() > 20 {
            println!("  … and {} more (--json lists them all)", pr.held_back.len() - 20);
        }
    }
}
