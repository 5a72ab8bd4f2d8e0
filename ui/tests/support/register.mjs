// `node --import ./tests/support/register.mjs`: installs loader-hooks.mjs (TypeScript and Svelte
// rune modules under node).
import { register } from "node:module";

register("./loader-hooks.mjs", import.meta.url);
