/**
 * A smoke run of the benchmarks: each script once at its smallest size, for seconds, with its
 * results written to a temporary folder (BENCH_RESULTS_DIR), no target judged. It proves only that
 * every benchmark still runs (a fixture refused by a new rule, a renamed module, a changed
 * contract), so that a benchmark cannot rot unnoticed between the runs that measure. CI runs it.
 * Usage: npm run bench:smoke [-- name ...]   (names: see SMOKE below)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each benchmark at its smallest: the script, its arguments and environment, and a time limit. */
const SMOKE: { name: string; script: string; args?: string[]; env?: Record<string, string>; limitMs?: number }[] = [
  { name: 'call-records', script: 'bench/call-records.ts', args: ['50', '2'] },
  { name: 'dashboard', script: 'bench/dashboard.ts', args: ['pglite'], env: { BENCH_RECORDS: '2000', BENCH_REQUESTS: '3' } },
  { name: 'first-start', script: 'bench/first-start.ts', args: ['1'] },
  { name: 'gateway-endpoint', script: 'bench/gateway-endpoint.ts', env: { BENCH_REQUESTS: '50' } },
  { name: 'session-store', script: 'bench/session-store.ts', env: { BENCH_N: '100' } },
  { name: 'change-barrier', script: 'bench/change-barrier.ts', env: { BENCH_MS: '300' } },
  { name: 'hop-quick', script: 'bench/hop-quick.ts', args: ['2', '1', '500'] },
  { name: 'promotion', script: 'bench/promotion.ts', args: ['call', '500'] },
  { name: 'soak', script: 'bench/soak.ts', env: { SOAK_MINUTES: '2', SOAK_MINUTE_MS: '1500', SOAK_RATE: '50' } },
  { name: 'search', script: 'bench/search/run.ts', env: { BENCH_QUICK: '1', BENCH_SPEED_ONLY: '1' } },
  { name: 'metrics', script: 'bench/metrics.ts' },
  { name: 'auth-hot-path', script: 'bench/auth-hot-path.ts' },
  { name: 'script-tools', script: 'bench/script-tools.ts' },
  { name: 'guardrails', script: 'bench/guardrails.ts', env: { BENCH_QUICK: '1' } },
  { name: 'steadiness', script: 'bench/steadiness.ts', env: { BENCH_QUICK: '1', STEADY_RUNS: '1' } },
];

const only = new Set(process.argv.slice(2));
const results = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-smoke-'));
let failed = 0;
for (const b of SMOKE) {
  if (only.size && !only.has(b.name)) continue;
  const started = performance.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', b.script, ...(b.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, ...b.env, BENCH_RESULTS_DIR: results },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), b.limitMs ?? 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
  const s = ((performance.now() - started) / 1000).toFixed(1);
  if (code === 0) console.log(`ok    ${b.name} (${s} s)`);
  else {
    failed += 1;
    console.log(`FAIL  ${b.name} (${s} s, exit ${code})\n${output}`);
  }
}
fs.rmSync(results, { recursive: true, force: true });
if (failed) {
  console.log(`${failed} benchmark(s) no longer run`);
  process.exit(1);
}
