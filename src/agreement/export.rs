//! The project agreement report as a file: JSON (the report as serialized, the same as
//! `forcebench agreement --json`) or a long-format CSV with the columns
//! `section,statistic,key,value`, one value per line, so a spreadsheet or a script can pick any
//! number without knowing the report's shape.
//!
//! CSV sections, in order: `decision` (the three-label decision, with Krippendorff's alpha and
//! Fleiss' kappa over the same labels), `accept_vs_not`, `axis_when_both_accept`, `severity`,
//! `span`, `calibrated_claim_edits`, `raised_claim_edits`, `by_source`, `by_suggested_axis`,
//! `by_pair`, `by_suggestion_mode`, `by_guideline_version`, `by_week`, then the suggestions
//! followed through: `suggestion_uptake` (`annotations` and `hidden` counts, then `compared`,
//! `accepted`, `edited`, `acceptance_rate`, `edit_rate` keyed by field),
//! `suggestion_uptake_by_drafter` and `suggestion_uptake_by_family` (the same five keyed
//! `drafter|field`, `family|field`). A pair section has one line per statistic (empty key), one `confusion` line per
//! cell keyed `A label|B label` (rows of the matrix: the annotator first on the roster), and one
//! `note` line per sentence saying why a statistic is missing, and one `advice` line per
//! sentence on reading the figures. A breakdown section keys each
//! line by its group (`n_items`, `percent_agreement`, `cohen_kappa`, `kappa_ci95_low`,
//! `kappa_ci95_high`, `kappa_preferred_ci95_low`, `kappa_preferred_ci95_high`,
//! `plain_interval_under_covers`). Every interval is written as `X_se`,
//! `X_ci95_low`, `X_ci95_high` and `X_method` (see docs/agreement-intervals.md); the interval to read beside a plain one is `X_read` (`gwet_ac1_read`, `krippendorff_alpha_read`, `fleiss_kappa_read`, `quadratic_weighted_kappa_read`, `krippendorff_alpha_ordinal_read`). A statistic that is undefined for the data has an empty value, never NaN.
//! A key or text value beginning with `=`, `+`, `-`, `@`, tab, carriage return or a single quote
//! gets a single quote in front, so a spreadsheet never runs it as a formula.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::stats::{Interval, IntervalMethod};
use super::{Breakdown, PairReport, ProjectAgreement};
use crate::error::{Error, Result};
use crate::output::inert_cell;

/// The file formats of an exported report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Json,
}

impl std::str::FromStr for ExportFormat {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(ExportFormat::Csv),
            "json" => Ok(ExportFormat::Json),
            other => Err(Error::InvalidArgument(format!("export format `{other}` is not csv or json"))),
        }
    }
}

/// The CSV header.
pub const CSV_COLUMNS: [&str; 4] = ["section", "statistic", "key", "value"];

/// A value cell: integers as integers, reals with every digit Rust needs to round-trip them,
/// undefined values empty.
fn real(v: Option<f64>) -> String {
    v.map_or_else(String::new, |x| x.to_string())
}

struct Lines<W: Write>(csv::Writer<W>);

