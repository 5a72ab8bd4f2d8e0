// The steps before candidacy: contexts with their stage, screening, drafts written by hand,
// promotion and exclusion (src-tauri/src/contexts.rs).
import type { ContextCounts } from "../../bindings/ContextCounts";
import type { ContextRow } from "../../bindings/ContextRow";
import type { ContextScreenReport } from "../../bindings/ContextScreenReport";
import type { DraftPromoteReport } from "../../bindings/DraftPromoteReport";
import type { DraftRow } from "../../bindings/DraftRow";
import type { DraftSetReport } from "../../bindings/DraftSetReport";
import { call } from "./call";

/** Every context in import order, with its stage. */
export const contextsList = () => call<ContextRow[]>("contexts_list", {});

/** The counts before candidacy (`null` in a project without contexts). */
export const contextsCounts = () => call<ContextCounts | null>("contexts_counts", {});

/** Keeps a context, or drops it with a reason (the core refuses a drop without one). */
export const contextsScreen = (id: string, keep: boolean, reason: string | null, note: string | null, by: string) =>
  call<ContextScreenReport>("contexts_screen", { id, keep, reason, note, by });

/** Each context's current draft, with what promotion would refuse in it. */
export const draftList = () => call<DraftRow[]>("draft_list", {});

/** Sets one field of a kept context's draft (a new version; "" clears the field). */
export const draftSet = (id: string, field: string, value: string, by: string) =>
  call<DraftSetReport>("draft_set", { id, field, value, by });

/** Promotes the named drafts (or every waiting one with `all`) into the candidate pool. */
export const draftPromote = (ids: string[], all: boolean, by: string) =>
  call<DraftPromoteReport>("draft_promote", { ids, all, by });

/** Excludes a context's draft before candidacy, with a reason. */
export const draftExclude = (id: string, reason: string, note: string | null, by: string) =>
  call<DraftRow>("draft_exclude", { id, reason, note, by });
