// The one door to the Rust side. Every command the UI calls is a typed function here, and every
// failure comes out as an `IpcError` carrying the core's `{code, message}`, so views can branch
// on the code and show the real message. To add a command: add a function below.
import type { Feedback } from "../bindings/Feedback";
import type { InForce } from "../bindings/InForce";
import { invoke } from "@tauri-apps/api/core";
import type { CandidateDetail } from "../bindings/CandidateDetail";
import type { CandidatePage } from "../bindings/CandidatePage";
import type { CandidateQuery } from "../bindings/CandidateQuery";
import type { ErrorPayload } from "../bindings/ErrorPayload";
import type { StatusReport } from "../bindings/StatusReport";
import type { ReturnedPacket } from "../bindings/shell/ReturnedPacket";
import type { SessionInfo } from "../bindings/shell/SessionInfo";

export class IpcError extends Error implements ErrorPayload {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "IpcError";
    this.code = code;
  }

  /** Turns whatever a failed `invoke` rejected with into an IpcError. */
  static from(cause: unknown): IpcError {
    if (cause instanceof IpcError) return cause;
    if (isPayload(cause)) return new IpcError(cause.code, cause.message);
    // Tauri itself rejects with plain strings (unknown command, denied by the ACL, ...).
    if (typeof cause === "string") return new IpcError("ipc", cause);
    if (cause instanceof Error) return new IpcError("ipc", cause.message);
    return new IpcError("ipc", String(cause));
  }
}

function isPayload(value: unknown): value is ErrorPayload {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === "string" && typeof v.message === "string";
}

/** Calls a command; a failure comes out as an `IpcError`. The one wrapper every view's commands use. */
export async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (cause) {
    throw IpcError.from(cause);
  }
}

export const projectStatus = () => call<StatusReport>("project_status");
/** A name for the project's current state: it changes when anyone changes the project. */
export const projectRevision = () => call<string>("project_revision");
/** One page of the candidate list, filtered in the core (the window never holds the whole pool). */
export const candidatePage = (query: CandidateQuery) => call<CandidatePage>("candidate_page", { query });
export const getCandidate = (id: string) => call<CandidateDetail>("get_candidate", { id });

// The annotate view, packets and the open session.
import type { AnnotateRow } from "../bindings/AnnotateRow";
import type { Annotation } from "../bindings/Annotation";
import type { Annotator } from "../bindings/Annotator";
import type { Field } from "../bindings/Field";
import type { MergeReport } from "../bindings/MergeReport";
import type { QueuePage } from "../bindings/QueuePage";
import type { QueueQuery } from "../bindings/QueueQuery";
import type { QueueRow } from "../bindings/QueueRow";

// The open project (a lead's project, or an annotator's workspace made from a packet) and a
// written return: the shell's own types, generated (ui/src/bindings/shell).
export type { SessionInfo } from "../bindings/shell/SessionInfo";
export type { ReturnedPacket } from "../bindings/shell/ReturnedPacket";

export const sessionInfo = () => call<SessionInfo>("session_info");
export const listAnnotators = () => call<Annotator[]>("list_annotators");
/** A window of an annotator's queue with its counts (the core keeps the annotator's order). */
export const annotateQueuePage = (query: QueueQuery) => call<QueuePage>("annotate_queue_page", { query });
/** The annotator's next row not finished after `after` (going round), or from the start. */
export const annotateNextOpen = (annotator: string, after: string | null) =>
  call<QueueRow | null>("annotate_next_open", { annotator, after });
export const annotateRow = (id: string, annotator: string) => call<AnnotateRow>("annotate_row", { id, annotator });
export const setField = (id: string, annotator: string, field: Field, value: string | null) =>
  call<Annotation>("set_field", { id, annotator, field, value });
export const undoChange = (id: string, annotator: string) => call<Annotation>("undo_change", { id, annotator });
export const confirmSuggestions = (id: string, annotator: string) =>
  call<Annotation>("confirm_suggestions", { id, annotator });
export const addTime = (id: string, annotator: string, seconds: number) =>
  call<null>("add_time", { id, annotator, seconds });
export const guideline = () => call<InForce>("guideline");
/** Reads a feedback file the lead wrote for an annotator. */
export const openFeedback = (path: string) => call<Feedback>("open_feedback", { path });
export const mergePackets = (paths: string[]) => call<MergeReport[]>("merge_packets", { paths });
export const returnPacket = (out: string | null) => call<ReturnedPacket>("return_packet", { out });
export const openPacket = (path: string) => call<SessionInfo>("open_packet", { path });
/** The lead's project this window left for a packet's workspace, and the way back to it. */
export const previousProject = () => call<string | null>("previous_project");
export const reopenPreviousProject = () => call<SessionInfo>("reopen_previous_project");

