// The split view's state and what it does, without a DOM: the split and the counts as read,
// the parameter form (checked before anything is sent), drafting, the lock with its confirmation,
// export with progress, verify. SplitView.svelte and SplitPane.svelte only render it; the unit
// tests drive it in node through fake commands (tests/unit/splitView.test.mjs).
import type { Axis } from "../bindings/Axis";
import type { ExportReport } from "../bindings/ExportReport";
import type { PacketAtLock } from "../bindings/PacketAtLock";
import type { SplitParams } from "../bindings/SplitParams";
import type { SplitShow } from "../bindings/SplitShow";
import type { StatusReport } from "../bindings/StatusReport";
import type { VerifyReport } from "../bindings/VerifyReport";
import { IpcError } from "../lib/ipc/call";
import { projectStatus } from "../lib/ipc/project";
import { checkForm, defaultExportDir, emptyForm, formOf, sameParams, stages, sumColumns, type FormField, type ParamForm } from "../lib/split";
import {
  splitDefaults,
  splitDraft,
  splitExport,
  splitLock,
  splitPacketsAtLock,
  splitShow,
  splitVerify,
  type DraftParams,
  type ExportProgress,
} from "../lib/ipc/split";

/** The commands the split view calls (the shell's, unless a test gives its own). */
export interface SplitCommands {
  splitDefaults(): Promise<SplitParams>;
  splitShow(): Promise<SplitShow | null>;
  projectStatus(): Promise<StatusReport>;
  splitDraft(params: DraftParams): Promise<SplitShow>;
  splitLock(allowUnreviewed?: boolean): Promise<SplitShow>;
  splitPacketsAtLock(): Promise<PacketAtLock[]>;
  splitExport(dir: string, onprogress: (step: ExportProgress) => void): Promise<ExportReport>;
  splitVerify(dir: string): Promise<VerifyReport>;
}

export const shellSplitCommands: SplitCommands = {
  splitDefaults,
  splitShow,
  projectStatus,
  splitDraft,
  splitLock,
  splitPacketsAtLock,
  splitExport,
  splitVerify,
};

export class SplitViewState {
  split = $state.raw<SplitShow | null>(null);
  status = $state.raw<StatusReport | null>(null);
  loaded = $state(false);
  loadError = $state.raw<IpcError | null>(null);

  form = $state<ParamForm>(emptyForm());
  /** Set by the first Draft: problems are said beside their fields from then on. */
  tried = $state(false);
  drafting = $state(false);
  draftError = $state.raw<IpcError | null>(null);

  confirming = $state(false);
  locking = $state(false);
  lockError = $state.raw<IpcError | null>(null);
  /** The packets out whose rows the lock freezes, named in the lock dialog. */
  packetsOut = $state.raw<PacketAtLock[]>([]);

  exportDir = $state("");
  exporting = $state(false);
  progress = $state.raw<ExportProgress | null>(null);
  exported = $state.raw<ExportReport | null>(null);
  exportError = $state.raw<IpcError | null>(null);
  verifying = $state(false);
  verified = $state.raw<VerifyReport | null>(null);
  verifyError = $state.raw<IpcError | null>(null);

  readonly checked = $derived(checkForm(this.form));
  readonly errors = $derived<Partial<Record<FormField, string>>>(this.tried && !this.checked.ok ? this.checked.errors : {});
  readonly acceptedTotal = $derived(this.status?.funnel.accepted ?? null);
  readonly locked = $derived(this.split?.status === "locked");
  /** The selected rows the lock waits for (their final audit unfinished), as the core listed them. */
  readonly unfinishedAudit = $derived(
    this.split ? [...this.split.audit.unreviewed_locality, ...this.split.audit.qc_errors].map((r) => r.id) : [],
  );
  /** The form asks for other parameters than the split shown (a new draft would differ). */
  readonly formDiffers = $derived(this.split !== null && this.checked.ok && !sameParams(this.checked.params, this.split.params));
  readonly chain = $derived(this.split ? stages(this.split.counts) : null);
  /** Every source named in the split, sorted. */
  readonly sources = $derived.by(() => {
    const split = this.split;
    if (!split) return [];
    const names = new Set(Object.keys(split.by_source));
    for (const per of Object.values(split.eval_by_axis_source)) for (const s of Object.keys(per ?? {})) names.add(s);
    return [...names].sort();
  });
  readonly evalSev = $derived(this.split ? sumColumns(this.split.per_axis.map((t) => t.eval_severity), 3) : []);
  readonly retSev = $derived(this.split ? sumColumns(this.split.per_axis.map((t) => t.retained_severity), 3) : []);
  /** The rows the split froze or would freeze: retained, locality-removed and capped. */
  readonly rows = $derived(this.split ? this.split.counts.retained + this.split.counts.locality_removed + this.split.counts.capped : 0);

