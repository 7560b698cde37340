// Builds the web console into web/dist. Run by `npm install` / `npm ci` (the `prepare` script) and
// by `npm run build:web`. Without the dev dependencies (npm ci --omit=dev) there is nothing to
// build with: it says so and leaves the server to answer 503 at / until a build exists.
import { fileURLToPath } from 'node:url';

let vite;
try {
  vite = await import('vite');
} catch {
  console.warn(
    'toolgate: vite is not installed (dev dependencies omitted), so the web console was not built; run `npm run build:web` where they are.',
  );
  process.exit(0);
}
await vite.build({ configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)), logLevel: process.env.CI ? 'info' : 'warn' });
