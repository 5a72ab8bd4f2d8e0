// The agreement view's commands.
import type { CellRow } from "../../bindings/CellRow";
import type { ConfusionTable } from "../../bindings/ConfusionTable";
import type { ProjectAgreement } from "../../bindings/ProjectAgreement";
import { call } from "./call";

export type ExportFormat = "csv" | "json";

export const agreementReport = () => call<ProjectAgreement>("agreement_report");
export const agreementCellRows = (table: ConfusionTable, row: number, col: number) =>
  call<CellRow[]>("agreement_cell_rows", { table, row, col });
/** Writes the report; answers with the absolute path written. */
export const exportAgreement = (path: string, format: ExportFormat) =>
  call<string>("export_agreement", { path, format });
