// The agreement view's state and what it does, without a DOM: the report, the cell of a matrix
// chosen with the rows behind it and the row opened in full, and export of the report.
// AgreementView.svelte and its parts (AgreementHeadline, AgreementCellPane, AgreementExport)
// only render it; the unit tests drive it in node through fake commands
// (tests/unit/agreementView.test.mjs).
import type { CandidateDetail } from "../bindings/CandidateDetail";
import type { CellRow } from "../bindings/CellRow";
import type { ConfusionTable } from "../bindings/ConfusionTable";
import type { PairReport } from "../bindings/PairReport";
import type { ProjectAgreement } from "../bindings/ProjectAgreement";
import { categoryName, defaultExportStem, exportPath, prevalenceNote, reading } from "../lib/agreement";
import { agreementCellRows, agreementReport, exportAgreement, type ExportFormat } from "../lib/ipc/agreement";
import { IpcError } from "../lib/ipc/call";
import { getCandidate } from "../lib/ipc/candidates";

/** The commands the agreement view calls (the shell's, unless a test gives its own). */
export interface AgreementCommands {
  agreementReport(): Promise<ProjectAgreement>;
  agreementCellRows(table: ConfusionTable, row: number, col: number): Promise<CellRow[]>;
  getCandidate(id: string): Promise<CandidateDetail>;
  exportAgreement(path: string, format: ExportFormat): Promise<string>;
}

export const shellAgreementCommands: AgreementCommands = { agreementReport, agreementCellRows, getCandidate, exportAgreement };

/** A chosen cell: its table, row and column, how many rows it holds and the two labels' names. */
export type Picked = { table: ConfusionTable; row: number; col: number; count: number; a: string; b: string };

export class AgreementViewState {
  report = $state.raw<ProjectAgreement | null>(null);
  loadError = $state.raw<IpcError | null>(null);

  picked = $state.raw<Picked | null>(null);
  cellRows = $state.raw<CellRow[] | null>(null);
  cellError = $state.raw<IpcError | null>(null);
  openId = $state<string | null>(null);
  detail = $state.raw<CandidateDetail | null>(null);
  detailError = $state.raw<IpcError | null>(null);

  exportTo = $state("");
  exporting = $state(false);
  exported = $state.raw<{ path: string; format: ExportFormat } | null>(null);
  exportError = $state.raw<IpcError | null>(null);

  /** Rows with two finished annotations. */
  readonly n = $derived(this.report?.n_items ?? 0);
  /** κ in plain words; the interval read on Fisher's z scale where the core gives it. */
  readonly words = $derived(this.report ? reading(this.report.cohen_kappa, this.report.kappa_interval?.ci95 ?? this.report.kappa_ci95) : null);
  readonly paradox = $derived(this.report ? prevalenceNote(this.report) : null);
  /** Some breakdown group is under 30 rows (the view warns how little κ says there). */
  readonly smallGroups = $derived(
    this.report ? [...this.report.by_source, ...this.report.by_suggested_axis, ...this.report.by_pair].some((g) => g.n_items < 30) : false,
  );
  /** The fields the per-annotator table shows, in the order the core reports them. */
  readonly annotatorFields = $derived([...new Set((this.report?.by_annotator ?? []).flatMap((a) => Object.keys(a.per_field)))]);

  private readonly ipc: AgreementCommands;

  constructor(projectPath: string, ipc: AgreementCommands = shellAgreementCommands) {
    this.exportTo = defaultExportStem(projectPath);
    this.ipc = ipc;
  }

  /** Reads the report (on opening, and again after a change here or elsewhere). */
  async reload(): Promise<void> {
    try {
      this.report = await this.ipc.agreementReport();
      this.loadError = null;
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
  }

  private pairOf(table: ConfusionTable): PairReport | null {
    const report = this.report;
    if (!report) return null;
    if (table === "accept_vs_not") return report.accept_vs_not;
    if (table === "axis_when_both_accept") return report.axis_when_both_accept;
    return report;
  }

  /** Chooses a cell and lists its rows; a later choice wins over an earlier one still loading. */
  async pick(table: ConfusionTable, row: number, col: number, count: number): Promise<void> {
    const pair = this.pairOf(table);
    if (!pair) return;
    const next = { table, row, col, count, a: categoryName(pair.labels[row]), b: categoryName(pair.labels[col]) };
    this.picked = next;
    [this.cellRows, this.cellError, this.openId, this.detail, this.detailError] = [null, null, null, null, null];
    if (count === 0) {
      this.cellRows = [];
      return;
    }
    try {
      const rows = await this.ipc.agreementCellRows(table, row, col);
      if (this.picked === next) this.cellRows = rows;
    } catch (e) {
      if (this.picked === next) this.cellError = IpcError.from(e);
    }
  }

  /** Opens a row of the chosen cell in full; a later row wins over an earlier one still loading. */
  async openRow(id: string): Promise<void> {
    this.openId = id;
    [this.detail, this.detailError] = [null, null];
    try {
      const d = await this.ipc.getCandidate(id);
      if (this.openId === id) this.detail = d;
    } catch (e) {
      if (this.openId === id) this.detailError = IpcError.from(e);
    }
  }

  /** Writes the report. A blank path is sent too: the shell's refusal says what to type. */
  async exportReport(format: ExportFormat): Promise<void> {
    const path = exportPath(this.exportTo, format);
    this.exporting = true;
    [this.exported, this.exportError] = [null, null];
    try {
      this.exported = { path: await this.ipc.exportAgreement(path, format), format };
    } catch (e) {
      this.exportError = IpcError.from(e);
    } finally {
      this.exporting = false;
    }
  }
}
