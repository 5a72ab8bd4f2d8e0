//! The paper's judge design in one step: every model × prompt run as a judge on the locked split
//! (each cell an ordinary, resumable `judge run` stored as evaluator `<model>@<template>`), then
//! pooled per prompt over the models (the "model aggregate"), and written as a report folder:
//! Table 2 (baselines and the pooled judges under the generic and force-aware prompts), Table 3
//! (the prompt ablation), and Figures 2 (MVR against FS), 3 (per model × prompt MVR) and 4 (MVR per
//! axis), as CSV, JSON and SVG.
//!
//! Only complete, non-leaky cells enter the pooled tables and figures ([`super::fitness`]): an
//! incomplete cell is refused by name with the command that resumes it, unless the report is
//! asked to include incomplete cells, and then every table, CSV and figure counts the units left
//! out (`unanswered`) and says so in a footnote. Every input (the lists, the templates, the
//! report folder) is checked before the first request is sent.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use ts_rs::TS;

use super::panel::{self, PanelReport};
use super::runner::{self, RunOptions, RunProgress, RunSummary};
use super::{compare, Completeness, EvaluatorReport, Metrics};
use crate::error::{Error, Result};
use crate::project::Project;

/// The evaluator name of one cell of the battery.
pub fn cell_name(model: &str, template: &str) -> String {
    format!("{}@{}", model.trim(), template.trim())
}

/// One model under one prompt.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Cell {
    pub model: String,
    pub template: String,
    pub evaluator: String,
    /// `None` when the cell has no scores yet.
    pub metrics: Option<Metrics>,
    /// Its requests answered, unusable and never answered (`None` when it has no scores yet).
    pub completeness: Option<Completeness>,
    /// Why the cell is left out of the pooled figures (incomplete or leaky), if it is.
    pub left_out: Option<String>,
}

/// One prompt pooled over the models that have scores under it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PooledPrompt {
    pub template: String,
    /// The paper's prompt the template declares it stands for (what places it in the tables).
    pub prompt: Option<String>,
    pub panel: PanelReport,
}

/// Everything the report folder holds.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct BatteryReport {
    pub models: Vec<String>,
    pub templates: Vec<String>,
    pub cells: Vec<Cell>,
    pub pooled: Vec<PooledPrompt>,
    pub baselines: Vec<EvaluatorReport>,
    /// What a reader of the tables must know (units left out as never answered), one a line.
    pub footnotes: Vec<String>,
}

/// The files of the report folder, in the order written.
pub const REPORT_FILES: [&str; 11] = [
    "report.json",
    "table2.csv",
    "table2.json",
    "table3.csv",
    "table3.json",
    "figure2_mvr_fs.svg",
    "figure3_grid.csv",
    "figure3_grid.svg",
    "figure4_mvr_by_axis.svg",
    "footnotes.txt",
    "families.json",
];

/// Refuses a report folder that cannot be written (a file, a symbolic link, a device, a
/// project), or that holds report files already without `force`: checked before any request is
/// sent, so a battery never works for an answer it cannot write.
pub fn check_out(dir: &Path, force: bool) -> Result<()> {
    crate::output::check_out_folder(dir)?;
    for name in REPORT_FILES {
        crate::output::check_target(&dir.join(name), force)?;
    }
    Ok(())
}

/// What a battery run did: the summaries of the runs that finished, and each failed cell (its
/// name and control) with its error.
pub type BatteryRuns = (Vec<RunSummary>, Vec<(String, Error)>);

/// Runs every model × template (and the controls asked for, on each model's judge under the
/// `force_aware` prompt, or the first prompt given) in turn; each run resumes what an earlier one
/// left. A failing cell does not stop the others: the failures are returned beside the summaries.
pub fn run(
    project: &mut Project,
    base: &RunOptions,
    models: &[String],
    templates: &[String],
    controls: &[runner::Control],
    progress: &mut dyn FnMut(&str, &RunProgress),
    cancel: &AtomicBool,
) -> Result<BatteryRuns> {
    let profiles: Vec<RunOptions> = models
        .iter()
        .map(|m| {
            let mut o = base.clone();
            o.model = m.clone();
            o
        })
        .collect();
    run_profiles(project, &profiles, templates, controls, progress, cancel)
}

