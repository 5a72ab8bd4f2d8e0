// The split view's commands (draft, show, lock, export with progress, verify).
import { Channel } from "@tauri-apps/api/core";
import type { ExportReport } from "../../bindings/ExportReport";
import type { PacketAtLock } from "../../bindings/PacketAtLock";
import type { SplitParams } from "../../bindings/SplitParams";
import type { SplitShow } from "../../bindings/SplitShow";
import type { VerifyReport } from "../../bindings/VerifyReport";
import type { DraftParams } from "../../bindings/shell/DraftParams";
import type { ExportProgress } from "../../bindings/shell/ExportProgress";
import { call } from "./call";

// What the window chooses for a draft, and one step of an export: the shell's types, generated.
export type { DraftParams } from "../../bindings/shell/DraftParams";
export type { ExportProgress } from "../../bindings/shell/ExportProgress";

/** The latest split with the locality filter applied; null before the first draft. */
export const splitShow = () => call<SplitShow | null>("split_show");
/** The parameters a first draft starts from, as the core sets them. */
export const splitDefaults = () => call<SplitParams>("split_defaults");
export const splitDraft = (params: DraftParams) => call<SplitShow>("split_draft", { params });
/** With `allowUnreviewed`, locks although selected rows' final audit is unfinished (the manifest records them). */
export const splitLock = (allowUnreviewed = false) => call<SplitShow>("split_lock", { allow_unreviewed: allowUnreviewed });
/** Each annotator's latest packet with rows the lock freezes (or would freeze). */
export const splitPacketsAtLock = () => call<PacketAtLock[]>("split_packets_at_lock");
/** Exports the locked split into `dir`; `onprogress` hears after each file is written. */
export function splitExport(dir: string, onprogress: (step: ExportProgress) => void): Promise<ExportReport> {
  const onProgress = new Channel<ExportProgress>(onprogress);
  return call<ExportReport>("split_export", { dir, onProgress });
}
export const splitVerify = (dir: string) => call<VerifyReport>("split_verify", { dir });
