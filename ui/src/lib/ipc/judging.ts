// Running an LLM judge against an endpoint: the templates, a run with progress, cancel, trust.
import { Channel } from "@tauri-apps/api/core";
import type { RunProgress } from "../../bindings/RunProgress";
import type { RunRecord } from "../../bindings/RunRecord";
import type { RunSummary } from "../../bindings/RunSummary";
import type { TrustReport } from "../../bindings/TrustReport";
import type { JudgeCatalog } from "../../bindings/shell/JudgeCatalog";
import type { JudgeParams } from "../../bindings/shell/JudgeParams";
import { IpcError, call } from "./call";

export type { JudgeCatalog };

/** The templates that ship with the core (with the label map each is read with), the label maps
 *  known by name and a run's defaults. */
export const judgeTemplates = () => call<JudgeCatalog>("judge_templates");
/** Runs (or resumes) a judge against an endpoint; `onprogress` hears after each answer. */
export function judgeRun(params: JudgeParams, onprogress: (p: RunProgress) => void): Promise<RunSummary> {
  const onProgress = new Channel<RunProgress>(onprogress);
  return call<RunSummary>("judge_run", { params, onProgress });
}
/** Asks the running judge to stop; its answers so far are kept and a later run resumes. */
export const judgeCancel = () => call<boolean>("judge_cancel");
/** Every judge run stored in the project (what `judge runs` lists). */
export const judgeRuns = () => call<RunRecord[]>("judge_runs");
export const judgeTrust = (name: string) => call<TrustReport>("judge_trust", { name });

/** The judge's trust report, or null when it has no run yet (the core's `no_judge_run`); any
 *  other failure is thrown. */
export async function judgeTrustIfRun(name: string): Promise<TrustReport | null> {
  try {
    return await judgeTrust(name);
  } catch (e) {
    if (IpcError.from(e).code === "no_judge_run") return null;
    throw e;
  }
}