/// [`run`] with each model's own provider profile (a panel file): `profiles[i].model` is the
/// model, and everything else of the profile is sent with its cells.
pub fn run_profiles(
    project: &mut Project,
    profiles: &[RunOptions],
    templates: &[String],
    controls: &[runner::Control],
    progress: &mut dyn FnMut(&str, &RunProgress),
    cancel: &AtomicBool,
) -> Result<BatteryRuns> {
    let names: Vec<String> = profiles.iter().map(|p| p.model.clone()).collect();
    let (models, given) = &check_lists(&names, templates)?;
    // Every template is read (and checked) before the first request of any cell is sent; a cell
    // is named by the template's name, and the controls go to the one declared force-aware.
    let loaded = load(given)?;
    let judged = loaded.iter().position(|l| l.1.as_deref() == Some("force_aware")).unwrap_or(0);
    let (judged_key, judged_source) = (&loaded[judged].0, &given[judged]);
    let mut jobs: Vec<(String, String, String, runner::Control)> = Vec::new();
    for m in models {
        for ((key, _), source) in loaded.iter().zip(given) {
            jobs.push((cell_name(m, key), m.clone(), source.clone(), runner::Control::None));
        }
        for c in controls {
            let template = if *c == runner::Control::Order { "pairwise" } else { judged_source.as_str() };
            jobs.push((cell_name(m, judged_key), m.clone(), template.to_string(), *c));
        }
    }
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for (name, model, template, control) in jobs {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let at = models.iter().position(|m| *m == model).expect("a listed model");
        let mut o = profiles[at].clone();
        o.name = name.clone();
        o.model = model;
        o.template = template;
        o.control = control;
        let label = format!("{name} ({})", control.as_str());
        match runner::run(project, &o, &mut |p| progress(&label, p), cancel) {
            Ok(s) => done.push(s),
            Err(e) => failed.push((label, e)),
        }
    }
    Ok((done, failed))
}

/// The lists as the cells are named (trimmed, NFC), refused when empty, when an entry is empty,
/// or when one model or template is named twice in any spelling (composed and decomposed forms of
/// one name are one name, as evaluator names are).
pub fn check_lists(models: &[String], templates: &[String]) -> Result<(Vec<String>, Vec<String>)> {
    if models.is_empty() || templates.is_empty() {
        return Err(Error::InvalidArgument("a battery needs at least one model and one template".into()));
    }
    let keyed = |list: &[String], what: &str, flag: &str| -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::with_capacity(list.len());
        for (i, raw) in list.iter().enumerate() {
            let t = raw.trim();
            if t.is_empty() {
                return Err(Error::InvalidArgument(format!("{flag}: entry {} is empty", i + 1)));
            }
            let key = crate::input::identifier_key(what, t)?.into_owned();
            if let Some(j) = out.iter().position(|k| *k == key) {
                let same =
                    if list[j].trim() == t { String::new() } else { " (the same name in another Unicode form)".into() };
                return Err(Error::InvalidArgument(format!(
                    "{flag}: `{t}` is named twice (entries {} and {}){same}; each {what} is one cell of the battery",
                    j + 1,
                    i + 1
                )));
            }
            out.push(key);
        }
        Ok(out)
    };
    let models = keyed(models, "model", "--models")?;
    let templates = keyed(templates, "template", "--templates")?;
    if let Some(t) = templates.iter().find(|t| t.as_str() == "pairwise") {
        return Err(Error::InvalidArgument(format!(
            "`{t}` is the order control's template; ask for it with --controls order"
        )));
    }
    Ok((models, templates))
}

/// Each template given (a shipped name or a file) read and checked: its name (what its cells are
/// named by) and the paper's prompt it declares. Refused: a pairwise template (the order
/// control's), and two templates of one name (two files `x/generic.txt` and `y/generic.txt`).
fn load(given: &[String]) -> Result<Vec<(String, Option<String>)>> {
    let mut out: Vec<(String, Option<String>)> = Vec::with_capacity(given.len());
    for g in given {
        let t = super::judge::template(g)?;
        if t.is_pairwise() {
            return Err(Error::InvalidArgument(format!(
                "`{g}` is a pairwise template, the order control's; ask for it with --controls order"
            )));
        }
        let key = crate::input::identifier_key("template", &t.name)?.into_owned();
        if out.iter().any(|(k, _)| *k == key) {
            return Err(Error::InvalidArgument(format!(
                "--templates: two templates are named `{key}` (a cell is named after its template); rename one file"
            )));
        }
        out.push((key, t.prompt().map(str::to_string)));
    }
    Ok(out)
}

