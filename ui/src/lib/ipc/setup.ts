// The setup view (the lead's first steps): import, roster, assignment, packets, suggestions.
// The roster is read with `listAnnotators` (./annotate).
import { invoke } from "@tauri-apps/api/core";
import type { AssignReport } from "../../bindings/AssignReport";
import type { Annotator } from "../../bindings/Annotator";
import type { ImportRefusal } from "../../bindings/ImportRefusal";
import type { ImportReport } from "../../bindings/ImportReport";
import type { IssuedPacket } from "../../bindings/IssuedPacket";
import type { SuggestionMode } from "../../bindings/SuggestionMode";
import { IpcError, call } from "./call";

export type { ImportRefusal };

/** Imports candidates; a refusal comes out as the core's `ImportRefusal` (with its problems). */
export async function importCandidates(path: string): Promise<ImportReport> {
  try {
    return await invoke<ImportReport>("import_candidates", { path });
  } catch (cause) {
    const c = cause as Partial<ImportRefusal>;
    if (c && typeof c === "object" && Array.isArray(c.problems)) throw cause as ImportRefusal;
    const e = IpcError.from(cause);
    throw { code: e.code, message: e.message, problems: [], conflicts: [] } satisfies ImportRefusal;
  }
}
export const rosterAdd = (name: string, role: string) => call<Annotator>("roster_add", { name, role });
export const assignRows = (seed: number) => call<AssignReport>("assign_rows", { seed });
export const issuePackets = (dir: string, blinding: string) => call<IssuedPacket[]>("issue_packets", { dir, blinding });
export const suggestionMode = () => call<SuggestionMode>("suggestion_mode");
export const setSuggestionMode = (mode: SuggestionMode) => call<SuggestionMode>("set_suggestion_mode", { mode });
