/**
 * Scale-out session options (sessions shared across instances), measured side by side in one run:
 *  - local: the in-memory lookup every request of a session known on this instance takes (both
 *    options keep it: only an id the instance has never seen costs more);
 *  - redis: the shared store as built (src/redis/shared-sessions.ts): SET on initialize, GET the
 *    first time another instance sees the id, the per-sweep batched PEXPIRE of sessions in use;
 *  - signed: the alternative, a self-contained session id (the record, base64url, plus an
 *    HMAC-SHA256 tag) that any instance verifies and decodes without a round trip.
 * Per operation: mean µs over N operations, and p50/p99 of the Redis round trips (sequential, so
 * they are round-trip latencies). Results: bench/results/sessions-<time>.json.
 * Usage: npm run bench:sessions   (REDIS_URL, default redis://127.0.0.1:6379)
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { resultsDir } from './harness.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SessionStore, type SessionRecord } from '../src/mcp/sessions.js';
import { RedisSharedSessions } from '../src/redis/shared-sessions.js';
import { LocalChangeBus } from '../src/redis/change-bus.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_N ?? 5000);
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

const record = (id: string): SessionRecord => ({
  id,
  scope: '5b0f3c1e-6a47-4d3e-9d0a-2f9c1b7e8a11',
  credential: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  protocolVersion: '2025-11-25',
  initialized: true,
  clientCapabilities: { roots: { listChanged: true }, sampling: {} },
});

async function timeAsync(n: number, fn: (i: number) => Promise<unknown>): Promise<{ mean_us: number; p50_us: number; p99_us: number }> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    xs.push((performance.now() - t) * 1000);
  }
  return { mean_us: round(xs.reduce((a, b) => a + b, 0) / n, 1), p50_us: round(q(xs, 0.5), 1), p99_us: round(q(xs, 0.99), 1) };
}

function timeSync(n: number, fn: (i: number) => unknown): { mean_us: number } {
  for (let i = 0; i < Math.min(n, 1000); i++) fn(i); // warm-up
  const t = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return { mean_us: round(((performance.now() - t) * 1000) / n, 3) };
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  // Local: 10,000 sessions in the store, lookups of known ids.
  const store = new SessionStore(30 * 60_000, Date.now, { maxPerScope: 20_000 });
  const ids = Array.from({ length: 10_000 }, () => store.create('scope', 'cred', '2025-11-25').id);
  const local = timeSync(N * 100, (i) => store.get(ids[i % ids.length]!));

  // Redis, as built.
  const bus = new LocalChangeBus();
  const shared = new RedisSharedSessions(REDIS_URL, bus, logger);
  await shared.ready();
  const redisIds = Array.from({ length: N }, () => randomBytes(24).toString('base64url'));
  const save = await timeAsync(N, (i) => shared.save(record(redisIds[i]!), 60_000));
  const load = await timeAsync(N, (i) => shared.load(redisIds[i]!));
  const miss = await timeAsync(N, () => shared.load(randomBytes(24).toString('base64url')));
  // One sweep's batched touch of 1,000 sessions in use (once a minute at most).
  const touch = await timeAsync(20, async () => {
    shared.touch(redisIds.slice(0, 1000), 60_000);
    await shared.load(redisIds[0]!); // the pipeline is flushed before this GET answers
  });
  // A second store on the same Redis: first request of a session opened "elsewhere" (resolve = GET + build), then local hits.
  const other = new SessionStore(30 * 60_000, Date.now, { maxPerScope: 20_000, shared });
  const firstSeen = await timeAsync(N, (i) => Promise.resolve(other.resolve(redisIds[i]!)));
  const afterFirst = timeSync(N * 100, (i) => other.get(redisIds[i % N]!));
  for (const id of redisIds) shared.end(id);

  // Signed ids: sign on initialize, verify + decode on every request an instance has not cached.
  const key = randomBytes(32);
  const sign = (r: SessionRecord) => {
    const body = Buffer.from(JSON.stringify({ ...r, n: randomBytes(16).toString('base64url') })).toString('base64url');
    return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
  };
  const verify = (token: string): SessionRecord | undefined => {
    const dot = token.indexOf('.');
    const body = token.slice(0, dot);
    const tag = Buffer.from(token.slice(dot + 1), 'base64url');
    const want = createHmac('sha256', key).update(body).digest();
    if (tag.length !== want.length || !timingSafeEqual(tag, want)) return undefined;
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionRecord;
  };
  const tokens = Array.from({ length: 1000 }, (_, i) => sign(record(String(i))));
  const signCost = timeSync(N * 10, (i) => sign(record(String(i))));
  const verifyCost = timeSync(N * 10, (i) => verify(tokens[i % tokens.length]!));

  const result = {
    at: new Date().toISOString(),
    loadavg: os.loadavg().map((x) => round(x, 2)),
    cpus: os.cpus().length,
    n: N,
    local_get_known_id: local,
    redis: {
      save_on_initialize: save,
      load_hit_first_request_elsewhere: load,
      load_miss_unknown_id: miss,
      touch_1000_sessions_per_sweep: touch,
      store_resolve_first_request_elsewhere: firstSeen,
      store_get_after_first_request: afterFirst,
    },
    signed: {
      sign_on_initialize: signCost,
      verify_decode_per_uncached_request: verifyCost,
      id_length_chars: tokens[0]!.length,
    },
  };
  const dir = resultsDir();
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `sessions-${result.at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten: ${file}\n`);
  store.close();
  other.close();
  await shared.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