/// The paper's prompt a stored cell's template declares: from its judge run's stored template
/// text, else from the shipped template of that name (an imported evaluator).
fn declared_prompt(project: &Project, evaluator: &str, template: &str) -> Option<String> {
    let text: Option<String> = project
        .conn()
        .query_row(
            "SELECT r.template_text FROM judge_runs r JOIN splits s ON s.id = r.split_id
             WHERE r.name = ?1 AND r.control = 'none' ORDER BY s.version DESC LIMIT 1",
            [evaluator],
            |r| r.get(0),
        )
        .ok();
    let t = match text {
        Some(text) => super::judge::Template::parse(template, &text).ok(),
        None => super::judge::TEMPLATES
            .iter()
            .find(|t| t.0 == template)
            .and_then(|t| super::judge::Template::parse(t.0, t.1).ok()),
    };
    t.and_then(|t| t.prompt().map(str::to_string))
}

/// The report over what is stored: each cell's scores, each prompt pooled over the models scored
/// under it, and the baselines. Every cell must be stored, complete and not leaky (see the module
/// documentation); with `include_incomplete` an incomplete cell is pooled with its unanswered
/// pairs left out and counted.
pub fn report(
    project: &Project,
    models: &[String],
    templates: &[String],
    include_incomplete: bool,
) -> Result<BatteryReport> {
    let (models, given) = check_lists(models, templates)?;
    let loaded = load(&given)?;
    let templates: Vec<String> = loaded.iter().map(|l| l.0.clone()).collect();
    let stored = compare(project, Some(panel::DEFAULT_BOOTSTRAP))?;
    let names: Vec<String> = models.iter().flat_map(|m| templates.iter().map(move |t| cell_name(m, t))).collect();
    let absent: Vec<&str> =
        names.iter().filter(|n| !stored.iter().any(|r| &r.name == *n)).map(String::as_str).collect();
    if !absent.is_empty() {
        let version = stored.first().map_or(String::new(), |r| format!(" on locked split v{}", r.split_version));
        return Err(Error::NoEvaluator(format!(
            "no evaluator{version} for {} of the battery's {} cells: {}; run the battery without --no-run to judge them, or check --models and --templates (`forcebench evaluate` lists what is stored)",
            absent.len(),
            names.len(),
            absent.join(", ")
        )));
    }
    let fitness = super::fitness::check(project, &names, include_incomplete)?;
    grid(project, &models, &templates, &stored, &fitness, include_incomplete)
}

/// The cells, pools and footnotes over what is stored: a cell with a `left_out` reason in
/// `fitness` is not pooled.
fn grid(
    project: &Project,
    models: &[String],
    templates: &[String],
    stored: &[EvaluatorReport],
    fitness: &[super::fitness::Fitness],
    include_incomplete: bool,
) -> Result<BatteryReport> {
    let find = |name: &str| stored.iter().find(|r| r.name == name);
    let mut cells = Vec::new();
    for m in models {
        for t in templates {
            let evaluator = cell_name(m, t);
            let report = find(&evaluator);
            let left_out = fitness.iter().find(|f| f.name == evaluator).and_then(|f| f.refusal(include_incomplete));
            cells.push(Cell {
                model: m.clone(),
                template: t.clone(),
                metrics: report.map(|r| r.overall.clone()),
                completeness: report.map(|r| r.completeness),
                left_out,
                evaluator,
            });
        }
    }
    let mut pooled = Vec::new();
    for t in templates {
        let members: Vec<String> = cells
            .iter()
            .filter(|c| &c.template == t && c.metrics.is_some() && c.left_out.is_none())
            .map(|c| c.evaluator.clone())
            .collect();
        if !members.is_empty() {
            let prompt = declared_prompt(project, &members[0], t);
            pooled.push(PooledPrompt {
                template: t.clone(),
                prompt,
                panel: panel::panel_with(project, &members, Some(panel::DEFAULT_BOOTSTRAP), include_incomplete)?,
            });
        }
    }
    let baselines: Vec<EvaluatorReport> = stored.iter().filter(|r| r.name.starts_with("baseline:")).cloned().collect();
    let mut footnotes = Vec::new();
    let incomplete: Vec<&Cell> =
        cells.iter().filter(|c| c.left_out.is_none() && c.completeness.is_some_and(|k| !k.complete())).collect();
    if !incomplete.is_empty() {
        let units: u64 = pooled.iter().map(|p| p.panel.overall.unanswered).sum();
        let names: Vec<String> = incomplete
            .iter()
            .map(|c| {
                format!(
                    "{} ({} of {} requests)",
                    c.evaluator,
                    c.completeness.map_or(0, |k| k.unanswered),
                    c.completeness.map_or(0, |k| k.requests)
                )
            })
            .collect();
        footnotes.push(format!(
            "Incomplete evaluators were included (--include-incomplete): {}. Their {units} judge × pair unit(s) with a claim never answered are left out of the pooled figures and counted in the `unanswered` column; they are not violations.",
            names.join(", ")
        ));
    }
    let left: Vec<String> = cells.iter().filter_map(|c| c.left_out.as_ref().map(|_| c.evaluator.clone())).collect();
    if !left.is_empty() {
        footnotes.push(format!("Left out of the pooled figures (incomplete or leaky): {}.", left.join(", ")));
    }
    Ok(BatteryReport { models: models.to_vec(), templates: templates.to_vec(), cells, pooled, baselines, footnotes })
}

