/**
 * Micro-benchmark of the credential check on the hot path: a warm API key (in-memory cache), a
 * cold one (database lookup), a session cookie, and the in-memory rate-limit charge.
 * Run: `npm run bench:auth`. Results: bench/results/auth-hot-path.json. Not part of the test suite.
 */
import fs from 'node:fs';
import { resultsDir } from './harness.js';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { bootstrapOwner } from '../src/services/identity/bootstrap-service.js';

async function time(
  label: string,
  n: number,
  fn: () => Promise<unknown>,
): Promise<{ label: string; n: number; usPerOp: number; opsPerSec: number }> {
  for (let i = 0; i < Math.min(1000, n); i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  const ns = Number(process.hrtime.bigint() - start);
  const r = { label, n, usPerOp: Math.round(ns / n / 10) / 100, opsPerSec: Math.round((n * 1e9) / ns) };
  console.log(`${label.padEnd(40)} ${String(r.usPerOp).padStart(8)} µs/op ${String(r.opsPerSec).padStart(10)} ops/s`);
  return r;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
const config = loadConfig({
  PORT: '0',
  TOOLGATE_DATA_DIR: dataDir,
  TOOLGATE_LOG_LEVEL: 'silent',
  TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '1000000',
});
const server = await startServer(config, { logger: createLogger(config) });
try {
  const s = server.services;
  const { key, userId } = await bootstrapOwner(s, { email: 'bench@example.com' });
  const session = await s.sessions.create(userId, null);
  const principal = await s.apiKeyAuth.authenticate(key, '127.0.0.1');
  const results = [
    await time('api key, warm (cache hit)', 200_000, () => s.apiKeyAuth.authenticate(key, '127.0.0.1')),
    await time('session cookie, warm', 200_000, () => s.sessions.authenticate(session.token)),
    await time('rate limit charge (memory)', 200_000, () => s.rateLimiter.check(principal)),
    await time('api key, cold (database lookup)', 500, () => {
      s.apiKeyAuth.invalidateUser(userId);
      return s.apiKeyAuth.authenticate(key, '127.0.0.1');
    }),
  ];
  const out = path.join(resultsDir(), 'auth-hot-path.json');
  fs.writeFileSync(
    out,
    `${JSON.stringify({ node: process.version, cpus: os.cpus().length, database: s.db.kind, at: new Date().toISOString(), results }, null, 2)}\n`,
  );
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
