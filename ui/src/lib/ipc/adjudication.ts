// The adjudicate view, quality control, the locality audit (the funnel is in projectStatus).
import type { AdjudicationPage } from "../../bindings/AdjudicationPage";
import type { AdjudicationQuery } from "../../bindings/AdjudicationQuery";
import type { AffirmReport } from "../../bindings/AffirmReport";
import type { AuditRow } from "../../bindings/AuditRow";
import type { Keep } from "../../bindings/Keep";
import type { Mark } from "../../bindings/Mark";
import type { QcReport } from "../../bindings/QcReport";
import type { Reopening } from "../../bindings/Reopening";
import type { Resolution } from "../../bindings/Resolution";
import type { RowView } from "../../bindings/RowView";
import { call } from "./call";

/** One page of the adjudication queue, filtered, counted and ordered by the core. */
export const adjudicationPage = (query: AdjudicationQuery) => call<AdjudicationPage>("adjudication_page", { query });
export const adjudicationRow = (id: string, hideNames: boolean) =>
  call<RowView>("adjudication_row", { id, hide_names: hideNames });
/** Durable when it answers; the row comes back with its recorded sources, history and QC. */
export const resolveRow = (id: string, adjudicator: string, resolution: Resolution, hideNames: boolean) =>
  call<RowView>("resolve_row", { id, adjudicator, resolution, hide_names: hideNames });
/** Reopens an adjudicated row so its annotators may change their labels (recorded with the reason). */
export const adjudicationReopen = (id: string, adjudicator: string, reason: string) =>
  call<Reopening>("adjudication_reopen", { id, adjudicator, reason });
/** Answers how many full agreements were confirmed. */
export const confirmAgreements = (adjudicator: string) => call<number>("confirm_agreements", { adjudicator });
/** What confirming and affirming in bulk would do (nothing is written). */
export const affirmPreview = (adjudicator: string) => call<AffirmReport>("affirm_preview", { adjudicator });
/** Confirms the open full agreements and affirms the accepted rows' promotion checks, in bulk. */
export const confirmAndAffirm = (adjudicator: string) => call<AffirmReport>("confirm_and_affirm", { adjudicator });
export const runQc = () => call<QcReport>("run_qc");
export const localityRows = () => call<AuditRow[]>("locality_rows");
export const markNonlocal = (id: string, reason: string, by: string) => call<Mark>("mark_nonlocal", { id, reason, by });
export const unmarkNonlocal = (id: string) => call<Mark>("unmark_nonlocal", { id });
/** Records that a warned row was reviewed and stays in the benchmark. */
export const localityKeep = (id: string, by: string, note: string | null) => call<Keep>("locality_keep", { id, by, note });
