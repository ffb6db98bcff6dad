// Builds the dashboard into web/dist: hashed assets under /assets, no inline script or style (the server's CSP
// forbids both), so `serve` can send them with long-lived caching.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
  },
  logLevel: "warn",
});
