//! Plots of evaluator reports, as SVG (written by hand, no plotting library) and PNG (the SVG
//! rendered by resvg): MVR against FS, one point per evaluator, and a per-axis MVR heatmap.

use super::EvaluatorReport;
use crate::error::{Error, Result};
use crate::vocab::Axis;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const FONT: &str = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

/// MVR (x, 0 to 1, lower is better) against FS (y, -1 to 1, higher is better).
pub fn scatter_svg(reports: &[EvaluatorReport]) -> String {
    let (w, h) = (640.0, 440.0);
    let (left, right, top, bottom) = (70.0, 190.0, 40.0, 60.0);
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
    let colours = ["#1b6ca8", "#d1495b", "#2e8b57", "#e09f3e", "#6a4c93", "#00798c", "#8c564b", "#555555"];
    for (i, r) in reports.iter().enumerate() {
        let (Some(m), Some(f)) = (r.overall.mvr, r.overall.fs) else { continue };
        let c = colours[i % colours.len()];
        s += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"6\" fill=\"{c}\" fill-opacity=\"0.85\" stroke=\"white\"/>\n",
            x(m),
            y(f)
        );
        let ly = top + 10.0 + 20.0 * i as f64;
        s += &format!("<circle cx=\"{:.1}\" cy=\"{ly:.1}\" r=\"5\" fill=\"{c}\"/>\n", left + pw + 16.0);
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            left + pw + 26.0,
            ly + 4.0,
            esc(r.name.strip_prefix("baseline:").unwrap_or(&r.name))
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
    crate::output::check_out_folder(dir)?; // issue 29: never through a symbolic link
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
