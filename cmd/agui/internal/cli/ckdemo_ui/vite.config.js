import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

const stub = (name) => fileURLToPath(new URL(`./src/stubs/${name}.js`, import.meta.url));

// The page is embedded in the agui command and served at the root of
// `agui demo --copilotkit`; relative asset URLs keep it working under any
// prefix. The build is committed (dist/), so it must be the same bytes
// wherever it is made: no source maps (they name paths), content hashes in
// the file names, nothing taken from the clock or the machine.
export default defineConfig({
  base: "./",
  plugins: [react()],
  resolve: {
    // Two heavy optional parts of CopilotKit's markdown renderer, replaced
    // by small stand-ins (see the files): code highlighting and diagrams.
    alias: [
      { find: /^shiki(\/.*)?$/, replacement: stub("shiki") },
      { find: /^mermaid$/, replacement: stub("mermaid") },
    ],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 4096,
  },
});