impl<W: Write> Lines<W> {
    /// One line; the key and a value that is not a number are made inert for spreadsheets
    /// (a note or a source name could begin with `=`), numbers are written as they are (a
    /// negative kappa stays a number).
    fn line(&mut self, section: &str, statistic: &str, key: &str, value: &str) -> Result<()> {
        let value = if value.parse::<f64>().is_ok() { value.into() } else { inert_cell(value) };
        self.0.write_record([section, statistic, &inert_cell(key), &value]).map_err(csv_error)
    }
    fn real(&mut self, section: &str, statistic: &str, v: Option<f64>) -> Result<()> {
        self.line(section, statistic, "", &real(v))
    }
    fn count(&mut self, section: &str, statistic: &str, n: u64) -> Result<()> {
        self.line(section, statistic, "", &n.to_string())
    }
    fn interval(&mut self, section: &str, statistic: &str, ci: Option<[f64; 2]>) -> Result<()> {
        self.real(section, &format!("{statistic}_low"), ci.map(|c| c[0]))?;
        self.real(section, &format!("{statistic}_high"), ci.map(|c| c[1]))
    }
    /// An [`Interval`] as `{statistic}_se`, `_ci95_low`, `_ci95_high` and `_method` lines.
    fn full(&mut self, section: &str, statistic: &str, i: Option<&Interval>) -> Result<()> {
        self.real(section, &format!("{statistic}_se"), i.and_then(|i| i.se))?;
        self.interval(section, &format!("{statistic}_ci95"), i.map(|i| i.ci95))?;
        self.line(section, &format!("{statistic}_method"), "", i.map_or("", |i| method_name(i.method)))
    }
    fn pair(&mut self, section: &str, p: &PairReport) -> Result<()> {
        let k = &p.kappa;
        self.count(section, "n_items", k.n_items)?;
        self.real(section, "percent_agreement", k.percent_agreement)?;
        self.real(section, "chance_agreement", k.chance_agreement)?;
        self.real(section, "cohen_kappa", k.cohen_kappa)?;
        self.real(section, "kappa_se", k.kappa_se)?;
        self.interval(section, "kappa_ci95", k.kappa_ci95)?;
        self.interval(section, "bootstrap_ci95", p.bootstrap_ci95)?;
        self.real(section, "pabak", k.pabak)?;
        self.real(section, "gwet_ac1", k.gwet_ac1)?;
        // The interval to read for kappa, AC1's and PABAK's, and the paradox indices.
        self.full(section, "kappa_preferred", p.kappa_interval.as_ref())?;
        self.full(section, "gwet_ac1", k.gwet_ac1_interval.as_ref())?;
        self.full(section, "gwet_ac1_read", k.gwet_ac1_read_interval.as_ref())?;
        self.full(section, "pabak", k.pabak_interval.as_ref())?;
        self.real(section, "prevalence_index", k.prevalence_index)?;
        self.real(section, "bias_index", k.bias_index)?;
        for (i, a) in p.labels.iter().enumerate() {
            for (j, b) in p.labels.iter().enumerate() {
                let n = p.confusion.get(i).and_then(|r| r.get(j)).copied().unwrap_or(0);
                self.line(section, "confusion", &format!("{a}|{b}"), &n.to_string())?;
            }
        }
        for note in &p.notes {
            self.line(section, "note", "", note)?;
        }
        for sentence in &p.advice {
            self.line(section, "advice", "", sentence)?;
        }
        Ok(())
    }
    fn breakdown(&mut self, section: &str, groups: &[Breakdown]) -> Result<()> {
        for g in groups {
            self.line(section, "n_items", &g.key, &g.n_items.to_string())?;
            self.line(section, "percent_agreement", &g.key, &real(g.percent_agreement))?;
            self.line(section, "cohen_kappa", &g.key, &real(g.cohen_kappa))?;
            self.line(section, "kappa_ci95_low", &g.key, &real(g.kappa_ci95.map(|ci| ci[0])))?;
            self.line(section, "kappa_ci95_high", &g.key, &real(g.kappa_ci95.map(|ci| ci[1])))?;
            let preferred = g.kappa_interval.as_ref().map(|i| i.ci95);
            self.line(section, "kappa_preferred_ci95_low", &g.key, &real(preferred.map(|ci| ci[0])))?;
            self.line(section, "kappa_preferred_ci95_high", &g.key, &real(preferred.map(|ci| ci[1])))?;
            self.line(
                section,
                "plain_interval_under_covers",
                &g.key,
                if g.plain_interval_under_covers { "1" } else { "0" },
            )?;
        }
        Ok(())
    }
}

