// Reading a row by keyboard alone: when no text field has the focus, PageDown/PageUp, Space
// (Shift+Space back) and ↓/↑ scroll the pane that holds the row, as they would scroll a page.
// The view's focus sits on the view itself, which does not scroll, so without this they did
// nothing and a keyboard-only annotator on a small screen could not reach the claims.

/** What a key scrolls by, in pixels, on a pane `height` pixels high; null when it scrolls nothing. */
export function scrollStep(e: { key: string; shiftKey?: boolean; ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean }, height: number): number | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const page = Math.max(40, height * 0.85);
  switch (e.key) {
    case "PageDown":
      return page;
    case "PageUp":
      return -page;
    case " ":
      return e.shiftKey ? -page : page;
    case "ArrowDown":
      return e.shiftKey ? null : 40;
    case "ArrowUp":
      return e.shiftKey ? null : -40;
    default:
      return null;
  }
}

/** Scrolls `pane` for a key pressed on `target` (not a text field). Space on a button presses the
 *  button, as it always does, and scrolls nothing. True when the key was taken. */
export function scrollPaneFor(e: KeyboardEvent, target: HTMLElement, pane: HTMLElement | undefined): boolean {
  if (!pane || e.defaultPrevented) return false;
  if (e.key === " " && target.closest("button, summary, a, [role='button'], [role='tab']")) return false;
  const by = scrollStep(e, pane.clientHeight);
  if (by === null) return false;
  pane.scrollBy({ top: by, behavior: "instant" });
  return true;
}
