// Svelte compiler options shared by Vite and svelte-check. TypeScript in <script lang="ts">
// is type-only, which Svelte 5 strips natively, so no preprocessor is needed.
export default {
  compilerOptions: { runes: true },
};
