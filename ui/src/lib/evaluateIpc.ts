// The evaluation view's commands (compare, import scores, baselines, plots, export, an LLM
// judge's requests and responses), typed,
// failing with the same `IpcError` as every other command in ./ipc; and the small pure helpers
// the view formats with.
import type { EvaluatorReport } from "../bindings/EvaluatorReport";
import type { Metrics } from "../bindings/Metrics";
import type { ResponseStats } from "../bindings/ResponseStats";
import { Channel } from "@tauri-apps/api/core";
import type { JudgeParams } from "../bindings/shell/JudgeParams";
import type { TemplateInfo } from "../bindings/shell/TemplateInfo";
import type { RunProgress } from "../bindings/RunProgress";
import type { RunSummary } from "../bindings/RunSummary";
import type { TrustReport } from "../bindings/TrustReport";
import { IpcError, call } from "./ipc";

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

/**
 * The judge templates that ship with ForceBench (the core's `judge::TEMPLATES`), with the label
 * map their answers are read with. A path to a template file works too.
 */
export const JUDGE_TEMPLATES = [
  { name: "generic", map: "generic", about: "Asks whether the passage supports the claim (five support labels)." },
  { name: "force_aware", map: "force", about: "Explains force gaps and names the pair's axis." },
  { name: "axis_free", map: "force", about: "Explains force gaps without naming an axis." },
  { name: "dummy_axis", map: "force", about: "Control: as force_aware, but names a wrong axis." },
] as const;

/** What reading a judge's responses gave (as `forcebench judge import --json`). */
export interface JudgeImport {
  report: EvaluatorReport;
  parsing: ResponseStats;
}

/** Writes one request per claim of the locked split to `out`; answers how many. */
export const judgeExport = (template: string, out: string, seed: number) => call<number>("judge_export", { template, out, seed });
export const judgeImport = (path: string, name: string, map: string) => call<JudgeImport>("judge_import", { path, name, map });

/** The templates that ship with the core, with the label map each is read with. */
export const judgeTemplates = () => call<TemplateInfo[]>("judge_templates");
/** Runs (or resumes) a judge against an endpoint; `onprogress` hears after each answer. */
export function judgeRun(params: JudgeParams, onprogress: (p: RunProgress) => void): Promise<RunSummary> {
  const onProgress = new Channel<RunProgress>(onprogress);
  return call<RunSummary>("judge_run", { params, onProgress });
}
/** Asks the running judge to stop; its answers so far are kept and a later run resumes. */
export const judgeCancel = () => call<boolean>("judge_cancel");
export const judgeTrust = (name: string) => call<TrustReport>("judge_trust", { name });

/** The label map a template's answers are read with ("generic" for a template file). */
export function mapForTemplate(template: string): string {
  return JUDGE_TEMPLATES.find((t) => t.name === template)?.map ?? "generic";
}

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

/** `<project folder>/<project stem><suffix>`: a path beside the project, named after it. */
export function besideProject(projectPath: string, suffix: string): string {
  const cut = Math.max(projectPath.lastIndexOf("/"), projectPath.lastIndexOf("\\"));
  const stem = projectPath.slice(cut + 1).replace(/\.forcebench$/, "") || "project";
  return `${projectPath.slice(0, cut + 1)}${stem}${suffix}`;
}

/** `<project folder>/<project stem>-plots`: where export suggests writing the plots. */
export const defaultPlotsDir = (projectPath: string) => besideProject(projectPath, "-plots");

/** `<project folder>/<project stem>-judge-requests.jsonl`: where the judge's requests go by default. */
export const defaultJudgeRequests = (projectPath: string) => besideProject(projectPath, "-judge-requests.jsonl");

/** True for the core's "no locked split" refusals, which the view shows as its empty state. */
export function needsLockedSplit(error: IpcError): boolean {
  return error.code === "no_locked_split";
}
