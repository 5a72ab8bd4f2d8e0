// Views that show the project as it is now: App.svelte polls the project's revision and hands it
// to the view; the view reloads what it shows whenever it moves.

/** Calls `reload` whenever `revision()` changes from the value the view opened at. Call it while
 *  the component initialises (it sets up an effect). */
export function reloadOnChange(revision: () => string, reload: () => unknown): void {
  let seen: string | undefined;
  $effect(() => {
    const now = revision();
    if (seen !== undefined && now !== seen) void reload();
    seen = now;
  });
}
