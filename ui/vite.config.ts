// Builds the UI into ui/dist, which the Tauri shell embeds (tauri.conf.json build.frontendDist).
import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

export default defineConfig({
  plugins: [svelte()],
  // Relative asset URLs: the same build works under tauri:// and from the test's static server.
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // No inline scripts or data: URLs, so the CSP can stay `script-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: { strictPort: true },
});
