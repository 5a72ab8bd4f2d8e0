// The native file dialogs (tauri-plugin-dialog, granted `dialog:allow-open` and `dialog:allow-save`
// only). A dialog returns a path and nothing else: reading and writing still go through the
// app's own commands, which check every file. Typed paths keep working beside every button.
import { open, save } from "@tauri-apps/plugin-dialog";

export type ChooseKind = "file" | "files" | "folder" | "save";
export type FileFilter = { name: string; extensions: string[] };

export const FILTERS = {
  candidates: [{ name: "Candidates (CSV or JSONL)", extensions: ["csv", "jsonl", "ndjson"] }],
  packet: [{ name: "ForceBench packet", extensions: ["json"] }],
  feedback: [{ name: "ForceBench feedback", extensions: ["json"] }],
  jsonl: [{ name: "JSON lines", extensions: ["jsonl", "ndjson"] }],
  template: [{ name: "Prompt template", extensions: ["txt", "md"] }],
} satisfies Record<string, FileFilter[]>;

/** Opens the dialog; the chosen path(s), or null when the user cancelled. Throws when the dialog
 *  itself is unavailable (the caller says so and the typed field stays usable). */
export async function choosePath(kind: ChooseKind, title: string, filters: FileFilter[] = [], defaultPath?: string): Promise<string[] | null> {
  const opts = { title, filters, defaultPath: defaultPath || undefined };
  const picked =
    kind === "save"
      ? await save(opts)
      : await open({ ...opts, directory: kind === "folder", multiple: kind === "files" });
  if (picked === null || picked === undefined) return null;
  return Array.isArray(picked) ? picked : [picked];
}
