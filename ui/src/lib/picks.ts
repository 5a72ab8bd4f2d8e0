// What a person picked in a view that outlives the view: switching tabs unmounts a
// view, and its annotator, adjudicator and "hide annotator names" went back to their defaults.
// Kept for the window's life, per project file, never saved.
export const picks: { project: string; annotator: string | null; adjudicator: string | null; hide: boolean } = {
  project: "",
  annotator: null,
  adjudicator: null,
  hide: false,
};

/** The picks for project `path` (cleared when the window works on another project). */
export function picksFor(path: string) {
  if (picks.project !== path) Object.assign(picks, { project: path, annotator: null, adjudicator: null, hide: false });
  return picks;
}
