// Builds the server into dist/: every src/**/*.ts transpiled to JavaScript with esbuild, file by
// file (no bundling), ESM for Node 20, with linked source maps (dist/x.js.map, pointing at
// src/x.ts; `npm start` runs Node with --enable-source-maps so stack traces name the .ts lines).
// Run by `npm install` / `npm ci` (`prepare`), before every `npm start` (`prestart`) and by
// `npm run build:server`; it takes well under a second.
//
// Why: `npm start` used to run src/main.ts through tsx, which keeps esbuild and its loader in the
// server process (tens of MiB of RSS) and compiles with keepNames, so every closure the hot path
// creates also calls a `__name(fn, "...")` helper. The compiled build has neither.
//
// Layout: src/<path>.ts → dist/<path>.js, so code that finds files relative to its own module
// (src/server.ts ROOT_DIR = `..` → the repository, the QuickJS worker beside quickjs-pool) finds
// the same ones from dist/. The knex migrations db/migrations/<name>.ts → dist/db/migrations/<name>.js:
// src/stores/database.ts loads those when it runs compiled (the recorded migration names stay `.ts`).
// `--bench` adds bench/gateway.ts → dist/bench/gateway.js, the gateway process the benches start.
//
// Only files whose content changed are rewritten (each through a temporary file and a rename, so a
// running server never reads half a file); files in dist/ that no source produces are removed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'dist');
const started = performance.now();

/** The .ts files under `dir` (relative to ROOT, `/`-separated), declaration files left out. */
function tsFiles(dir) {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) =>
      path
        .relative(ROOT, path.join(e.parentPath ?? e.path, e.name))
        .split(path.sep)
        .join('/'),
    )
    .sort();
}

// { in: source, out: path in dist/ without extension }
const entries = [
  ...tsFiles('src').map((f) => ({ in: f, out: f.slice('src/'.length, -'.ts'.length) })),
  ...tsFiles('db/migrations').map((f) => ({ in: f, out: f.slice(0, -'.ts'.length) })),
  ...(process.argv.includes('--bench') ? [{ in: 'bench/gateway.ts', out: 'bench/gateway' }] : []),
];
const outs = new Set();
for (const e of entries) {
  if (outs.has(e.out)) throw new Error(`build-server: two sources would both write dist/${e.out}.js`);
  outs.add(e.out);
}

const result = await esbuild.build({
  absWorkingDir: ROOT,
  entryPoints: entries,
  outdir: OUT,
  bundle: false,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  keepNames: false,
  sourcemap: 'linked',
  // The maps point at the sources in the repository; their text need not be copied into dist/.
  sourcesContent: false,
  tsconfig: path.join(ROOT, 'tsconfig.json'),
  write: false,
  logLevel: 'warning',
});

const written = new Set();
let changed = 0;
for (const file of result.outputFiles) {
  written.add(file.path);
  let same = false;
  try {
    same = fs.readFileSync(file.path).equals(file.contents);
  } catch {
    // not there yet
  }
  if (same) continue;
  fs.mkdirSync(path.dirname(file.path), { recursive: true });
  const tmp = `${file.path}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, file.contents);
  fs.renameSync(tmp, file.path);
  changed++;
}

// Outputs of sources that no longer exist go. Left alone: another build's temporary files (two
// `npm start`s at once), and the bench gateway unless this build makes it (a bench may be running).
const BENCH_OUT = path.join(OUT, 'bench');
let removed = 0;
for (const e of fs.readdirSync(OUT, { recursive: true, withFileTypes: true })) {
  const full = path.join(e.parentPath ?? e.path, e.name);
  if (!e.isFile() || written.has(full) || e.name.endsWith('.tmp')) continue;
  if (!process.argv.includes('--bench') && full.startsWith(BENCH_OUT + path.sep)) continue;
  fs.rmSync(full, { force: true });
  removed++;
}
const dirs = fs
  .readdirSync(OUT, { recursive: true, withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => path.join(e.parentPath ?? e.path, e.name))
  .sort((a, b) => b.length - a.length); // deepest first
for (const dir of dirs) {
  try {
    if (fs.readdirSync(dir).length === 0) fs.rmdirSync(dir);
  } catch {
    // Removed or filled meanwhile by another build: not ours to tidy.
  }
}

if (!process.argv.includes('--quiet'))
  console.error(
    `toolgate: built dist/ from ${entries.length} modules (${result.outputFiles.length} output files with their source maps: ${changed} written, ${removed} removed) in ${Math.round(performance.now() - started)} ms`,
  );
