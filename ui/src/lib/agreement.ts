// How agreement numbers read in the UI: fixed decimals with a true minus sign, percentages,
// intervals, the Landis & Koch (1977) bands and a plain-words reading of kappa with its interval,
// and names for the categories of each confusion matrix. A missing value is never printed as
// NaN or null: callers show an em dash and say why.
import type { ConfusionTable } from "../bindings/ConfusionTable";

export const DASH = "—";

/** `x` with `digits` decimals and a real minus sign; an em dash when missing. */
export function num(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH;
  const s = x.toFixed(digits);
  // -0.00 reads as 0.00.
  if (/^-0\.?0*$/.test(s)) return s.slice(1);
  return s.startsWith("-") ? `−${s.slice(1)}` : s;
}

/** A share as a percentage, with one decimal unless it is whole. */
export function pct(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return DASH;
  const p = x * 100;
  const s = Math.abs(p - Math.round(p)) < 0.05 ? Math.round(p).toFixed(0) : p.toFixed(1);
  return `${s}%`;
}

/** "0.70–0.86", or "−0.12 to 0.30" when a bound is negative (a dash beside a minus misleads). */
export function interval(ci: [number, number] | null | undefined, digits = 2): string {
  if (!ci) return DASH;
  const [lo, hi] = [num(ci[0], digits), num(ci[1], digits)];
  return ci[0] < 0 || ci[1] < 0 ? `${lo} to ${hi}` : `${lo}–${hi}`;
}

export type Band = "poor" | "slight" | "fair" | "moderate" | "substantial" | "almost perfect";

/** The Landis & Koch band of a kappa, judged on the value as shown (two decimals). */
export function band(kappa: number): Band {
  const k = Math.round(kappa * 100) / 100;
  if (k < 0) return "poor";
  if (k <= 0.2) return "slight";
  if (k <= 0.4) return "fair";
  if (k <= 0.6) return "moderate";
  if (k <= 0.8) return "substantial";
  return "almost perfect";
}

function bandWords(b: Band): string {
  return b === "poor" ? "poor (below chance)" : b;
}

/**
 * Kappa in plain words, e.g. "κ = 0.78 (95% CI 0.70–0.86): substantial agreement; the interval
 * spans substantial to almost perfect". Null when kappa is undefined (the report's notes say why).
 */
export function reading(kappa: number | null, ci: [number, number] | null): string | null {
  if (kappa === null || !Number.isFinite(kappa)) return null;
  const b = band(kappa);
  const head = ci ? `κ = ${num(kappa)} (95% CI ${interval(ci)})` : `κ = ${num(kappa)}`;
  const what = b === "poor" ? "less agreement than chance" : `${b} agreement`;
  if (!ci) return `${head}: ${what}`;
  const [lo, hi] = [band(ci[0]), band(ci[1])];
  const tail =
    lo === hi ? `the whole interval lies in the ${bandWords(lo)} band` : `the interval spans ${bandWords(lo)} to ${bandWords(hi)}`;
  return `${head}: ${what}; ${tail}`;
}

const DECISION_NAMES: Record<string, string> = {
  accept_force_gap: "Accept",
  reject_not_force_gap: "Reject",
  needs_discussion: "Needs discussion",
  accept: "Accept",
  not_accept: "Not accept",
};

/** A category of a confusion matrix as the UI names it ("needs_discussion" reads "Needs discussion"). */
export function categoryName(label: string): string {
  return DECISION_NAMES[label] ?? label.charAt(0).toUpperCase() + label.slice(1).replaceAll("_", " ");
}

export const TABLE_TITLES: Record<ConfusionTable, string> = {
  decision: "Decision",
  accept_vs_not: "Accept vs not",
  axis_when_both_accept: "Axis (rows both accepted)",
};

/**
 * How strongly a heatmap cell is tinted (0 to 0.6): 0 for an empty cell, otherwise rising with
 * its share of the rows, the largest cell darkest. Capped so dark text stays readable on every
 * cell (contrast of at least 4.5:1 on both the blue and the orange).
 */
export function tint(count: number, largest: number): number {
  if (count <= 0 || largest <= 0) return 0;
  return Math.round((0.08 + 0.52 * (count / largest)) * 1000) / 1000;
}

/**
 * A note of the core as a sentence: capitalised, ending in a full stop, with `label` names read
 * as the UI names them ("every label is `accept`" reads "Every label is “Accept”").
 */
export function sentence(note: string): string {
  const named = note.replace(/`([^`]+)`/g, (_, label: string) => `“${categoryName(label)}”`);
  const s = named.charAt(0).toUpperCase() + named.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** Where the export goes by default: beside the project file, "<project>-agreement". */
export function defaultExportStem(projectPath: string): string {
  const cut = Math.max(projectPath.lastIndexOf("/"), projectPath.lastIndexOf("\\"));
  const dir = projectPath.slice(0, cut + 1);
  const stem = projectPath.slice(cut + 1).replace(/\.forcebench$/, "") || "project";
  return `${dir}${stem}-agreement`;
}

/** The path to write: as typed, with ".csv" or ".json" added when the file name has no extension. */
export function exportPath(typed: string, format: "csv" | "json"): string {
  const path = typed.trim();
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  return /\.[A-Za-z0-9]+$/.test(name) || name === "" ? path : `${path}.${format}`;
}

/**
 * When most rows share one decision, chance agreement is high and kappa reads far below the raw
 * agreement (the "kappa paradox"): say so, with the statistics that are less affected. Null
 * when this does not apply.
 */
export function prevalenceNote(r: {
  percent_agreement: number | null;
  chance_agreement: number | null;
  cohen_kappa: number | null;
  pabak: number | null;
  gwet_ac1: number | null;
}): string | null {
  const { percent_agreement: po, chance_agreement: pe, cohen_kappa: k } = r;
  if (po === null || pe === null || k === null || pe < 0.6 || po - k < 0.2) return null;
  const others = [
    r.pabak === null ? null : `PABAK (${num(r.pabak)})`,
    r.gwet_ac1 === null ? null : `Gwet's AC1 (${num(r.gwet_ac1)})`,
  ].filter((x) => x !== null);
  const tail = others.length ? `; ${others.join(" and ")} ${others.length > 1 ? "are" : "is"} less affected by this` : "";
  return `Most rows share one decision, so chance agreement is high (${pct(pe)}) and κ reads lower than the ${pct(po)} raw agreement${tail}.`;
}

/** An interval of the report as "0.70–0.86"; an em dash when there is none. */
export function ci(i: { ci95: [number, number] } | null | undefined): string {
  return i ? interval(i.ci95) : DASH;
}

const METHOD_WORDS: Record<string, string> = {
  fleiss_cohen_everitt: "± 1.96 large-sample SE (Fleiss, Cohen and Everitt 1969)",
  fisher_z: "the interval to read: made on Fisher's z scale from the coefficient's SE, with t(n − 1)",
  gwet: "Gwet's variance, t(n − 1) interval",
  wilson: "Wilson score interval of the observed agreement",
  bootstrap_percentile: "seeded percentile bootstrap over rows",
  no_disagreement_bound: "no disagreement: the 97.5% bound on the disagreement rate",
};

/** How an interval was made, in words (for a tooltip). */
export function methodWords(i: { method: string } | null | undefined): string {
  return i ? (METHOD_WORDS[i.method] ?? i.method) : "";
}
