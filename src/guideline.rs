//! The annotation guideline, written by the team in its own words (`docs/guideline.md`). The app
//! shows it one keystroke away from the annotate view; `forcebench guideline` prints it.

/// The guideline as Markdown: `#`/`##` headings, `-` bullets, numbered steps, paragraphs.
pub const GUIDELINE: &str = include_str!("../docs/guideline.md");
