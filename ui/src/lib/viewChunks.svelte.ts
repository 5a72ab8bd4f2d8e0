// The views' code, fetched the first time each view is opened. The window starts on the candidate
// list, so the code and styles of the nine other views (three quarters of the page's script) are
// not parsed, compiled and kept by the web process until the person opens them. Each view is its
// own chunk in the build (a dynamic `import()`), served from the app like the page itself.
//
// A view being fetched shows nothing it could lose: App shows a loading line in its place, the
// view it left has already closed as on any switch (each view keeps or saves its own work when it
// closes), and the view shown is always the one chosen last, so a chunk arriving after the person
// moved on only fills the cache.

import type { Component } from "svelte";

// Views take different props; App passes each its own.
export type AnyView = Component<any>;
export type Loader = () => Promise<{ default: AnyView }>;

export class ViewChunks<K extends string> {
  /** The views whose code is here, by name. */
  loaded: Partial<Record<K, AnyView>> = $state.raw({});
  /** Why a view's code could not be fetched, by name, until it is asked for again. */
  failed: Partial<Record<K, string>> = $state.raw({});
  #loaders: Record<K, Loader>;
  #pending = new Map<K, Promise<void>>();

  constructor(loaders: Record<K, Loader>) {
    this.#loaders = loaders;
  }

  /** Fetches the view's code unless it is here or on its way; resolves when it has arrived or
   *  failed. Asking again after a failure tries again. */
  load(name: K): Promise<void> {
    if (this.loaded[name]) return Promise.resolve();
    const pending = this.#pending.get(name);
    if (pending) return pending;
    if (this.failed[name] !== undefined) {
      const rest = { ...this.failed };
      delete rest[name];
      this.failed = rest;
    }
    const started = this.#loaders[name]().then(
      (module) => {
        this.loaded = { ...this.loaded, [name]: module.default };
      },
      (cause: unknown) => {
        this.failed = { ...this.failed, [name]: cause instanceof Error ? cause.message : String(cause) };
      },
    );
    const done = started.finally(() => this.#pending.delete(name));
    this.#pending.set(name, done);
    return done;
  }
}
