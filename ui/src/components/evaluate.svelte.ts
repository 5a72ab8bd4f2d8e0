// The evaluate view's state and what it does, without a DOM: the comparison (sorted, rows opened),
// the plots, the judge catalog, and the actions (run the baselines, import scores, write an LLM
// judge's requests and read its responses, export the plots, remove an evaluator), and the grid's
// Resume, which puts an incomplete cell's stored run back in the judge runner.
// EvaluateView.svelte and ComparisonTable.svelte only render it; the unit tests drive it in node
// through fake commands (tests/unit/evaluateView.test.mjs).
import type { EvaluatorReport } from "../bindings/EvaluatorReport";
import type { RunRecord } from "../bindings/RunRecord";
import { defaultJudgeRequests, defaultPlotsDir, mapForTemplate, needsLockedSplit, sortReports, templateAbout, type SortKey } from "../lib/evaluate";
import {
  evaluationCompare,
  evaluationPlotsSvg,
  evaluatorRemove,
  exportPlots,
  importScores,
  judgeExport,
  judgeImport,
  runBaselines,
  type JudgeImport,
  type PlotsSvg,
} from "../lib/ipc/evaluation";
import { IpcError } from "../lib/ipc/call";
import { judgeRuns, judgeTemplates, type JudgeCatalog } from "../lib/ipc/judging";

/** The commands the evaluate view calls (the shell's, unless a test gives its own). */
export interface EvaluateCommands {
  evaluationCompare(): Promise<EvaluatorReport[]>;
  evaluationPlotsSvg(): Promise<PlotsSvg>;
  judgeTemplates(): Promise<JudgeCatalog>;
  runBaselines(): Promise<EvaluatorReport[]>;
  importScores(path: string, name: string, map: string): Promise<EvaluatorReport>;
  judgeExport(template: string, out: string, seed: number): Promise<number>;
  judgeImport(path: string, name: string, map: string): Promise<JudgeImport>;
  exportPlots(dir: string): Promise<string[]>;
  evaluatorRemove(name: string): Promise<number>;
  judgeRuns(): Promise<RunRecord[]>;
}

export const shellEvaluateCommands: EvaluateCommands = {
  evaluationCompare,
  evaluationPlotsSvg,
  judgeTemplates,
  runBaselines,
  importScores,
  judgeExport,
  judgeImport,
  exportPlots,
  evaluatorRemove,
  judgeRuns,
};

export class EvaluateViewState {
  reports = $state.raw<EvaluatorReport[]>([]);
  plots = $state.raw<PlotsSvg | null>(null);
  loaded = $state(false);
  loadError = $state.raw<IpcError | null>(null);
  sortKey = $state<SortKey>("mvr");
  /** The comparison rows opened to their per-axis figures, by evaluator. */
  opened = $state<Record<string, boolean>>({});

  /** The core's judge templates, label maps and run defaults. */
  catalog = $state.raw<JudgeCatalog | null>(null);
  catalogError = $state.raw<IpcError | null>(null);

  running = $state(false);
  runError = $state.raw<IpcError | null>(null);

  importPath = $state("");
  importName = $state("");
  importMap = $state<string>("generic");
  importing = $state(false);
  imported = $state.raw<EvaluatorReport | null>(null);
  importError = $state.raw<IpcError | null>(null);

  // The judge by files: a shipped template or a template file; requests out, responses back in.
  judgeTemplate = $state<string>("force_aware");
  judgeTemplateFile = $state("");
  judgeOut = $state("");
  judgeSeed = $state(1);
  judgeWriting = $state(false);
  judgeWritten = $state.raw<{ n: number; out: string } | null>(null);
  judgeWriteError = $state.raw<IpcError | null>(null);
  judgePath = $state("");
  judgeName = $state("");
  judgeMap = $state<string>("force");
  judgeReading = $state(false);
  judgeRead = $state.raw<JudgeImport | null>(null);
  judgeReadError = $state.raw<IpcError | null>(null);

  /** Removing an evaluator: asked once in its details row, then done. */
  removing = $state<string | null>(null);
  removeError = $state.raw<IpcError | null>(null);

  /** A stored run for the judge runner to put back in its form (the grid's Resume). */
  prefill = $state.raw<{ record: RunRecord; nonce: number } | null>(null);
  /** Resume found no judge run to put back (an imported evaluator), or judge_runs failed. */
  resumeMissing = $state<string | null>(null);
  resumeError = $state.raw<IpcError | null>(null);

  exportDir = $state("");
  exporting = $state(false);
  exported = $state.raw<string[] | null>(null);
  exportError = $state.raw<IpcError | null>(null);

  readonly labelMaps = $derived(this.catalog?.label_maps ?? []);
  /** The by-files judge writes one request per claim: not the pairwise templates. */
  readonly fileTemplates = $derived((this.catalog?.templates ?? []).filter((t) => !t.pairwise));
  /** "a file…" is chosen and none is typed: the command would take a blank template for the
   *  generic one, so Write waits for a file. */
  readonly noTemplateFile = $derived(this.judgeTemplate === "file" && !this.judgeTemplateFile.trim());
  readonly aboutTemplate = $derived.by(() => {
    const t = this.fileTemplates.find((t) => t.name === this.judgeTemplate);
    return t ? templateAbout(t) : this.judgeTemplate === "file" ? "Your template file: {{claim}} is required." : "";
  });
  readonly sorted = $derived(sortReports(this.reports, this.sortKey));
  /** The comparison was refused because no split is locked (the view explains, not an error). */
  readonly noSplit = $derived(this.loadError !== null && needsLockedSplit(this.loadError));
  readonly version = $derived(this.reports[0]?.split_version ?? null);
  readonly nPairs = $derived(this.reports[0]?.n_pairs ?? null);

