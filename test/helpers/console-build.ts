import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './contract.js';

export const WEB_DIR = path.join(ROOT, 'web');
export const CONSOLE_DIST = path.join(WEB_DIR, 'dist');
export const CHROMIUM = process.env.TOOLGATE_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for headless Debian Chromium in a container (no sandbox, GPU, network side traffic). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Makes sure web/dist holds a build of the current sources (npm install builds it; a source
 * edit since then rebuilds it here), so the browser tests never run an old console.
 */
export function ensureConsoleBuilt(): void {
  const index = path.join(CONSOLE_DIST, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(WEB_DIR, 'src')),
    fs.statSync(path.join(WEB_DIR, 'index.html')).mtimeMs,
    fs.statSync(path.join(ROOT, 'src/generated/openapi.ts')).mtimeMs,
  );
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  execFileSync(process.execPath, [path.join(WEB_DIR, 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}
