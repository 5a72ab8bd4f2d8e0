// Runes for tests in node (compiled by loader-hooks.mjs): a reactive box a test can change, and an
// effect root to run a module's effects in, as a mounted component would.

/** A reactive value: reading `.value` inside an effect subscribes to it. */
export function box(initial) {
  let value = $state(initial);
  return {
    get value() {
      return value;
    },
    set value(next) {
      value = next;
    },
  };
}

/** Runs `setup` inside an effect root (where `$effect` may be called); returns its teardown. */
export function effectRoot(setup) {
  return $effect.root(setup);
}
