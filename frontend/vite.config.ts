import { defineConfig } from "vitest/config";

// The playground is served by `tuxlb serve` at "/" (and index.html at /s/{id}),
// so assets use absolute paths. Examples come from the repository's examples/
// folder, one level above this one.
export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true, // package.json's build script puts dist/.keep back
    assetsInlineLimit: 0, // no data: URLs; the server's CSP is strict
    target: "es2022",
  },
  worker: { format: "iife" },
  server: { fs: { allow: [".."] } },
  test: { environment: "node", include: ["src/**/*.test.ts"] },
});