impl<W: Write> Lines<W> {
    /// The suggestions followed through (see [`crate::contexts::uptake`]): the counts overall,
    /// then one line per statistic and field keyed by the field, and the same per drafter and per
    /// construction family keyed `drafter|field` and `family|field`. A report with no uptake
    /// (one read from a labels file) says so in a `note` line.
    fn uptake(&mut self, u: Option<&crate::contexts::uptake::UptakeReport>) -> Result<()> {
        let Some(u) = u else {
            return self.line(
                UPTAKE,
                "note",
                "",
                "not computed: this report was not made from a project's annotations, so no suggestion was compared",
            );
        };
        self.count(UPTAKE, "annotations", u.annotations)?;
        self.count(UPTAKE, "hidden", u.hidden)?;
        if u.by_field.is_empty() {
            self.line(
                UPTAKE,
                "note",
                "",
                "no finished annotation was made with a suggestion shown, so none is compared",
            )?;
        }
        for (field, x) in &u.by_field {
            self.uptake_lines(UPTAKE, field, x)?;
        }
        for (section, table) in [(UPTAKE_BY_DRAFTER, &u.by_drafter), (UPTAKE_BY_FAMILY, &u.by_family)] {
            for (group, fields) in table {
                for (field, x) in fields {
                    self.uptake_lines(section, &format!("{group}|{field}"), x)?;
                }
            }
        }
        Ok(())
    }
    fn uptake_lines(&mut self, section: &str, key: &str, x: &crate::contexts::uptake::Uptake) -> Result<()> {
        self.line(section, "compared", key, &x.compared.to_string())?;
        self.line(section, "accepted", key, &x.accepted.to_string())?;
        self.line(section, "edited", key, &x.edited.to_string())?;
        self.line(section, "acceptance_rate", key, &real(x.acceptance_rate))?;
        self.line(section, "edit_rate", key, &real(x.edit_rate))
    }
}

/// The sections of the suggestions followed through.
const UPTAKE: &str = "suggestion_uptake";
const UPTAKE_BY_DRAFTER: &str = "suggestion_uptake_by_drafter";
const UPTAKE_BY_FAMILY: &str = "suggestion_uptake_by_family";

/// The method's name as in the JSON report.
pub fn method_name(m: IntervalMethod) -> &'static str {
    match m {
        IntervalMethod::FleissCohenEveritt => "fleiss_cohen_everitt",
        IntervalMethod::FisherZ => "fisher_z",
        IntervalMethod::Gwet => "gwet",
        IntervalMethod::Wilson => "wilson",
        IntervalMethod::BootstrapPercentile => "bootstrap_percentile",
        IntervalMethod::NoDisagreementBound => "no_disagreement_bound",
    }
}

fn csv_error(e: csv::Error) -> Error {
    Error::Internal(format!("could not write the CSV report: {e}"))
}

