// The panel battery's state and what it does, without a DOM: a panel file chosen and read by the
// core (its models and their provider profiles, or the core's refusal naming the file, line and
// field), the prompts and the report folder, the run with its progress per cell, Cancel (the
// judge runner's: a window sends one thing at a time), and what the battery did: each cell's run,
// the cells that failed, and the report folder written, or the core's refusal to write it (an
// incomplete or leaky cell, named with how to resume it). BatteryRunner.svelte renders it; the
// unit tests drive it through fake commands (tests/unit/battery.test.mjs).
import type { BatteryOutcome, BatteryParams, BatteryStep, PanelRead } from "../lib/ipc/battery";
import { batteryPanel, batteryRun } from "../lib/ipc/battery";
import { judgeCancel } from "../lib/ipc/judging";
import { IpcError } from "../lib/ipc/call";
import { besideProject } from "../lib/evaluate";

export interface BatteryCommands {
  batteryPanel(path: string): Promise<PanelRead>;
  batteryRun(params: BatteryParams, onstep: (s: BatteryStep) => void): Promise<BatteryOutcome>;
  judgeCancel(): Promise<boolean>;
}

export const shellBatteryCommands: BatteryCommands = { batteryPanel, batteryRun, judgeCancel };

/** The paper's four prompts, what `judge battery --templates` takes when none are given. */
export const PAPER_PROMPTS = "generic, force_aware, axis_free, dummy_axis";

export class BatteryState {
  panelPath = $state("");
  /** The panel as the core read it; null until read, and again once the path is changed. */
  panel = $state.raw<PanelRead | null>(null);
  panelError = $state.raw<IpcError | null>(null);
  reading = $state(false);

  templates = $state(PAPER_PROMPTS);
  out = $state("");
  force = $state(false);
  includeIncomplete = $state(false);

  running = $state(false);
  cancelling = $state(false);
  step = $state.raw<BatteryStep | null>(null);
  outcome = $state.raw<BatteryOutcome | null>(null);
  error = $state.raw<IpcError | null>(null);

  /** Run is offered once the panel typed is the one the core read, and a folder is given. */
  readonly ready = $derived(this.panel !== null && this.panel.path === this.panelPath.trim() && this.out.trim() !== "" && !this.running);

  private readonly ipc: BatteryCommands;

  constructor(projectPath: () => string, ipc: BatteryCommands = shellBatteryCommands) {
    this.ipc = ipc;
    this.out = besideProject(projectPath(), "-battery");
  }

  /** A new path (typed or chosen): what was read for the old one no longer stands. */
  setPath(path: string): void {
    this.panelPath = path;
    if (this.panel && this.panel.path !== path.trim()) this.panel = null;
    this.panelError = null;
  }

  /** A path from the file dialog: taken and read at once. */
  async choose(path: string): Promise<void> {
    this.setPath(path);
    await this.read();
  }

  /** Asks the core to read and check the panel file (nothing is sent). */
  async read(): Promise<void> {
    [this.panel, this.panelError, this.reading] = [null, null, true];
    try {
      this.panel = await this.ipc.batteryPanel(this.panelPath.trim());
    } catch (e) {
      this.panelError = IpcError.from(e);
    } finally {
      this.reading = false;
    }
  }

  /** The battery's parameters as the shell takes them (`noRun`: only write the report). */
  params(noRun = false): BatteryParams {
    const templates = this.templates.split(",").map((t) => t.trim()).filter((t) => t !== "");
    return {
      panel: this.panelPath.trim(),
      templates,
      out: this.out.trim(),
      force: this.force,
      include_incomplete: this.includeIncomplete,
      limit: null,
      no_run: noRun,
    };
  }

  /** Runs (or resumes) the battery; with `noRun`, only writes the report from what is stored. */
  async run(noRun = false): Promise<void> {
    if (this.running || !this.panel) return;
    [this.running, this.cancelling, this.step, this.outcome, this.error] = [true, false, null, null, null];
    try {
      this.outcome = await this.ipc.batteryRun(this.params(noRun), (s) => (this.step = s));
    } catch (e) {
      this.error = IpcError.from(e);
    } finally {
      this.running = false;
    }
  }

  async cancel(): Promise<void> {
    this.cancelling = true;
    await this.ipc.judgeCancel().catch(() => {});
  }
}

/** "alpha@generic (none): 12 of 40 answered · 2 retried", the cell judged now. */
export function stepText(s: BatteryStep): string {
  const p = s.progress;
  const parts = [p.total === 0 ? "starting" : `${p.done} of ${p.total} answered`];
  if (p.retries) parts.push(`${p.retries} retried`);
  if (p.answer_retries) parts.push(`${p.answer_retries} asked again`);
  if (p.failed) parts.push(`${p.failed} given up`);
  return `Cell ${s.index} of ${s.cells}, ${s.cell}: ${parts.join(" · ")}`;
}
