// The console: a single-page app the gateway serves under /console (docs/guide/console.md).
// `npm run build` (scripts/build.mjs) runs this build after compiling the apps.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  plugins: [react()],
  resolve: {
    // csv-stringify's Node build uses Buffer; its browser build is the same code with what it needs
    // bundled. Jest (the unit specs) keeps the Node build.
    alias: { 'csv-stringify/sync': 'csv-stringify/browser/esm/sync' },
  },
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/console', import.meta.url)),
    emptyOutDir: true,
    // Hashed file names under assets/: the gateway serves them as immutable.
    assetsDir: 'assets',
    sourcemap: true,
    // One bundle for now (about 150 kB gzipped); screens added later may be split with lazy routes.
    chunkSizeWarningLimit: 1_000,
  },
  logLevel: 'warn',
});
