/**
 * Latency of script tools in their sandboxes, measured at the runner (no HTTP): a JavaScript tool
 * in the QuickJS worker pool (warm workers) and Python / shell tools in the bubblewrap process
 * sandbox (one process per call). Run: `npm run bench:scripts`. Results:
 * bench/results/script-tools.json. Not part of the test suite.
 */
import fs from 'node:fs';
import { resultsDir } from './harness.js';
import path from 'node:path';
import { createLogger } from '../src/logger.js';
import { SandboxRunner } from '../src/sandbox/sandbox-runner.js';
import type { ScriptJob } from '../src/sandbox/sandbox-types.js';

const logger = createLogger({ logLevel: 'silent' });
const runner = new SandboxRunner({ logger, processSandbox: 'auto', sandboxUid: 61000 });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(label: string, job: ScriptJob, n: number, concurrency = 1) {
  for (let i = 0; i < Math.min(5, n); i++) await runner.run(job);
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const t0 = performance.now();
        const r = await runner.run(job);
        if (r.isError) throw new Error(`${label}: ${r.content[0]?.text}`);
        times.push(performance.now() - t0);
      }
    }),
  );
  const wall = performance.now() - started;
  times.sort((a, b) => a - b);
  const r = {
    label,
    n,
    concurrency,
    p50Ms: Math.round(percentile(times, 50) * 100) / 100,
    p99Ms: Math.round(percentile(times, 99) * 100) / 100,
    callsPerSec: Math.round((n / wall) * 1000 * 10) / 10,
  };
  console.log(`${label.padEnd(36)} c=${concurrency} p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  ${r.callsPerSec} calls/s`);
  return r;
}

const js = (code: string): ScriptJob => ({
  language: 'javascript',
  entry: 'm.js',
  files: new Map([['m.js', code]]),
  args: { text: 'a b c' },
  timeoutMs: 10_000,
});
const results = [
  await measure('javascript: word count', js('export function main({ text }) { return { words: text.split(" ").length }; }'), 200),
  await measure('javascript: word count', js('export function main({ text }) { return { words: text.split(" ").length }; }'), 200, 4),
];
if (await runner.supports('python')) {
  results.push(
    await measure(
      'python: json echo',
      {
        language: 'python',
        entry: 'm.py',
        files: new Map([['m.py', 'import json,sys\nprint(json.dumps(json.load(sys.stdin)))']]),
        args: { a: 1 },
        timeoutMs: 10_000,
      },
      40,
    ),
    await measure(
      'shell: echo',
      { language: 'shell', entry: 'm.sh', files: new Map([['m.sh', 'echo ok']]), args: {}, timeoutMs: 10_000 },
      40,
    ),
    await measure(
      'shell: echo',
      { language: 'shell', entry: 'm.sh', files: new Map([['m.sh', 'echo ok']]), args: {}, timeoutMs: 10_000 },
      40,
      2,
    ),
  );
}
await runner.close();
const out = path.join(resultsDir(), 'script-tools.json');
fs.writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`);