  private readonly projectPath: () => string;
  private readonly ipc: SplitCommands;

  constructor(projectPath: () => string, ipc: SplitCommands = shellSplitCommands) {
    this.projectPath = projectPath;
    this.ipc = ipc;
  }

  /** The accepted rows of an axis in the project now (null before the counts are read). */
  acceptedNow = (axis: Axis): number | null => this.status?.funnel.by_axis[axis]?.accepted ?? null;

  /** On opening: the core's defaults fill the form until a split exists (whose parameters replace them). */
  async open(): Promise<void> {
    try {
      this.form = formOf(await this.ipc.splitDefaults());
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
    await this.reread();
    this.loaded = true;
  }

  /** Reads the split and the counts (on opening, and again after a change elsewhere); the form
   *  keeps what is typed in it unless another version appeared. */
  async reread(): Promise<void> {
    try {
      const [s, st] = await Promise.all([this.ipc.splitShow(), this.ipc.projectStatus()]);
      this.status = st;
      if (s?.version !== this.split?.version) this.show(s);
      else this.split = s;
      this.loadError = null;
    } catch (e) {
      this.loadError = IpcError.from(e);
    }
  }

  /** Shows `s` and puts its parameters in the form. */
  private show(s: SplitShow | null): void {
    this.split = s;
    if (s) {
      this.form = formOf(s.params);
      this.exportDir = defaultExportDir(this.projectPath(), s.version);
    }
  }

  /** Drafts from the form. False when the form has a problem: nothing is sent, and the view
   *  shows the problems beside their fields. */
  async draft(): Promise<boolean> {
    this.tried = true;
    const checked = this.checked;
    if (!checked.ok) return false;
    this.drafting = true;
    this.draftError = null;
    try {
      this.show(await this.ipc.splitDraft(checked.params));
      [this.confirming, this.lockError, this.exported, this.progress, this.exportError, this.verified, this.verifyError] = [false, null, null, null, null, null, null];
      this.status = await this.ipc.projectStatus().catch(() => this.status);
    } catch (e) {
      this.draftError = IpcError.from(e);
    } finally {
      this.drafting = false;
    }
    return true;
  }

  /** Opens the lock's confirmation, naming the packets out that the lock freezes. */
  async askLock(): Promise<void> {
    this.confirming = true;
    this.lockError = null;
    this.packetsOut = await this.ipc.splitPacketsAtLock().catch(() => []);
  }

  cancelLock(): void {
    this.confirming = false;
  }

  /** Locks; `anyway` locks although the final audit of selected rows is unfinished (the core
   *  refuses otherwise, naming them), and the manifest records what was skipped. */
  async lock(anyway = false): Promise<void> {
    this.locking = true;
    this.lockError = null;
    try {
      this.show(await this.ipc.splitLock(anyway));
      this.confirming = false;
    } catch (e) {
      this.lockError = IpcError.from(e);
    } finally {
      this.locking = false;
    }
  }

  /** Exports into the typed folder. A blank folder is sent too: the shell's refusal says what to type. */
  async exportSplit(): Promise<void> {
    const dir = this.exportDir.trim();
    this.exporting = true;
    [this.exported, this.exportError, this.verified, this.verifyError] = [null, null, null, null];
    this.progress = { done: 0, total: 0, file: "" };
    try {
      this.exported = await this.ipc.splitExport(dir, (step) => (this.progress = step));
    } catch (e) {
      this.exportError = IpcError.from(e);
      // Refused before the first file: nothing started, so no progress to show.
      if (this.progress?.total === 0) this.progress = null;
    } finally {
      this.exporting = false;
    }
  }

  async verify(): Promise<void> {
    const dir = this.exportDir.trim();
    this.verifying = true;
    [this.verified, this.verifyError] = [null, null];
    try {
      this.verified = await this.ipc.splitVerify(dir);
    } catch (e) {
      this.verifyError = IpcError.from(e);
    } finally {
      this.verifying = false;
    }
  }
}
