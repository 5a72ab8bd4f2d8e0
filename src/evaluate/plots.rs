//! Plots of evaluator reports, as SVG (written by hand, no plotting library) and PNG (the SVG
//! rendered by resvg): MVR against FS, one point per evaluator, and a per-axis MVR heatmap.

use super::EvaluatorReport;
use crate::error::{Error, Result};
use crate::vocab::Axis;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const FONT: &str = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

/// Twenty colours, the ten strong ones first, then their light partners (drawn with a dark edge
/// so they show on white): up to twenty evaluators each get a colour of their own.
const COLOURS: [&str; 20] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
];
/// Marker shapes, cycled beside the colours: two evaluators never share both, and a reader who
/// cannot tell two colours apart still has the shape.
const MARKERS: [&str; 5] = ["circle", "square", "triangle", "diamond", "triangle-down"];
/// Up to this many evaluators the legend is enough; beyond it colours repeat, so every point is
/// labelled with its evaluator's name too.
pub const DISTINCT: usize = COLOURS.len();

/// One marker, centred on (x, y).
fn marker(shape: &str, x: f64, y: f64, size: f64, paint: &str) -> String {
    let r = size;
    match shape {
        "square" => {
            let a = r * 0.85;
            format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" {paint}/>",
                x - a,
                y - a,
                2.0 * a,
                2.0 * a
            )
        }
        "triangle" => format!(
            "<path d=\"M{x:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z\" {paint}/>",
            y - r * 1.15,
            x + r,
            y + r * 0.75,
            x - r,
            y + r * 0.75
        ),
        "triangle-down" => format!(
            "<path d=\"M{x:.1} {:.1} L{:.1} {:.1} L{:.1} {:.1} Z\" {paint}/>",
            y + r * 1.15,
            x + r,
            y - r * 0.75,
            x - r,
            y - r * 0.75
        ),
        "diamond" => format!(
            "<path d=\"M{x:.1} {:.1} L{:.1} {y:.1} L{x:.1} {:.1} L{:.1} {y:.1} Z\" {paint}/>",
            y - r * 1.2,
            x + r * 1.2,
            y + r * 1.2,
            x - r * 1.2
        ),
        _ => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" {paint}/>"),
    }
}