/// The grid of what is stored: every evaluator named `<model>@<template>` on the locked split,
/// models and templates in name order (the ablation's prompts first, in the paper's order).
pub fn stored(project: &Project) -> Result<BatteryReport> {
    let names: Vec<String> = super::stored_names(project)?;
    let (mut models, mut templates) = (Vec::<String>::new(), Vec::<String>::new());
    for n in &names {
        if let Some((m, t)) = n.rsplit_once('@').filter(|(m, t)| !m.is_empty() && !t.is_empty()) {
            if !models.iter().any(|x| x == m) {
                models.push(m.to_string());
            }
            if !templates.iter().any(|x| x == t) {
                templates.push(t.to_string());
            }
        }
    }
    models.sort();
    let rank = |t: &str| super::judge::ABLATION.iter().position(|a| *a == t).unwrap_or(usize::MAX);
    templates.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    let stored = compare(project, Some(panel::DEFAULT_BOOTSTRAP))?;
    // The grid shows every cell, and pools only the fit ones (a cell left out says why).
    let mut fitness = Vec::new();
    for m in &models {
        for t in &templates {
            if let Some(f) = super::fitness::of(project, &cell_name(m, t))? {
                fitness.push(f);
            }
        }
    }
    grid(project, &models, &templates, &stored, &fitness, false)
}

impl PooledPrompt {
    /// Its title in the tables: the paper's name for the prompt it declares, else its own name.
    pub fn title(&self) -> &str {
        match &self.prompt {
            Some(p) => prompt_title(p),
            None => &self.template,
        }
    }
}

/// How the paper names each prompt in its tables.
pub fn prompt_title(template: &str) -> &str {
    match template {
        "generic" => "Generic support",
        "force_aware" => "Axis-list force-aware",
        "axis_free" => "Minimal axis-free force",
        "dummy_axis" => "Dummy-axis control",
        other => other,
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x:.3}"))
}

fn ci(v: Option<[f64; 2]>) -> [String; 2] {
    v.map_or([String::new(), String::new()], |[a, b]| [format!("{a:.3}"), format!("{b:.3}")])
}

fn csv_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|c| {
            // The formula guard is for text: a number (a negative FS) stays a number.
            let c = if c.parse::<f64>().is_ok_and(f64::is_finite) {
                std::borrow::Cow::Borrowed(c.as_str())
            } else {
                crate::output::inert_cell(c)
            };
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.into_owned()
            }
        })
        .collect();
    quoted.join(",") + "\n"
}

/// One row of Table 2 or Table 3.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TableRow {
    pub evaluator: String,
    pub prompt: String,
    #[ts(type = "number")]
    pub violations: u64,
    /// Pairs for a baseline, judges × pairs for a pooled prompt.
    #[ts(type = "number")]
    pub units: u64,
    /// Units left out as never answered (0 unless incomplete evaluators were included).
    #[ts(type = "number")]
    pub unanswered: u64,
    pub mvr: Option<f64>,
    pub mvr_ci95: Option<[f64; 2]>,
    pub fs: Option<f64>,
    pub fs_ci95: Option<[f64; 2]>,
}

