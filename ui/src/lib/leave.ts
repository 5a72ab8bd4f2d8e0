// Work the window holds that is not saved yet, for the one way out that no view sees: the window
// closing (or the app quitting, which closes it). A view registers while it is shown; App asks
// every registration to save what it can, then whether anything would still be lost, and keeps
// the window open to ask when something would be. Switching views is handled by the views
// themselves (Annotate sends its text as it closes; Adjudicate keeps its draft, lib/drafts.ts).

export type Unsaved = {
  /** Sends what can be saved without asking (text typed and not sent yet); resolves once saved. */
  flush: () => Promise<void>;
  /** What would be lost if the window closed now, in the person's words; null when nothing. */
  loss: () => string | null;
};

const held = new Set<Unsaved>();

/** Registers work a view holds; returns the function that unregisters it. */
export function holdWork(u: Unsaved): () => void {
  held.add(u);
  return () => void held.delete(u);
}

/** Saves everything that can be saved; waits at most `capMs` so a stuck save cannot keep the
 *  window from closing for ever (what is still unsaved then is reported by `losses`). */
export async function flushAll(capMs = 5000): Promise<void> {
  const all = Promise.allSettled([...held].map((u) => u.flush()));
  await Promise.race([all, new Promise((ok) => setTimeout(ok, capMs))]);
}

/** What closing now would lose, one line per piece of work. */
export function losses(): string[] {
  return [...held].map((u) => u.loss()).filter((x): x is string => x !== null);
}