/// MVR (x, 0 to 1, lower is better) against FS (y, -1 to 1, higher is better). Each evaluator
/// shown has its own colour and marker (up to [`DISTINCT`]; beyond, each point also carries its
/// name); points that coincide are spread on a small ring around their shared value, which a dot
/// marks, so none hides another; the legend lists the evaluators from the top of the plot down,
/// then those with no score to plot.
pub fn scatter_svg(reports: &[EvaluatorReport]) -> String {
    let shown: Vec<(&EvaluatorReport, f64, f64)> =
        reports.iter().filter_map(|r| Some((r, r.overall.mvr?, r.overall.fs?))).collect();
    let unplotted: Vec<&EvaluatorReport> =
        reports.iter().filter(|r| r.overall.mvr.is_none() || r.overall.fs.is_none()).collect();
    let (left, right, top, bottom) = (70.0, 190.0, 40.0, 60.0);
    let w = 640.0;
    // Taller when the legend needs it (20 px a line).
    let legend_lines = (shown.len() + unplotted.len()) as f64;
    let h = f64::max(440.0, top + 20.0 * legend_lines + 30.0 + bottom);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let x = |mvr: f64| left + mvr.clamp(0.0, 1.0) * pw;
    let y = |fs: f64| top + (1.0 - (fs.clamp(-1.0, 1.0) + 1.0) / 2.0) * ph;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" {FONT} font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"22\" font-size=\"16\" font-weight=\"bold\">Monotonicity violation rate against force sensitivity</text>\n"
    );
    // Grid and axes.
    for i in 0..=10 {
        let v = i as f64 / 10.0;
        s += &format!(
            "<line x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{1:.1}\" stroke=\"#e5e5e5\"/>\n",
            x(v),
            top + ph
        );
        if i % 2 == 0 {
            s +=
                &format!("<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{v:.1}</text>\n", x(v), top + ph + 18.0);
        }
    }
    for i in -4..=4 {
        let v = i as f64 / 4.0;
        let stroke = if i == 0 { "#999" } else { "#e5e5e5" };
        s += &format!(
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"{stroke}\"/>\n",
            y(v),
            left + pw
        );
        s += &format!("<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.2}</text>\n", left - 6.0, y(v) + 4.0);
    }
    s += &format!("<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#333\"/>\n");
    s += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">MVR (lower is better)</text>\n",
        left + pw / 2.0,
        h - 18.0
    );
    s += &format!(
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">FS (higher is better)</text>\n",
        top + ph / 2.0
    );

    // Where each point goes: points closer than a marker's width form a group, drawn on a ring
    // around the group's first point (the shared value, marked with a dot).
    const NEAR: f64 = 10.0;
    const RING: f64 = 9.0;
    let at: Vec<(f64, f64)> = shown.iter().map(|(_, m, f)| (x(*m), y(*f))).collect();
    let mut group: Vec<usize> = (0..at.len()).collect();
    for i in 0..at.len() {
        if let Some(j) = (0..i).find(|&j| group[j] == j && (at[i].0 - at[j].0).hypot(at[i].1 - at[j].1) < NEAR) {
            group[i] = j;
        }
    }
    let mut drawn = at.clone();
    let mut spread = false;
    for g in 0..at.len() {
        let members: Vec<usize> = (0..at.len()).filter(|&i| group[i] == g).collect();
        if members.len() < 2 {
            continue;
        }
        spread = true;
        let (cx, cy) = at[g];
        for (k, &i) in members.iter().enumerate() {
            let angle = std::f64::consts::TAU * k as f64 / members.len() as f64 - std::f64::consts::FRAC_PI_2;
            drawn[i] = (cx + RING * angle.cos(), cy + RING * angle.sin());
            s += &format!(
                "<line x1=\"{cx:.1}\" y1=\"{cy:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\" stroke-width=\"0.8\"/>\n",
                drawn[i].0,
                drawn[i].1
            );
        }
        s += &format!("<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"1.8\" fill=\"#222\"/>\n");
    }
    let style = |i: usize| (COLOURS[i % COLOURS.len()], MARKERS[i % MARKERS.len()]);
    let name = |r: &EvaluatorReport| esc(r.name.strip_prefix("baseline:").unwrap_or(&r.name));
    for (i, (r, ..)) in shown.iter().enumerate() {
        let (colour, shape) = style(i);
        let paint = format!("fill=\"{colour}\" stroke=\"#333\" stroke-width=\"0.8\"");
        s += &format!(
            "<g class=\"point\" data-evaluator=\"{}\" data-colour=\"{colour}\" data-marker=\"{shape}\">",
            name(r)
        );
        s += &marker(shape, drawn[i].0, drawn[i].1, 6.0, &paint);
        if shown.len() > DISTINCT {
            s += &format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{}</text>",
                drawn[i].0 + 8.0,
                drawn[i].1 - 6.0,
                name(r)
            );
        }
        s += "</g>\n";
    }
    // The legend, from the top of the plot down (ties: left to right, then by name).
    let mut order: Vec<usize> = (0..shown.len()).collect();
    order.sort_by(|&a, &b| {
        (drawn[a].1, drawn[a].0).partial_cmp(&(drawn[b].1, drawn[b].0)).unwrap_or(std::cmp::Ordering::Equal)
    });
    let lx = left + pw + 16.0;
    let mut ly = top + 10.0;
    for &i in &order {
        let (colour, shape) = style(i);
        let paint = format!("fill=\"{colour}\" stroke=\"#333\" stroke-width=\"0.8\"");
        s += &format!("<g class=\"legend\" data-evaluator=\"{}\">", name(shown[i].0));
        s += &marker(shape, lx, ly, 5.0, &paint);
        s += &format!("<text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>\n", lx + 10.0, ly + 4.0, name(shown[i].0));
        ly += 20.0;
    }
    for r in &unplotted {
        s += &format!(
            "<g class=\"legend unplotted\" data-evaluator=\"{0}\"><text x=\"{1:.1}\" y=\"{2:.1}\" fill=\"#777\">{0}: no score</text></g>\n",
            name(r),
            lx - 6.0,
            ly + 4.0
        );
        ly += 20.0;
    }
    if spread {
        s += &format!(
            "<text x=\"{left}\" y=\"{:.1}\" font-size=\"11\" fill=\"#555\">Points with the same scores are drawn on a small ring around them (the dot is the shared value).</text>\n",
            h - 4.0
        );
    }
    s + "</svg>\n"
}