impl BatteryReport {
    fn pooled_row(&self, p: &PooledPrompt) -> TableRow {
        TableRow {
            evaluator: "Model aggregate".into(),
            prompt: p.title().to_string(),
            violations: p.panel.overall.violations,
            units: p.panel.overall.units,
            unanswered: p.panel.overall.unanswered,
            mvr: p.panel.overall.mvr,
            mvr_ci95: p.panel.overall.mvr_ci95,
            fs: p.panel.overall.fs,
            fs_ci95: p.panel.overall.fs_ci95,
        }
    }

    /// Table 2: the baselines, then the pooled judges under the generic and force-aware prompts.
    pub fn table2(&self) -> Vec<TableRow> {
        let mut rows: Vec<TableRow> = self
            .baselines
            .iter()
            .map(|b| TableRow {
                evaluator: b.name.strip_prefix("baseline:").unwrap_or(&b.name).to_string(),
                prompt: "–".into(),
                violations: b.overall.violations,
                units: b.overall.n_pairs,
                unanswered: b.overall.unanswered,
                mvr: b.overall.mvr,
                mvr_ci95: b.overall.mvr_ci95,
                fs: b.overall.fs,
                fs_ci95: b.overall.fs_ci95,
            })
            .collect();
        // The judges' rows are the prompts declared generic and force-aware, whatever their names.
        for t in ["generic", "force_aware"] {
            for p in self.pooled.iter().filter(|p| p.prompt.as_deref() == Some(t)) {
                rows.push(self.pooled_row(p));
            }
        }
        rows
    }

    /// Table 3: every prompt pooled, in the paper's order first, then any other prompt given.
    pub fn table3(&self) -> Vec<TableRow> {
        let mut order: Vec<&PooledPrompt> = super::judge::ABLATION
            .iter()
            .flat_map(|t| self.pooled.iter().filter(move |p| p.prompt.as_deref() == Some(*t)))
            .collect();
        order.extend(self.pooled.iter().filter(|p| p.prompt.is_none()));
        order.into_iter().map(|p| self.pooled_row(p)).collect()
    }

    fn table_csv(rows: &[TableRow]) -> String {
        let mut s = csv_line(
            &[
                "evaluator",
                "prompt",
                "violations",
                "units",
                "unanswered",
                "mvr",
                "mvr_low",
                "mvr_high",
                "fs",
                "fs_low",
                "fs_high",
            ]
            .map(String::from),
        );
        for r in rows {
            let [ml, mh] = ci(r.mvr_ci95);
            let [fl, fh] = ci(r.fs_ci95);
            s += &csv_line(&[
                r.evaluator.clone(),
                r.prompt.clone(),
                r.violations.to_string(),
                r.units.to_string(),
                r.unanswered.to_string(),
                num(r.mvr),
                ml,
                mh,
                num(r.fs),
                fl,
                fh,
            ]);
        }
        s
    }

    fn grid_csv(&self) -> String {
        let mut s = csv_line(
            &["model", "prompt", "evaluator", "pairs", "violations", "unanswered", "mvr", "fs"].map(String::from),
        );
        for c in &self.cells {
            let m = c.metrics.as_ref();
            s += &csv_line(&[
                c.model.clone(),
                c.template.clone(),
                c.evaluator.clone(),
                m.map_or(String::new(), |m| m.n_pairs.to_string()),
                m.map_or(String::new(), |m| m.violations.to_string()),
                m.map_or(String::new(), |m| m.unanswered.to_string()),
                num(m.and_then(|m| m.mvr)),
                num(m.and_then(|m| m.fs)),
            ]);
        }
        s
    }

