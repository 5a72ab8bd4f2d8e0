//! The paper's judge design in one step: every model × prompt run as a judge on the locked split
//! (each cell an ordinary, resumable `judge run` stored as evaluator `<model>@<template>`), then
//! pooled per prompt over the models (the "model aggregate"), and written as a report folder:
//! Table 2 (baselines and the pooled judges under the generic and force-aware prompts), Table 3
//! (the prompt ablation), and Figures 2 (MVR against FS), 3 (per model × prompt MVR) and 4 (MVR per
//! axis), as CSV, JSON and SVG.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use ts_rs::TS;

use super::panel::{self, PanelReport};
use super::runner::{self, RunOptions, RunProgress, RunSummary};
use super::{compare, EvaluatorReport, Metrics};
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
}

/// One prompt pooled over the models that have scores under it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PooledPrompt {
    pub template: String,
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
    check_lists(models, templates)?;
    let judged = if templates.iter().any(|t| t == "force_aware") { "force_aware" } else { templates[0].as_str() };
    let mut jobs: Vec<(String, String, String, runner::Control)> = Vec::new();
    for m in models {
        for t in templates {
            jobs.push((cell_name(m, t), m.clone(), t.clone(), runner::Control::None));
        }
        for c in controls {
            let template = if *c == runner::Control::Order { "pairwise" } else { judged };
            jobs.push((cell_name(m, judged), m.clone(), template.to_string(), *c));
        }
    }
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for (name, model, template, control) in jobs {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let mut o = base.clone();
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

fn check_lists(models: &[String], templates: &[String]) -> Result<()> {
    if models.is_empty() || templates.is_empty() {
        return Err(Error::InvalidArgument("a battery needs at least one model and one template".into()));
    }
    if let Some(t) = templates.iter().find(|t| t.as_str() == "pairwise") {
        return Err(Error::InvalidArgument(format!(
            "`{t}` is the order control's template; ask for it with --controls order"
        )));
    }
    Ok(())
}

/// The report over what is stored: each cell's scores, each prompt pooled over the models scored
/// under it, and the baselines.
pub fn report(project: &Project, models: &[String], templates: &[String]) -> Result<BatteryReport> {
    check_lists(models, templates)?;
    let stored = compare(project, Some(panel::DEFAULT_BOOTSTRAP))?;
    let find = |name: &str| stored.iter().find(|r| r.name == name);
    let mut cells = Vec::new();
    for m in models {
        for t in templates {
            let evaluator = cell_name(m, t);
            let metrics = find(&evaluator).map(|r| r.overall.clone());
            cells.push(Cell { model: m.clone(), template: t.clone(), evaluator, metrics });
        }
    }
    let mut pooled = Vec::new();
    for t in templates {
        let members: Vec<String> =
            cells.iter().filter(|c| &c.template == t && c.metrics.is_some()).map(|c| c.evaluator.clone()).collect();
        if !members.is_empty() {
            pooled.push(PooledPrompt {
                template: t.clone(),
                panel: panel::panel(project, &members, Some(panel::DEFAULT_BOOTSTRAP))?,
            });
        }
    }
    let baselines = stored.into_iter().filter(|r| r.name.starts_with("baseline:")).collect();
    Ok(BatteryReport { models: models.to_vec(), templates: templates.to_vec(), cells, pooled, baselines })
}

/// The grid of what is stored: every evaluator named `<model>@<template>` on the locked split,
/// models and templates in name order (the ablation's prompts first, in the paper's order).
pub fn stored(project: &Project) -> Result<BatteryReport> {
    let names: Vec<String> = compare(project, None)?.into_iter().map(|r| r.name).collect();
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
    if models.is_empty() {
        let baselines = compare(project, Some(panel::DEFAULT_BOOTSTRAP))?
            .into_iter()
            .filter(|r| r.name.starts_with("baseline:"))
            .collect();
        return Ok(BatteryReport { models, templates, cells: Vec::new(), pooled: Vec::new(), baselines });
    }
    report(project, &models, &templates)
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
            let c = crate::output::inert_cell(c);
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
    pub mvr: Option<f64>,
    pub mvr_ci95: Option<[f64; 2]>,
    pub fs: Option<f64>,
    pub fs_ci95: Option<[f64; 2]>,
}

impl BatteryReport {
    fn pooled_row(&self, p: &PooledPrompt) -> TableRow {
        TableRow {
            evaluator: "Model aggregate".into(),
            prompt: prompt_title(&p.template).to_string(),
            violations: p.panel.overall.violations,
            units: p.panel.overall.units,
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
                mvr: b.overall.mvr,
                mvr_ci95: b.overall.mvr_ci95,
                fs: b.overall.fs,
                fs_ci95: b.overall.fs_ci95,
            })
            .collect();
        for t in ["generic", "force_aware"] {
            if let Some(p) = self.pooled.iter().find(|p| p.template == t) {
                rows.push(self.pooled_row(p));
            }
        }
        rows
    }

    /// Table 3: every prompt pooled, in the paper's order first, then any other prompt given.
    pub fn table3(&self) -> Vec<TableRow> {
        let mut order: Vec<&PooledPrompt> =
            super::judge::ABLATION.iter().filter_map(|t| self.pooled.iter().find(|p| p.template == *t)).collect();
        order.extend(self.pooled.iter().filter(|p| !super::judge::ABLATION.contains(&p.template.as_str())));
        order.into_iter().map(|p| self.pooled_row(p)).collect()
    }

    fn table_csv(rows: &[TableRow]) -> String {
        let mut s = csv_line(
            &["evaluator", "prompt", "violations", "units", "mvr", "mvr_low", "mvr_high", "fs", "fs_low", "fs_high"]
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
        let mut s = csv_line(&["model", "prompt", "evaluator", "pairs", "violations", "mvr", "fs"].map(String::from));
        for c in &self.cells {
            let m = c.metrics.as_ref();
            s += &csv_line(&[
                c.model.clone(),
                c.template.clone(),
                c.evaluator.clone(),
                m.map_or(String::new(), |m| m.n_pairs.to_string()),
                m.map_or(String::new(), |m| m.violations.to_string()),
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
                esc(prompt_title(t))
            );
        }
        s + "</svg>\n"
    }

    /// Evaluator rows for Figures 2 and 4: the baselines and each pooled prompt.
    fn plotted(&self) -> Vec<EvaluatorReport> {
        let mut rows = self.baselines.clone();
        for p in &self.pooled {
            rows.push(p.panel.as_report(&format!("aggregate · {}", prompt_title(&p.template))));
        }
        rows
    }

    /// The files of the report folder and their contents.
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let plotted = self.plotted();
        Ok(vec![
            ("report.json".into(), pretty(self)?),
            ("table2.csv".into(), Self::table_csv(&self.table2()).into_bytes()),
            ("table2.json".into(), pretty(&self.table2())?),
            ("table3.csv".into(), Self::table_csv(&self.table3()).into_bytes()),
            ("table3.json".into(), pretty(&self.table3())?),
            ("figure2_mvr_fs.svg".into(), super::plots::scatter_svg(&plotted).into_bytes()),
            ("figure3_grid.csv".into(), self.grid_csv().into_bytes()),
            ("figure3_grid.svg".into(), self.grid_svg().into_bytes()),
            ("figure4_mvr_by_axis.svg".into(), super::plots::heatmap_svg(&plotted).into_bytes()),
            // Per construction family: every plotted row's MVR and FS, and the shortcut audit.
            ("families.json".into(), pretty(&super::family::family_report(&plotted))?),
        ])
    }

    /// Writes the report folder; existing files are replaced only with `force`, and every target
    /// is checked before any is written.
    pub fn write(&self, dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
        let files = self.files()?;
        for (name, _) in &files {
            crate::output::check_target(&dir.join(name), force)?;
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut out = Vec::new();
        for (name, bytes) in files {
            let path = dir.join(name);
            crate::output::write_file(&path, &bytes, force)?;
            out.push(path);
        }
        Ok(out)
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
