import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The GUI bundle. `npm run build:renderer` writes dist/renderer, which the server serves at `/`.
// In dev (`vite --config renderer/vite.config.ts`), the APIs are proxied to a headless server on :8080.
const apiTarget = 'http://127.0.0.1:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
  },
  server: {
    proxy: {
      '/audio': apiTarget,
      '/api': apiTarget,
    },
  },
});