    /// Figure 3: MVR per model, one bar per prompt.
    pub fn grid_svg(&self) -> String {
        const COLOURS: [&str; 6] = ["#4e79a7", "#59a14f", "#f28e2b", "#e15759", "#76b7b2", "#b07aa1"];
        let (bar, gap, left, top, ph) = (22.0, 26.0, 60.0, 50.0, 260.0);
        let group = bar * self.templates.len() as f64 + gap;
        let w = left + group * self.models.len().max(1) as f64 + 220.0;
        let h = top + ph + 90.0;
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"13\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{left}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">MVR per model and prompt (lower is better)</text>\n"
        );
        for i in 0..=5 {
            let v = i as f64 / 5.0;
            let y = top + ph * (1.0 - v);
            s += &format!(
                "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text>\n",
                w - 220.0,
                left - 6.0,
                y + 4.0
            );
        }
        for (mi, m) in self.models.iter().enumerate() {
            let x0 = left + gap / 2.0 + group * mi as f64;
            for (ti, t) in self.templates.iter().enumerate() {
                let cell = self.cells.iter().find(|c| &c.model == m && &c.template == t);
                if let Some(v) = cell.and_then(|c| c.metrics.as_ref()).and_then(|m| m.mvr) {
                    let bh = ph * v.clamp(0.0, 1.0);
                    s += &format!(
                        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{bar}\" height=\"{bh:.1}\" fill=\"{}\"><title>{} · {}: {v:.3}</title></rect>\n",
                        x0 + bar * ti as f64,
                        top + ph - bh,
                        COLOURS[ti % COLOURS.len()],
                        esc(m),
                        esc(t)
                    );
                }
            }
            s += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
                x0 + bar * self.templates.len() as f64 / 2.0,
                top + ph + 20.0,
                esc(m)
            );
        }
        for (ti, t) in self.templates.iter().enumerate() {
            let y = top + 20.0 * ti as f64;
            s += &format!(
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"14\" height=\"14\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
                w - 200.0,
                COLOURS[ti % COLOURS.len()],
                w - 180.0,
                y + 12.0,
                esc(self.pooled.iter().find(|p| &p.template == t).map_or(t.as_str(), |p| p.title()))
            );
        }
        s + "</svg>\n"
    }

    /// Evaluator rows for Figures 2 and 4: the baselines and each pooled prompt.
    fn plotted(&self) -> Vec<EvaluatorReport> {
        let mut rows = self.baselines.clone();
        for p in &self.pooled {
            rows.push(p.panel.as_report(&format!("aggregate · {}", p.title())));
        }
        rows
    }

    /// The files of the report folder and their contents.
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let plotted = self.plotted();
        let notes = |svg: String| footnoted(svg, &self.footnotes).into_bytes();
        let mut footnotes = self.footnotes.join("\n");
        if !footnotes.is_empty() {
            footnotes.push('\n');
        }
        let contents = vec![
            pretty(self)?,
            Self::table_csv(&self.table2()).into_bytes(),
            pretty(&self.table2())?,
            Self::table_csv(&self.table3()).into_bytes(),
            pretty(&self.table3())?,
            notes(super::plots::scatter_svg(&plotted)),
            self.grid_csv().into_bytes(),
            notes(self.grid_svg()),
            notes(super::plots::heatmap_svg(&plotted)),
            footnotes.into_bytes(),
            // Per construction family: every plotted row's MVR and FS, and the shortcut audit.
            pretty(&super::family::family_report(&plotted))?,
        ];
        Ok(REPORT_FILES.iter().map(|n| n.to_string()).zip(contents).collect())
    }

    /// Writes the report folder; existing files are replaced only with `force`, and every target
    /// is checked before any is written.
    pub fn write(&self, dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
        let files: Vec<(PathBuf, Vec<u8>)> =
            self.files()?.into_iter().map(|(name, bytes)| (dir.join(name), bytes)).collect();
        check_out(dir, force)?;
        // All the files or none: a report folder stopped half way would mix two runs' tables.
        crate::output::write_files(dir, &files, force)?;
        Ok(files.into_iter().map(|(path, _)| path).collect())
    }
}

/// An SVG with the footnotes written under its title (each line in small type), so a figure
/// that pools incomplete evaluators says so on its face.
fn footnoted(svg: String, notes: &[String]) -> String {
    if notes.is_empty() {
        return svg;
    }
    let lines: String = notes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!("<text x=\"8\" y=\"{}\" font-size=\"10\" fill=\"#8a1c1c\">{}</text>\n", 34 + 11 * i, esc(n))
        })
        .collect();
    match svg.rfind("</svg>") {
        Some(at) => format!("{}{lines}{}", &svg[..at], &svg[at..]),
        None => svg,
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Pretty JSON with a final newline.
fn pretty<T: Serialize>(v: &T) -> Result<Vec<u8>> {
    let mut out = serde_json::to_vec_pretty(v).map_err(|e| Error::Internal(e.to_string()))?;
    out.push(b'\n');
    Ok(out)
}
