//! TypeScript bindings for the types that cross to the UI, generated with ts-rs into
//! `ui/src/bindings/`. The test `bindings::generated_files_are_current` fails when the committed
//! files are stale; run it with `FORCEBENCH_UPDATE_BINDINGS=1` to rewrite them. To expose a new
//! type to the UI, derive `TS` on it and add it to [`export_all_to`].

use std::path::Path;
use ts_rs::{ExportError, TS};

/// Writes every UI-facing type (and the types they use) as `<Name>.ts` files into `dir`.
pub fn export_all_to(dir: &Path) -> Result<(), ExportError> {
    crate::error::ErrorPayload::export_all_to(dir)?;
    crate::project::ProjectInfo::export_all_to(dir)?;
    crate::candidate::CandidateSummary::export_all_to(dir)?;
    crate::candidate::CandidateDetail::export_all_to(dir)?;
    crate::candidate::CandidateQuery::export_all_to(dir)?;
    crate::candidate::CandidatePage::export_all_to(dir)?;
    crate::status::StatusReport::export_all_to(dir)?;
    crate::import::ImportReport::export_all_to(dir)?;
    crate::import::ImportRefusal::export_all_to(dir)?;
    crate::contexts::ContextRow::export_all_to(dir)?;
    crate::contexts::ContextScreenReport::export_all_to(dir)?;
    crate::contexts::ContextCounts::export_all_to(dir)?;
    crate::contexts::draft::DraftRow::export_all_to(dir)?;
    crate::contexts::draft::DraftSetReport::export_all_to(dir)?;
    crate::contexts::draft::DraftPromoteReport::export_all_to(dir)?;
    crate::drafting::DraftRunSummary::export_all_to(dir)?;
    crate::drafting::SuggestionRecord::export_all_to(dir)?;
    crate::contexts::uptake::UptakeReport::export_all_to(dir)?;
    crate::assign::AssignReport::export_all_to(dir)?;
    crate::vocab::Decision::export_all_to(dir)?;
    crate::vocab::BoundaryType::export_all_to(dir)?;
    crate::roster::Annotator::export_all_to(dir)?;
    crate::annotate::Annotation::export_all_to(dir)?;
    crate::annotate::QueueRow::export_all_to(dir)?;
    crate::annotate::QueueQuery::export_all_to(dir)?;
    crate::annotate::QueuePage::export_all_to(dir)?;
    crate::annotate::AnnotateRow::export_all_to(dir)?;
    crate::packets::IssuedPacket::export_all_to(dir)?;
    crate::annotate::AnnotationEvent::export_all_to(dir)?;
    crate::annotate::Field::export_all_to(dir)?;
    crate::packets::MergeReport::export_all_to(dir)?;
    crate::packets::PacketAtLock::export_all_to(dir)?;
    crate::packets::Blinding::export_all_to(dir)?;
    crate::settings::SuggestionMode::export_all_to(dir)?;
    crate::agreement::ProjectAgreement::export_all_to(dir)?;
    crate::agreement::ConfusionTable::export_all_to(dir)?;
    crate::agreement::CellRow::export_all_to(dir)?;
    crate::adjudicate::RowView::export_all_to(dir)?;
    crate::adjudicate::Queue::export_all_to(dir)?;
    crate::adjudicate::QueueFilter::export_all_to(dir)?;
    crate::adjudicate::AdjudicationQuery::export_all_to(dir)?;
    crate::adjudicate::AdjudicationPage::export_all_to(dir)?;
    crate::adjudicate::Resolution::export_all_to(dir)?;
    crate::adjudicate::AdjudicationImportReport::export_all_to(dir)?;
    crate::qc::QcReport::export_all_to(dir)?;
    crate::adjudicate::AffirmReport::export_all_to(dir)?;
    crate::adjudicate::Reopening::export_all_to(dir)?;
    crate::guideline::InForce::export_all_to(dir)?;
    crate::guideline::VersionSummary::export_all_to(dir)?;
    crate::feedback::Feedback::export_all_to(dir)?;
    crate::feedback::IssuedFeedback::export_all_to(dir)?;
    crate::evaluate::runner::RunProgress::export_all_to(dir)?;
    crate::evaluate::runner::RunSummary::export_all_to(dir)?;
    crate::evaluate::runner::RunRecord::export_all_to(dir)?;
    crate::evaluate::trust::TrustReport::export_all_to(dir)?;
    crate::evaluate::battery::BatteryReport::export_all_to(dir)?;
    crate::evaluate::battery::TableRow::export_all_to(dir)?;
    crate::evaluate::panel::PairedReport::export_all_to(dir)?;
    crate::evaluate::family::FamilyReport::export_all_to(dir)?;
    crate::evaluate::agreement_paired::AgreementPaired::export_all_to(dir)?;
    crate::evaluate::judge::Answer::export_all_to(dir)?;
    crate::locality::AuditRow::export_all_to(dir)?;
    crate::locality::Keep::export_all_to(dir)?;
    crate::split::SplitShow::export_all_to(dir)?;
    crate::split::SplitParams::export_all_to(dir)?;
    crate::split::ExportReport::export_all_to(dir)?;
    crate::split::VerifyReport::export_all_to(dir)?;
    crate::evaluate::EvaluatorReport::export_all_to(dir)?;
    crate::evaluate::Metrics::export_all_to(dir)?;
    crate::evaluate::MissingPair::export_all_to(dir)?;
    crate::evaluate::judge::ResponseStats::export_all_to(dir)?;
    Ok(())
}
