// The evaluation view's commands: compare, the model × prompt grid, paired comparisons, import
// scores, baselines, plots, and a judge's requests and responses as files. (The helpers the
// view formats with are in ../evaluate.ts; running a judge is in ./judging.ts.)
import type { AgreementPaired } from "../../bindings/AgreementPaired";
import type { BatteryReport } from "../../bindings/BatteryReport";
import type { EvaluatorReport } from "../../bindings/EvaluatorReport";
import type { FamilyReport } from "../../bindings/FamilyReport";
import type { PairedReport } from "../../bindings/PairedReport";
import type { JudgeImport } from "../../bindings/shell/JudgeImport";
import type { PlotsSvg } from "../../bindings/shell/PlotsSvg";
import { call } from "./call";

export type { AgreementPaired, BatteryReport, FamilyReport, JudgeImport, PairedReport, PlotsSvg };

export const evaluationCompare = () => call<EvaluatorReport[]>("evaluation_compare");
/** MVR and FS per construction family for every stored evaluator, with the core's shortcut audit. */
export const evaluationFamilies = () => call<FamilyReport>("evaluation_families");
/** The model × prompt grid of the evaluators stored as `<model>@<template>`, pooled per prompt. */
export const evaluationGrid = () => call<BatteryReport>("evaluation_grid");
/** Two evaluators (or two panels of as many members) compared unit by unit on the same pairs. */
export const evaluationPaired = (a: string[], b: string[]) => call<PairedReport>("evaluation_paired", { a, b });
/** Two evaluators' kappa and AC1 with the adjudicated labels, and A − B with paired intervals. */
export const evaluationAgreementPaired = (a: string, b: string) => call<AgreementPaired>("evaluation_agreement_paired", { a, b });
/** Removes a stored evaluator with the judge runs stored under its name; answers how many runs. */
export const evaluatorRemove = (name: string) => call<number>("evaluator_remove", { name });
export const importScores = (path: string, name: string, map: string) => call<EvaluatorReport>("import_scores", { path, name, map });
export const runBaselines = () => call<EvaluatorReport[]>("run_baselines");
export const evaluationPlotsSvg = () => call<PlotsSvg>("evaluation_plots_svg");
export const exportPlots = (dir: string) => call<string[]>("export_plots", { dir });
/** Writes one request per claim of the locked split to `out`; answers how many. */
export const judgeExport = (template: string, out: string, seed: number) => call<number>("judge_export", { template, out, seed });
export const judgeImport = (path: string, name: string, map: string) => call<JudgeImport>("judge_import", { path, name, map });