/// Per-axis MVR, one row per evaluator; darker is more violations; values written in each cell.
pub fn heatmap_svg(reports: &[EvaluatorReport]) -> String {
    let (cell_w, cell_h, label_w, top) = (92.0, 30.0, 190.0, 60.0);
    let w = label_w + cell_w * Axis::ALL.len() as f64 + 20.0;
    let h = top + cell_h * reports.len().max(1) as f64 + 40.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" {FONT} font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">MVR per axis (lower is better)</text>\n"
    );
    for (j, axis) in Axis::ALL.iter().enumerate() {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"bold\">{}</text>\n",
            label_w + cell_w * (j as f64 + 0.5),
            top - 10.0,
            axis.as_str()
        );
    }
    for (i, r) in reports.iter().enumerate() {
        let yy = top + cell_h * i as f64;
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            label_w - 10.0,
            yy + cell_h / 2.0 + 4.0,
            esc(r.name.strip_prefix("baseline:").unwrap_or(&r.name))
        );
        for (j, axis) in Axis::ALL.iter().enumerate() {
            let xx = label_w + cell_w * j as f64;
            let m = r.per_axis.get(axis.as_str()).and_then(|m| m.mvr);
            let (fill, text, ink) = match m {
                Some(v) => {
                    // White (0) to deep red (1).
                    let t = v.clamp(0.0, 1.0);
                    let g = (255.0 - t * 190.0).round() as u8;
                    let b = (255.0 - t * 200.0).round() as u8;
                    (format!("rgb(255,{g},{b})"), format!("{v:.2}"), if t > 0.75 { "white" } else { "black" })
                }
                None => ("#f2f2f2".to_string(), "—".to_string(), "#666"),
            };
            s += &format!(
                "<rect x=\"{xx:.1}\" y=\"{yy:.1}\" width=\"{cell_w}\" height=\"{cell_h}\" fill=\"{fill}\" stroke=\"#d0d0d0\"/>\n\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"{ink}\">{text}</text>\n",
                xx + cell_w / 2.0,
                yy + cell_h / 2.0 + 4.0
            );
        }
    }
    if reports.is_empty() {
        s += &format!("<text x=\"10\" y=\"{:.1}\">No evaluator scored yet.</text>\n", top + 20.0);
    }
    s + "</svg>\n"
}

/// Renders an SVG to PNG at twice its size, with the system's fonts.
pub fn png(svg: &str) -> Result<Vec<u8>> {
    let mut options = resvg::usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_str(svg, &options).map_err(|e| Error::Internal(format!("plot SVG: {e}")))?;
    let size = tree.size().to_int_size().scale_by(2.0).ok_or_else(|| Error::Internal("plot size".into()))?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| Error::Internal("plot size".into()))?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(2.0, 2.0), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| Error::Internal(format!("PNG: {e}")))
}

/// The plot files [`write_all`] writes into a folder, in order.
pub const PLOT_FILES: [&str; 4] = ["mvr_fs.svg", "mvr_fs.png", "mvr_by_axis.svg", "mvr_by_axis.png"];

/// Writes `mvr_fs.svg/.png` and `mvr_by_axis.svg/.png` into `dir`; returns the paths. Existing
/// plots are replaced only with `force`; every target is checked before any is written.
pub fn write_all(reports: &[EvaluatorReport], dir: &std::path::Path, force: bool) -> Result<Vec<std::path::PathBuf>> {
    crate::output::check_out_folder(dir)?; // never through a symbolic link
    for name in PLOT_FILES {
        crate::output::check_target(&dir.join(name), force)?;
    }
    let mut files = Vec::new();
    for (name, svg) in [("mvr_fs", scatter_svg(reports)), ("mvr_by_axis", heatmap_svg(reports))] {
        let png = png(&svg)?;
        files.push((dir.join(format!("{name}.svg")), svg.into_bytes()));
        files.push((dir.join(format!("{name}.png")), png));
    }
    // All four or none.
    crate::output::write_files(dir, &files, force)?;
    Ok(files.into_iter().map(|(path, _)| path).collect())
}