/// The report in long format (see the module documentation), header first.
pub fn to_csv(report: &ProjectAgreement) -> Result<String> {
    let mut out = Lines(csv::Writer::from_writer(Vec::new()));
    out.0.write_record(CSV_COLUMNS).map_err(csv_error)?;
    out.pair("decision", &report.decision)?;
    out.real("decision", "krippendorff_alpha", report.krippendorff_alpha)?;
    out.real("decision", "fleiss_kappa", report.fleiss_kappa)?;
    out.full("decision", "krippendorff_alpha", report.krippendorff_alpha_interval.as_ref())?;
    out.full("decision", "fleiss_kappa", report.fleiss_kappa_interval.as_ref())?;
    out.full("decision", "krippendorff_alpha_read", report.krippendorff_alpha_read_interval.as_ref())?;
    out.full("decision", "fleiss_kappa_read", report.fleiss_kappa_read_interval.as_ref())?;
    out.pair("accept_vs_not", &report.accept_vs_not)?;
    out.pair("axis_when_both_accept", &report.axis_when_both_accept)?;
    out.real("axis_when_both_accept", "krippendorff_alpha", report.axis_krippendorff_alpha)?;
    out.full("axis_when_both_accept", "krippendorff_alpha", report.axis_krippendorff_alpha_interval.as_ref())?;
    let axis_read = report.axis_krippendorff_alpha_read_interval.as_ref();
    out.full("axis_when_both_accept", "krippendorff_alpha_read", axis_read)?;
    out.count("severity", "n_items", report.severity_n_items)?;
    out.real("severity", "quadratic_weighted_kappa", report.severity_weighted_kappa)?;
    out.full("severity", "quadratic_weighted_kappa", report.severity_weighted_kappa_interval.as_ref())?;
    out.real("severity", "krippendorff_alpha_ordinal", report.severity_krippendorff_alpha)?;
    out.full("severity", "krippendorff_alpha_ordinal", report.severity_krippendorff_alpha_interval.as_ref())?;
    let read = report.severity_weighted_kappa_read_interval.as_ref();
    out.full("severity", "quadratic_weighted_kappa_read", read)?;
    let read = report.severity_krippendorff_alpha_read_interval.as_ref();
    out.full("severity", "krippendorff_alpha_ordinal_read", read)?;
    out.count("span", "n_items", report.span.n_items)?;
    out.real("span", "exact_match_rate", report.span.exact_match_rate)?;
    out.real("span", "mean_token_f1", report.span.mean_token_f1)?;
    out.full("span", "exact_match_rate", report.span.exact_match_interval.as_ref())?;
    out.full("span", "mean_token_f1", report.span.mean_token_f1_interval.as_ref())?;
    for (section, e) in
        [("calibrated_claim_edits", &report.calibrated_claim_edits), ("raised_claim_edits", &report.raised_claim_edits)]
    {
        out.count(section, "both_kept", e.both_kept)?;
        out.count(section, "one_changed", e.one_changed)?;
        out.count(section, "both_changed", e.both_changed)?;
    }
    out.breakdown("by_source", &report.by_source)?;
    out.breakdown("by_suggested_axis", &report.by_suggested_axis)?;
    out.breakdown("by_pair", &report.by_pair)?;
    out.breakdown("by_suggestion_mode", &report.by_suggestion_mode)?;
    out.breakdown("by_guideline_version", &report.by_guideline_version)?;
    out.breakdown("by_week", &report.by_week)?;
    out.uptake(report.suggestion_uptake.as_ref())?;
    let bytes = out.0.into_inner().map_err(|e| Error::Internal(format!("could not write the CSV report: {e}")))?;
    Ok(String::from_utf8(bytes).expect("the CSV writer is given UTF-8 only"))
}

/// The report as pretty-printed JSON (the same keys as `forcebench agreement --json`).
pub fn to_json(report: &ProjectAgreement) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("the report serializes");
    s.push('\n');
    s
}

/// Writes the report to `path` in `format` atomically ([`crate::output::write_file`]), so the
/// file is either the old one or the whole new one; a ForceBench project is never replaced.
/// Returns the absolute path.
pub fn write_report(report: &ProjectAgreement, path: &Path, format: ExportFormat) -> Result<PathBuf> {
    if path.as_os_str().is_empty() {
        return Err(Error::InvalidArgument("type the path of the file to write the report to".into()));
    }
    let path = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
    if path.is_dir() {
        return Err(Error::BadOutputPath(format!("{} is a folder; type a file name for the report", path.display())));
    }
    if let Some(folder) = path.parent().filter(|f| !f.is_dir()) {
        let why = if folder.exists() { "is not a folder" } else { "does not exist; create it or choose another" };
        return Err(Error::BadOutputPath(format!("{}: the folder {} {why}", path.display(), folder.display())));
    }
    let bytes = match format {
        ExportFormat::Csv => to_csv(report)?,
        ExportFormat::Json => to_json(report),
    };
    // The desktop app names the file to write: an existing one is replaced, a project never.
    crate::output::write_file(&path, bytes.as_bytes(), true)?;
    Ok(path)
}
