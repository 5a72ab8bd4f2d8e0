//! CLI for the steps before candidacy: `contexts import|list|screen|show` and
//! `draft set|list|show|promote|exclude|run`.

use clap::Subcommand;
use std::path::{Path, PathBuf};

use super::{open, print_json, shorten, with_progress};
use forcebench::contexts::{self, draft, ExclusionReason, ScreenDecision};
use forcebench::error::{Error, Result};

#[derive(Debug, Subcommand)]
pub enum ContextsCommand {
    /// Import cited contexts from a .csv or .jsonl file (all or nothing; see docs/formats.md)
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// List every context with its stage (unscreened, dropped, kept, drafted, promoted, excluded)
    List {
        /// Only contexts at this stage
        #[arg(long)]
        stage: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show one context in full, with its screening history and drafts
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Keep a context (its passage shows a visible local boundary) or drop it with a reason
    Screen {
        id: String,
        /// keep or drop
        decision: String,
        /// Why a dropped context is dropped: no_visible_boundary, passage_unavailable,
        /// needs_outside_knowledge, changes_entity_or_target or ordinary_addition
        #[arg(long)]
        reason: Option<String>,
        #[arg(long)]
        note: Option<String>,
        /// Who screens [default: the lead]
        #[arg(long, default_value = "the lead")]
        by: String,
        #[arg(long)]
        json: bool,
    },
    /// Counts before candidacy: per step, per reason and per source
    Counts {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum DraftCommand {
    /// Set one field of a kept context's draft by hand (a new version of the draft; "" clears it)
    Set {
        /// The context's id
        id: String,
        /// evidence_span, calibrated_claim, raised_claim, repair, rationale, axis or severity
        field: String,
        value: String,
        /// Who writes it [default: the lead]
        #[arg(long, default_value = "the lead")]
        by: String,
        #[arg(long)]
        json: bool,
    },
    /// List every context's current draft, with what promotion would refuse in it
    List {
        #[arg(long)]
        json: bool,
    },
    /// Every version of a context's draft, oldest first
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Promote drafts into the candidate pool (all or nothing); the candidates keep the contexts' ids
    Promote {
        /// The contexts whose drafts to promote
        ids: Vec<String>,
        /// Every draft waiting for promotion
        #[arg(long)]
        all: bool,
        /// Who promotes [default: the lead]
        #[arg(long, default_value = "the lead")]
        by: String,
        #[arg(long)]
        json: bool,
    },
    /// Draft every kept context without a draft with a model (an OpenAI-compatible endpoint);
    /// running it again under the same name resumes
    Run(DraftRunArgs),
    /// Print the shipped drafting prompt (to copy and edit for --template)
    Prompt,
    /// How often annotators kept each suggested field: acceptance and edit rates per field, per
    /// drafter and per construction family
    Uptake {
        #[arg(long)]
        json: bool,
    },
    /// Exclude a context's draft before candidacy, with a reason
    Exclude {
        id: String,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        note: Option<String>,
        /// Who excludes it [default: the lead]
        #[arg(long, default_value = "the lead")]
        by: String,
        #[arg(long)]
        json: bool,
    },
}

/// A stage's name as `--stage` and the JSON write it.
fn stage_name(stage: contexts::ContextStage) -> String {
    serde_json::to_value(stage).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

#[derive(Debug, clap::Args)]
pub struct DraftRunArgs {
    /// The endpoint's base URL, e.g. http://127.0.0.1:8080/v1 (requests go to BASE/chat/completions,
    /// BASE/responses or BASE/messages by --api)
    #[arg(long)]
    base_url: String,
    /// The API style: chat (OpenAI chat completions), responses (OpenAI Responses) or anthropic
    /// (Anthropic Messages)
    #[arg(long, default_value = "chat")]
    api: String,
    /// The model's name as the endpoint knows it
    #[arg(long)]
    model: String,
    /// A drafting prompt file with {{context}} and {{passage}} [default: the shipped prompt]
    #[arg(long, value_name = "FILE")]
    template: Option<PathBuf>,
    /// The run's name (a run is resumed by running it again under the same name)
    #[arg(long)]
    name: String,
    /// The environment variable holding the API key (sent as a bearer token, never stored)
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Sampling temperature
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// The output cap sent as max_tokens; 0 sends none
    #[arg(long, default_value_t = forcebench::evaluate::runner::DEFAULT_MAX_TOKENS)]
    max_tokens: u32,
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
    /// Send at most N of the waiting contexts, then stop
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// The longest one request may take, in seconds
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Tries per request on a timeout, 429 or 5xx
    #[arg(long, default_value_t = 5)]
    attempts: u32,
    /// The wait before the first retry, in milliseconds (doubled after each)
    #[arg(long, default_value_t = 500)]
    retry_wait_ms: u64,
    #[arg(long)]
    json: bool,
}

fn draft_run(project: Option<&Path>, a: DraftRunArgs) -> Result<()> {
    use forcebench::drafting as model;
    let mut opts = model::DraftRunOptions::new(&a.name, &a.base_url, &a.model);
    opts.template = a.template;
    opts.api_key_env = a.api_key_env;
    opts.api = a.api.parse().map_err(Error::InvalidArgument)?;
    opts.temperature = a.temperature;
    opts.max_tokens = (a.max_tokens > 0).then_some(a.max_tokens);
    opts.cap_field = a.cap_field;
    opts.no_temperature = a.no_temperature;
    opts.extra = forcebench::evaluate::providers::parse_extra(&a.extra)?;
    let limit = a.limit;
    opts.limit = limit;
    opts.timeout = std::time::Duration::from_secs(a.timeout);
    opts.max_attempts = a.attempts;
    opts.retry_wait = std::time::Duration::from_millis(a.retry_wait_ms);
    model::check_options(&opts)?;
    let mut p = open(project)?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let s = model::run(&mut p, &opts, &mut |_, _| {}, &cancel)?;
    if a.json {
        return print_json(&s);
    }
    println!(
        "drafting run {} ({}, prompt {} sha256 {}…): {} context(s); {} answered before, {} now, {} drafted",
        s.name,
        s.model,
        s.prompt_source,
        &s.prompt_sha256[..12],
        s.requests,
        s.answered_before,
        s.answered_now,
        s.drafted
    );
    for (id, why) in &s.unusable {
        println!("  {id}: no draft from the answer (kept as it came): {why}");
    }
    for (id, why) in &s.failures {
        println!("  {id}: not answered: {why}");
    }
    if !s.skipped.is_empty() {
        println!("  not sent (drafted or decided since the run began): {}", s.skipped.join(", "));
    }
    if s.unanswered > 0 && limit.is_some() {
        println!("  {} kept context(s) still wait (--limit); run the same command again to go on", s.unanswered);
    } else if s.unanswered > 0 {
        return Err(Error::Unfinished(format!(
            "{} kept context(s) of this run are still unanswered; run the same command again to resume",
            s.unanswered
        )));
    }
    Ok(())
}

fn reason(text: &str) -> Result<ExclusionReason> {
    text.parse().map_err(|e| Error::InvalidArgument(format!("--reason: {e}")))
}

pub(super) fn contexts_cmd(project: Option<&Path>, cmd: ContextsCommand) -> Result<()> {
    match cmd {
        ContextsCommand::Import { file, json } => {
            let mut p = open(project)?;
            let report = with_progress(&file, |progress| contexts::import_file(&mut p, &file, progress))?;
            if json {
                return print_json(&report);
            }
            println!("{}", report.summary().replace("row", "context"));
            Ok(())
        }
        ContextsCommand::List { stage, json } => {
            let p = open(project)?;
            let stage = stage.map(|s| s.trim().to_string());
            let rows = contexts::list(&p)?;
            const STAGES: [&str; 6] = ["unscreened", "dropped", "kept", "drafted", "promoted", "excluded"];
            if let Some(s) = &stage {
                if !STAGES.contains(&s.as_str()) {
                    return Err(Error::InvalidArgument(format!(
                        "--stage: `{s}` is not a stage; expected one of {}",
                        STAGES.join(", ")
                    )));
                }
            }
            let rows: Vec<_> =
                rows.into_iter().filter(|r| stage.as_deref().is_none_or(|s| stage_name(r.stage) == s)).collect();
            if json {
                return print_json(&rows);
            }
            for r in &rows {
                let why =
                    r.excluded_for.or(r.screening.as_ref().and_then(|s| s.reason)).map_or("", ExclusionReason::as_str);
                println!(
                    "{:<14} {:<10} {:<24} {:<14} {}",
                    r.id,
                    stage_name(r.stage),
                    why,
                    r.source_dataset,
                    shorten(&r.context, 60)
                );
            }
            if rows.is_empty() {
                println!(
                    "no contexts{}",
                    if stage.is_some() {
                        " at this stage"
                    } else {
                        " (import some with `forcebench contexts import FILE`)"
                    }
                );
            }
            Ok(())
        }
        ContextsCommand::Show { id, json } => {
            let p = open(project)?;
            let row = contexts::get(&p, &id)?;
            let screenings = contexts::screenings(&p, &id)?;
            let drafts = draft::history(&p, &id)?;
            if json {
                return print_json(&serde_json::json!({ "context": row, "screenings": screenings, "drafts": drafts }));
            }
            println!("id        {}", row.id);
            println!("source    {} {}", row.source_dataset, row.source_id);
            println!("group     {}", row.group_id.as_deref().unwrap_or("(its own id)"));
            println!("stage     {}", stage_name(row.stage));
            println!("context   {}", row.context);
            println!("passage   {}", row.passage);
            for s in &screenings {
                println!(
                    "screened  {} {}{}{} by {}",
                    s.at,
                    s.decision.as_str(),
                    s.reason.map_or(String::new(), |r| format!(" ({})", r.as_str())),
                    s.note.as_deref().map_or(String::new(), |n| format!(": {n}")),
                    s.by
                );
            }
            for d in &drafts {
                println!("draft v{} {} {} by {}", d.version, d.created_at, d.origin.as_str(), d.author);
            }
            Ok(())
        }
        ContextsCommand::Screen { id, decision, reason: why, note, by, json } => {
            let mut p = open(project)?;
            let decision: ScreenDecision = decision.parse().map_err(Error::InvalidArgument)?;
            let why = why.as_deref().map(reason).transpose()?;
            let report = contexts::screen(&mut p, &id, decision, why, note.as_deref(), &by)?;
            if json {
                return print_json(&report);
            }
            let what = match decision {
                ScreenDecision::Keep => "kept".to_string(),
                ScreenDecision::Drop => format!("dropped ({})", why.map_or("", ExclusionReason::as_str)),
            };
            if report.changed {
                println!("context {}: {what}", report.context.id);
            } else {
                println!("context {}: already {what}; nothing changed", report.context.id);
            }
            Ok(())
        }
        ContextsCommand::Counts { json } => {
            let p = open(project)?;
            let counts = contexts::accounting(p.conn())?;
            if json {
                return print_json(&counts);
            }
            let Some(c) = counts else {
                println!("no contexts in this project (import some with `forcebench contexts import FILE`)");
                return Ok(());
            };
            print_counts(&c);
            Ok(())
        }
    }
}

/// The funnel before candidacy, then the counts per source.
pub(super) fn print_counts(c: &contexts::ContextCounts) {
    println!("before candidacy");
    for (step, n) in contexts::funnel_lines(c) {
        println!("  {step:<32} {n:>6}");
    }
    println!("  by source                        imported   kept dropped drafted excluded promoted");
    for (source, s) in &c.by_source {
        println!(
            "    {source:<30} {:>8} {:>6} {:>7} {:>7} {:>8} {:>8}",
            s.imported, s.kept, s.dropped, s.drafted, s.excluded, s.promoted
        );
    }
}

/// The suggestions followed through, as `draft uptake` and `agreement` print them: each field's
/// kept and edited counts beside their shares, over all annotations, then per drafter and per
/// construction family; the annotations left out because their suggestions were hidden are
/// counted in the first line.
pub(super) fn print_uptake(r: &forcebench::contexts::uptake::UptakeReport) {
    use forcebench::contexts::uptake::Uptake;
    println!(
        "{} finished annotation(s) compared with the suggestions they started from; {} made with suggestions hidden left out",
        r.annotations, r.hidden
    );
    if r.by_field.is_empty() {
        println!("  no suggested field to compare yet (no finished annotation of a row with suggestions)");
        return;
    }
    let share = |n: u64, rate: Option<f64>| rate.map_or(format!("{n}"), |x| format!("{n} ({:.1}%)", x * 100.0));
    let line = |key: &str, field: &str, u: &Uptake| {
        println!(
            "  {key:<18} {field:<17} kept {:<14} edited {:<14} of {}",
            share(u.accepted, u.acceptance_rate),
            share(u.edited, u.edit_rate),
            u.compared
        );
    };
    for (f, u) in &r.by_field {
        line("all", f, u);
    }
    for (title, table) in [("by drafter", &r.by_drafter), ("by construction family", &r.by_family)] {
        println!("suggestions {title}");
        for (key, fields) in table {
            for (f, u) in fields {
                line(key, f, u);
            }
        }
    }
}

pub(super) fn draft_cmd(project: Option<&Path>, cmd: DraftCommand) -> Result<()> {
    match cmd {
        DraftCommand::Set { id, field, value, by, json } => {
            let mut p = open(project)?;
            let report = draft::set(&mut p, &id, &field, &value, &by)?;
            if json {
                return print_json(&report);
            }
            let d = &report.draft;
            if report.changed {
                println!("draft {} v{} ({}): {field} set", d.context_id, d.version, d.origin.as_str());
            } else {
                println!("draft {} v{}: {field} already holds this value; nothing changed", d.context_id, d.version);
            }
            Ok(())
        }
        DraftCommand::List { json } => {
            let p = open(project)?;
            let rows = draft::list(&p)?;
            if json {
                return print_json(&rows);
            }
            for r in &rows {
                let ready = match (r.stage, r.problems.len()) {
                    (contexts::ContextStage::Drafted, 0) => "ready to promote".to_string(),
                    (contexts::ContextStage::Drafted, n) => format!("{n} problem(s): {}", r.problems[0]),
                    (contexts::ContextStage::Excluded, _) => {
                        r.excluded_for.map_or("", ExclusionReason::as_str).to_string()
                    }
                    _ => String::new(),
                };
                println!(
                    "{:<14} v{:<3} {:<13} {:<9} {}",
                    r.draft.context_id,
                    r.draft.version,
                    r.draft.origin.as_str(),
                    stage_name(r.stage),
                    ready
                );
            }
            if rows.is_empty() {
                println!("no drafts yet (write one with `forcebench draft set ID FIELD VALUE`)");
            }
            Ok(())
        }
        DraftCommand::Show { id, json } => {
            let p = open(project)?;
            let drafts = draft::history(&p, &id)?;
            if json {
                return print_json(&drafts);
            }
            if drafts.is_empty() {
                println!("context {id} has no draft yet");
            }
            for d in &drafts {
                println!(
                    "v{} {} {} by {}{}",
                    d.version,
                    d.created_at,
                    d.origin.as_str(),
                    d.author,
                    d.run.as_deref().map_or(String::new(), |r| format!(" (run {r})"))
                );
                let f = &d.fields;
                for (name, v) in [
                    ("evidence_span", &f.evidence_span),
                    ("calibrated_claim", &f.calibrated_claim),
                    ("raised_claim", &f.raised_claim),
                    ("repair", &f.repair),
                    ("rationale", &f.rationale),
                    ("axis", &f.axis),
                    ("severity", &f.severity),
                ] {
                    println!("  {name:<17} {}", v.as_deref().unwrap_or("-"));
                }
            }
            Ok(())
        }
        DraftCommand::Promote { ids, all, by, json } => {
            let mut p = open(project)?;
            let report = draft::promote(&mut p, &ids, all, &by)?;
            if json {
                return print_json(&report);
            }
            let n = report.promoted.len();
            if n == 0 {
                println!("no drafts wait for promotion; nothing changed");
            } else {
                println!("promoted {n} draft(s) into the candidate pool: {}", report.promoted.join(", "));
                if !report.already_candidates.is_empty() {
                    println!(
                        "({} of them were already candidates with the same content: {})",
                        report.already_candidates.len(),
                        report.already_candidates.join(", ")
                    );
                }
            }
            Ok(())
        }
        DraftCommand::Run(args) => draft_run(project, args),
        DraftCommand::Uptake { json } => {
            let p = open(project)?;
            let r = forcebench::contexts::uptake::uptake(&p)?;
            if json {
                return print_json(&r);
            }
            print_uptake(&r);
            Ok(())
        }
        DraftCommand::Prompt => {
            print!("{}", forcebench::drafting::DRAFTING_PROMPT);
            Ok(())
        }
        DraftCommand::Exclude { id, reason: why, note, by, json } => {
            let mut p = open(project)?;
            let why = reason(&why)?;
            let row = draft::exclude(&mut p, &id, why, note.as_deref(), &by)?;
            if json {
                return print_json(&row);
            }
            println!(
                "draft {} v{}: excluded before candidacy ({})",
                row.draft.context_id,
                row.draft.version,
                why.as_str()
            );
            Ok(())
        }
    }
}