// The agreement view.
import type { CellRow } from "../bindings/CellRow";
import type { ConfusionTable } from "../bindings/ConfusionTable";
import type { ProjectAgreement } from "../bindings/ProjectAgreement";

export type ExportFormat = "csv" | "json";

export const agreementReport = () => call<ProjectAgreement>("agreement_report");
export const agreementCellRows = (table: ConfusionTable, row: number, col: number) =>
  call<CellRow[]>("agreement_cell_rows", { table, row, col });
/** Writes the report; answers with the absolute path written. */
export const exportAgreement = (path: string, format: ExportFormat) =>
  call<string>("export_agreement", { path, format });

// The adjudicate view, quality control, the locality audit (the funnel is in projectStatus).
import type { AuditRow } from "../bindings/AuditRow";
import type { Mark } from "../bindings/Mark";
import type { QcReport } from "../bindings/QcReport";
import type { AffirmReport } from "../bindings/AffirmReport";
import type { AdjudicationPage } from "../bindings/AdjudicationPage";
import type { AdjudicationQuery } from "../bindings/AdjudicationQuery";
import type { Resolution } from "../bindings/Resolution";
import type { RowView } from "../bindings/RowView";

/** One page of the adjudication queue, filtered, counted and ordered by the core. */
export const adjudicationPage = (query: AdjudicationQuery) => call<AdjudicationPage>("adjudication_page", { query });
export const adjudicationRow = (id: string, hideNames: boolean) =>
  call<RowView>("adjudication_row", { id, hide_names: hideNames });
/** Durable when it answers; the row comes back with its recorded sources, history and QC. */
export const resolveRow = (id: string, adjudicator: string, resolution: Resolution, hideNames: boolean) =>
  call<RowView>("resolve_row", { id, adjudicator, resolution, hide_names: hideNames });
/** Answers how many full agreements were confirmed. */
export const confirmAgreements = (adjudicator: string) => call<number>("confirm_agreements", { adjudicator });
/** Issue 28: what confirming and affirming in bulk would do (nothing is written). */
export const affirmPreview = (adjudicator: string) => call<AffirmReport>("affirm_preview", { adjudicator });
/** Issue 28: confirms the open full agreements and affirms the accepted rows' promotion checks, in bulk. */
export const confirmAndAffirm = (adjudicator: string) => call<AffirmReport>("confirm_and_affirm", { adjudicator });
export const runQc = () => call<QcReport>("run_qc");
export const localityRows = () => call<AuditRow[]>("locality_rows");
export const markNonlocal = (id: string, reason: string, by: string) => call<Mark>("mark_nonlocal", { id, reason, by });
export const unmarkNonlocal = (id: string) => call<Mark>("unmark_nonlocal", { id });

// The setup view (the lead's first steps).
import type { ImportReport } from "../bindings/ImportReport";
import type { ImportRefusal } from "../bindings/ImportRefusal";
import type { AssignReport } from "../bindings/AssignReport";
import type { IssuedPacket } from "../bindings/IssuedPacket";
import type { SuggestionMode } from "../bindings/SuggestionMode";
export type { ImportRefusal };
export async function importCandidates(path: string): Promise<ImportReport> {
  try {
    return await invoke<ImportReport>("import_candidates", { path });
  } catch (cause) {
    const c = cause as Partial<ImportRefusal>;
    if (c && typeof c === "object" && Array.isArray(c.problems)) throw cause as ImportRefusal;
    const e = IpcError.from(cause);
    throw { code: e.code, message: e.message, problems: [], conflicts: [] } satisfies ImportRefusal;
  }
}
export const rosterList = () => call<Annotator[]>("list_annotators");
export const rosterAdd = (name: string, role: string) => call<Annotator>("roster_add", { name, role });
export const assignRows = (seed: number) => call<AssignReport>("assign_rows", { seed });
export const issuePackets = (dir: string, blinding: string) => call<IssuedPacket[]>("issue_packets", { dir, blinding });
export const suggestionMode = () => call<SuggestionMode>("suggestion_mode");
export const setSuggestionMode = (mode: SuggestionMode) => call<SuggestionMode>("set_suggestion_mode", { mode });

import type { IssuedFeedback } from "../bindings/IssuedFeedback";
/** Writes one blinded feedback file per annotator with adjudicated rows into `dir` (the lead's
 *  `forcebench feedback issue`); an existing file is replaced only with `force`. */
export const issueFeedback = (dir: string, force: boolean) => call<IssuedFeedback[]>("issue_feedback", { dir, force });