  private readonly projectPath: () => string;
  private readonly ipc: EvaluateCommands;

  constructor(projectPath: () => string, ipc: EvaluateCommands = shellEvaluateCommands) {
    this.projectPath = projectPath;
    this.ipc = ipc;
  }

  /** On opening: the default paths beside the project, the comparison and the judge catalog. */
  async open(): Promise<void> {
    this.exportDir = defaultPlotsDir(this.projectPath());
    this.judgeOut = defaultJudgeRequests(this.projectPath());
    await Promise.all([this.refresh(), this.loadCatalog()]);
    this.loaded = true;
  }

  /** Scores every evaluator again, with the plots (on opening, after a change here or elsewhere). */
  async refresh(): Promise<void> {
    try {
      const [r, p] = await Promise.all([this.ipc.evaluationCompare(), this.ipc.evaluationPlotsSvg()]);
      [this.reports, this.plots, this.loadError] = [r, p, null];
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
  }

  private async loadCatalog(): Promise<void> {
    try {
      this.catalog = await this.ipc.judgeTemplates();
      this.judgeMap = mapForTemplate(this.catalog.templates, this.judgeTemplate);
    } catch (e) {
      this.catalogError = IpcError.from(e);
    }
  }

  sortBy(key: SortKey): void {
    this.sortKey = key;
  }

  /** The aria-sort of a column: MVR and names sort ascending, FS descending. */
  ariaSort(key: SortKey): "ascending" | "descending" | "none" {
    return this.sortKey === key ? (key === "fs" ? "descending" : "ascending") : "none";
  }

  async remove(name: string): Promise<void> {
    this.removeError = null;
    try {
      await this.ipc.evaluatorRemove(name);
      [this.removing, this.opened[name]] = [null, false];
      // A "Scored NAME" note must not outlive the evaluator it describes.
      if (this.imported?.name === name) this.imported = null;
      if (this.judgeRead?.report.name === name) this.judgeRead = null;
      await this.refresh();
    } catch (e) {
      this.removeError = IpcError.from(e);
    }
  }

  /** Puts `name`'s stored judge run (the judge itself, on the newest split) in the runner's form,
   *  so Run sends what it left unanswered with the settings it was sent with. An evaluator with no
   *  judge run (imported scores) has nothing to put back: `resumeMissing` names it. */
  async resume(name: string): Promise<void> {
    [this.resumeMissing, this.resumeError] = [null, null];
    try {
      const runs = (await this.ipc.judgeRuns()).filter((r) => r.name === name && r.control === "none");
      const record = runs.sort((a, b) => b.split_version - a.split_version)[0];
      if (record) this.prefill = { record, nonce: (this.prefill?.nonce ?? 0) + 1 };
      else this.resumeMissing = name;
    } catch (e) {
      this.resumeError = IpcError.from(e);
    }
  }

  async baselines(): Promise<void> {
    this.running = true;
    this.runError = null;
    try {
      await this.ipc.runBaselines();
      await this.refresh();
    } catch (e) {
      this.runError = IpcError.from(e);
    } finally {
      this.running = false;
    }
  }

  async importScores(): Promise<void> {
    this.importing = true;
    [this.imported, this.importError] = [null, null];
    try {
      this.imported = await this.ipc.importScores(this.importPath.trim(), this.importName.trim(), this.importMap);
      await this.refresh();
    } catch (e) {
      this.importError = IpcError.from(e);
    } finally {
      this.importing = false;
    }
  }

  /** A new template also sets the label map its answers are read with. */
  chooseTemplate(name: string): void {
    this.judgeTemplate = name;
    this.judgeMap = mapForTemplate(this.catalog?.templates ?? [], name);
  }

  /** Writes the judge's requests. Nothing is sent while "a file…" has no file (see noTemplateFile). */
  async judgeWrite(): Promise<void> {
    [this.judgeWritten, this.judgeWriteError] = [null, null];
    if (this.noTemplateFile) return;
    const template = this.judgeTemplate === "file" ? this.judgeTemplateFile.trim() : this.judgeTemplate;
    this.judgeWriting = true;
    try {
      const out = this.judgeOut.trim();
      const n = await this.ipc.judgeExport(template, out, Number.isFinite(this.judgeSeed) ? this.judgeSeed : 1);
      this.judgeWritten = { n, out };
    } catch (e) {
      this.judgeWriteError = IpcError.from(e);
    } finally {
      this.judgeWriting = false;
    }
  }

  async judgeReadBack(): Promise<void> {
    this.judgeReading = true;
    [this.judgeRead, this.judgeReadError] = [null, null];
    try {
      this.judgeRead = await this.ipc.judgeImport(this.judgePath.trim(), this.judgeName.trim(), this.judgeMap);
      await this.refresh();
    } catch (e) {
      this.judgeReadError = IpcError.from(e);
    } finally {
      this.judgeReading = false;
    }
  }

  async exportPlots(): Promise<void> {
    this.exporting = true;
    [this.exported, this.exportError] = [null, null];
    try {
      this.exported = await this.ipc.exportPlots(this.exportDir.trim());
    } catch (e) {
      this.exportError = IpcError.from(e);
    } finally {
      this.exporting = false;
    }
  }
}
