// The small pure helpers the evaluation view formats with (its commands are in ./ipc/evaluation.ts
// and ./ipc/judging.ts).
import type { BatteryReport } from "../bindings/BatteryReport";
import type { EvaluatorReport } from "../bindings/EvaluatorReport";
import type { Metrics } from "../bindings/Metrics";
import type { IpcError } from "./ipc/call";

/**
 * What each shipped template asks, in a line (wording only: the list of templates and the label
 * map each is read with come from the core through `judgeTemplates`).
 */
const TEMPLATE_ABOUT: Record<string, string> = {
  generic: "Asks whether the passage supports the claim (five support labels, a confidence, a rationale).",
  force_aware: "Lists the five force axes; the judge decides whether the claim exceeds the passage and names the primary axis itself.",
  axis_free: "Control: the same warrant-strength question with no taxonomy and no axis words.",
  dummy_axis: "Control: a citation judge told to attend to irrelevant rubric dimensions (authority, clarity, placement, completeness, fluency).",
  pairwise: "Both claims in one prompt: which one the passage licenses better (for the order control).",
};

/** A line about a template the core lists; a template the UI has no words for says its map. */
export function templateAbout(t: { name: string; map: string }): string {
  return TEMPLATE_ABOUT[t.name] ?? `Answers read with the ${t.map} label map.`;
}

/** The label map a template's answers are read with ("generic" for a template file, as the core). */
export function mapForTemplate(templates: { name: string; map: string }[], template: string): string {
  return templates.find((t) => t.name === template)?.map ?? "generic";
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

/** One side of a comparison picked in the grid: a cell (one evaluator) or a prompt's column (its
 *  panel, members in the grid's model order). */
export type GridPick = { label: string; members: string[] };

/** The pick for a cell, or for a whole prompt column (the models scored under it, in order). */
export function gridPick(grid: BatteryReport, template: string, model?: string): GridPick {
  if (model !== undefined) return { label: `${model} · ${template}`, members: [`${model}@${template}`] };
  // A column is the prompt's pool: only the cells the core pooled (complete, not leaky).
  const members = grid.cells.filter((c) => c.template === template && c.metrics && !c.left_out).map((c) => c.evaluator);
  return { label: `all models · ${template}`, members };
}

/** "p = 0.0312", or "p < 0.0001". */
export function fmtP(p: number): string {
  return p < 0.0001 ? "p < 0.0001" : `p = ${p.toFixed(4)}`;
}

/** A cell's completeness in words: "" when every request was answered, else what is missing. */
export function completenessNote(c: { requests: number; answered: number; unusable: number; unanswered: number } | null): string {
  if (!c || c.unanswered === 0) return "";
  return `${c.unanswered} of ${c.requests} requests never answered`;
}

/** A scored cell's completeness under its MVR: how many of its requests were answered (unusable
 *  answers among them counted apart), and whether none is missing. Null without scores. */
export function completenessLine(
  c: { requests: number; answered: number; unusable: number; unanswered: number } | null,
): { text: string; complete: boolean } | null {
  if (!c) return null;
  const got = c.answered + c.unusable;
  const text = `${got}/${c.requests} answered${c.unusable ? `, ${c.unusable} unusable` : ""}`;
  return { text, complete: c.unanswered === 0 };
}
