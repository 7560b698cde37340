/**
 * The price of read-your-writes across instances (src/redis/change-bus.ts): every request to
 * `/mcp/gateway` and the REST API on an instance with Redis first awaits `caughtUp()`, one GET of
 * the deployment's change count (shared by the requests that arrive while one is in flight). This
 * measures that await alone against the local Redis, with nothing pending:
 *
 * - 1 caller, one await after the other: latency per await (a Redis round trip) and this
 *   process's CPU per await;
 * - 32 and 256 concurrent callers in a closed loop: awaits per second, CPU per await, and GETs
 *   sent per await (Redis `INFO commandstats`), which shows the sharing.
 *
 * Results: bench/results/change-barrier-<time>.json and a line per case.
 * Usage: npx tsx bench/change-barrier.ts   (REDIS_URL, default redis://127.0.0.1:6379; BENCH_MS per case)
 */
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createLogger } from '../src/logger.js';
import { RedisChangeBus } from '../src/redis/change-bus.js';
import { median, writeResult } from './harness.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN_MS = Number(process.env.BENCH_MS ?? 3000);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function main(): Promise<void> {
  const logger = createLogger({ logLevel: 'warn' }, new Writable({ write: (_c, _e, cb) => cb() }));
  const bus = new RedisChangeBus(REDIS_URL, logger);
  await bus.ready();
  const stats = new Redis(REDIS_URL);
  const gets = async () => Number(/cmdstat_get:calls=(\d+)/.exec(await stats.info('commandstats'))?.[1] ?? 0);

  const cases: Record<string, unknown>[] = [];
  for (const callers of [1, 32, 256]) {
    // Warm-up, then the measured window.
    const loop = async (ms: number, samples?: number[]) => {
      let ops = 0;
      const end = performance.now() + ms;
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (performance.now() < end) {
            const t0 = performance.now();
            await bus.caughtUp();
            if (samples && samples.length < 200_000) samples.push(performance.now() - t0);
            ops += 1;
          }
        }),
      );
      return ops;
    };
    await loop(500);
    const samples: number[] = [];
    const gets0 = await gets();
    const cpu0 = cpuUs();
    const t0 = performance.now();
    const ops = await loop(RUN_MS, samples);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuUs() - cpu0;
    const sent = (await gets()) - gets0;
    samples.sort((a, b) => a - b);
    const row = {
      callers,
      awaits_per_s: Math.round(ops / seconds),
      p50_ms: Math.round(median(samples) * 1000) / 1000,
      p99_ms: Math.round(samples[Math.floor(samples.length * 0.99)]! * 1000) / 1000,
      cpu_us_per_await: Math.round((cpu / ops) * 10) / 10,
      gets_per_await: Math.round((sent / ops) * 1000) / 1000,
    };
    cases.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  const out = { at: new Date().toISOString(), loadavg: os.loadavg(), run_ms: RUN_MS, cases };
  const file = writeResult('change-barrier', out.at, out);
  process.stdout.write(`written: ${path.relative(path.join(HERE, '..'), file)}\n`);
  stats.disconnect();
  await bus.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
