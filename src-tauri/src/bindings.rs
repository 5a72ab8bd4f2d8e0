//! TypeScript for the shell's own types that cross to the UI (the core's are in
//! `forcebench::bindings`), generated with ts-rs into `ui/src/bindings/`. The test
//! `tests/bindings.rs` fails when the committed files are stale; run it with
//! `FORCEBENCH_UPDATE_BINDINGS=1` to rewrite them.

use std::path::Path;
use ts_rs::{ExportError, TS};

/// Writes the shell's UI-facing types (and the types they use) as `<Name>.ts` files into `dir`.
pub fn export_all_to(dir: &Path) -> Result<(), ExportError> {
    crate::project::SessionInfo::export_all_to(dir)?;
    crate::packets::ReturnedPacket::export_all_to(dir)?;
    crate::split::DraftParams::export_all_to(dir)?;
    crate::split::ExportProgress::export_all_to(dir)?;
    crate::judging::TemplateInfo::export_all_to(dir)?;
    crate::drafting::DraftRunParams::export_all_to(dir)?;
    crate::drafting::DraftProgress::export_all_to(dir)?;
    crate::drafting::DraftCatalog::export_all_to(dir)?;
    crate::judging::JudgeParams::export_all_to(dir)?;
    crate::judging::JudgeCatalog::export_all_to(dir)?;
    crate::battery::PanelRead::export_all_to(dir)?;
    crate::battery::BatteryParams::export_all_to(dir)?;
    crate::battery::BatteryStep::export_all_to(dir)?;
    crate::battery::BatteryOutcome::export_all_to(dir)?;
    crate::evaluation::PlotsSvg::export_all_to(dir)?;
    crate::evaluation::JudgeImport::export_all_to(dir)?;
    Ok(())
}
