// Drafting kept contexts with a model: a run with its progress, cancel, the shipped prompt, and
// every suggestion's record (src-tauri/src/drafting.rs).
import { Channel } from "@tauri-apps/api/core";
import type { DraftRunSummary } from "../../bindings/DraftRunSummary";
import type { SuggestionRecord } from "../../bindings/SuggestionRecord";
import type { DraftCatalog } from "../../bindings/shell/DraftCatalog";
import type { DraftProgress } from "../../bindings/shell/DraftProgress";
import type { DraftRunParams } from "../../bindings/shell/DraftRunParams";
import { call } from "./call";

export type { DraftCatalog, DraftProgress, DraftRunParams };

/** Runs (or resumes) a drafting run over the kept contexts without a draft; `onprogress` hears
 *  after each answer. */
export function draftRun(params: DraftRunParams, onprogress: (p: DraftProgress) => void): Promise<DraftRunSummary> {
  const onProgress = new Channel<DraftProgress>(onprogress);
  return call<DraftRunSummary>("draft_run", { params, onProgress });
}
/** Asks the running drafting run to stop; its answers so far are kept and a later run resumes. */
export const draftCancel = () => call<boolean>("draft_cancel");
/** The shipped drafting prompt. */
export const draftPrompt = () => call<string>("draft_prompt");
/** Every suggestion for a context, oldest first, with the model's record behind a model draft. */
export const draftRecords = (id: string) => call<SuggestionRecord[]>("draft_records", { id });
/** The API styles a drafting run speaks and the defaults of `draft run`. */
export const draftCatalog = () => call<DraftCatalog>("draft_catalog");
