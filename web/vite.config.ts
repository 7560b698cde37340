import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.TOOLGATE_DEV_API ?? 'http://127.0.0.1:8080';

/**
 * The web console: Preact + TypeScript built by Vite into web/dist, which the Toolgate server
 * serves at `/`. `npm run dev:web` serves it with hot reload and proxies the API to a running
 * server (TOOLGATE_DEV_API, default http://127.0.0.1:8080).
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Everything in files: the server's CSP allows no inline script or style.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: { '/api': api, '/mcp': api, '/health': api, '/ready': api },
  },
});
