/**
 * The first start on a new data directory, as a newcomer meets it: `node dist/main.js` (what
 * `npm start` runs, after its build) on an empty directory and the embedded database, timed from
 * the spawn to the `toolgate listening` log line; also the warnings it logged (a normal first start
 * logs none). Each run uses a fresh directory.
 * Usage: tsx bench/first-start.ts [runs=3]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, writeResult } from './harness.js';
import { productionNodeFlags } from './production-flags.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.argv[2] ?? 3);

async function firstStart(): Promise<{ ms: number; warnings: string[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-first-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [...productionNodeFlags(), 'dist/main.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', TOOLGATE_DATA_DIR: dataDir, TOOLGATE_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const warnings: string[] = [];
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        let entry: { level?: number; msg?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          return;
        }
        if ((entry.level ?? 0) >= 40) warnings.push(String(entry.msg));
        if (entry.msg === 'toolgate listening') resolve(performance.now() - started);
      });
    });
    return { ms: Math.round(ms), warnings };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js'))) throw new Error('build first: node scripts/build-server.mjs');
const runs: { ms: number; warnings: string[] }[] = [];
for (let i = 0; i < RUNS; i++) {
  runs.push(await firstStart());
  console.log(`first start ${i + 1}: ${runs.at(-1)!.ms} ms, warnings: ${runs.at(-1)!.warnings.length}`);
}
const result = { at: new Date().toISOString(), load_average: os.loadavg(), median_ms: median(runs.map((r) => r.ms)), runs };
console.log(
  `median ${result.median_ms} ms (load average ${os.loadavg()[0]!.toFixed(1)}); ${writeResult('first-start', result.at, result)}`,
);
