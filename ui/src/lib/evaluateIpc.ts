// The evaluation view's commands (compare, import scores, baselines, plots, export), typed,
// failing with the same `IpcError` as every other command in ./ipc; and the small pure helpers
// the view formats with.
import { invoke } from "@tauri-apps/api/core";
import type { EvaluatorReport } from "../bindings/EvaluatorReport";
import type { Metrics } from "../bindings/Metrics";
import { IpcError } from "./ipc";

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (cause) {
    throw IpcError.from(cause);
  }
}

/** The two plots exactly as the core draws (and exports) them. */
export interface PlotsSvg {
  scatter: string;
  heatmap: string;
}

/** The label maps the core knows by name (a JSON file path works too). */
export const LABEL_MAPS = ["generic", "force", "audit"] as const;

export const evaluationCompare = () => call<EvaluatorReport[]>("evaluation_compare");
export const importScores = (path: string, name: string, map: string) => call<EvaluatorReport>("import_scores", { path, name, map });
export const runBaselines = () => call<EvaluatorReport[]>("run_baselines");
export const evaluationPlotsSvg = () => call<PlotsSvg>("evaluation_plots_svg");
export const exportPlots = (dir: string) => call<string[]>("export_plots", { dir });

/** A metric to three decimals, or an em dash when there is none (no pairs). */
export function fmt(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(3) : "—";
}

/** "0.030–0.242", or "" without an interval. */
export function fmtCi(ci: [number, number] | null | undefined): string {
  return ci && Number.isFinite(ci[0]) && Number.isFinite(ci[1]) ? `${ci[0].toFixed(3)}–${ci[1].toFixed(3)}` : "";
}

export type SortKey = "mvr" | "fs" | "name";

/** Reports sorted best first: MVR ascending (ties by FS), FS descending, or by name; no metric last. */
export function sortReports(reports: EvaluatorReport[], key: SortKey): EvaluatorReport[] {
  const val = (m: Metrics, k: "mvr" | "fs") => m[k] ?? null;
  return [...reports].sort((a, b) => {
    if (key === "name") return a.name.localeCompare(b.name);
    const [x, y] = [val(a, key), val(b, key)];
    if (x === null || y === null) return x === y ? a.name.localeCompare(b.name) : x === null ? 1 : -1;
    const d = key === "mvr" ? x - y : y - x;
    if (d !== 0) return d;
    const [fa, fb] = [a.fs ?? -Infinity, b.fs ?? -Infinity];
    return fb - fa || a.name.localeCompare(b.name);
  });
}

/** `<project folder>/<project stem>-plots`: where export suggests writing the plots. */
export function defaultPlotsDir(projectPath: string): string {
  const cut = Math.max(projectPath.lastIndexOf("/"), projectPath.lastIndexOf("\\"));
  const stem = projectPath.slice(cut + 1).replace(/\.forcebench$/, "") || "project";
  return `${projectPath.slice(0, cut + 1)}${stem}-plots`;
}

/** True for the core's "no locked split" refusals, which the view shows as its empty state. */
export function needsLockedSplit(error: IpcError): boolean {
  return /locked split|lock one first|split lock/.test(error.message);
}
