import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The web UI's build: `ui/` bundled into `dist/ui/` with relative asset paths, so the server
 * serves it from `/` without a CDN. No inline script or style is emitted (the server's CSP
 * allows only same-origin scripts and styles): the module preload polyfill is off because it
 * is an inline script.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL("../dist/ui", import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 800,
    sourcemap: false,
  },
});
