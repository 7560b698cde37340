import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import type { UpstreamServerSpec, UpstreamState } from '../../../src/upstream/upstream-connection.js';
import { UpstreamPool } from '../../../src/upstream/upstream-pool.js';
import { descendantPids, fixtureStdio, freePort, waitFor } from '../../helpers/upstreams.js';

const logger = createLogger({ logLevel: 'silent' });

/** A pool on its own (no HTTP server, no database), recording what it reports. */
function makePool(overrides: Partial<ConstructorParameters<typeof UpstreamPool>[0]> = {}) {
  const states: UpstreamState[] = [];
  const connected: string[] = [];
  const changed: string[] = [];
  const pool = new UpstreamPool(
    {
      logger,
      clientInfo: { name: 'toolgate-test', version: '0' },
      connectTimeoutMs: 15000,
      retryBaseMs: 50,
      retryMaxMs: 200,
      maxFastRetries: 3,
      ...overrides,
    },
    {
      onConnected: (id) => connected.push(id),
      onStateChange: (_id, s) => states.push(s),
      onListChanged: (_id, kind) => changed.push(kind),
    },
  );
  return { pool, states, connected, changed };
}

function fixtureSpec(id: string, healthCheckIntervalMs = 60000): UpstreamServerSpec {
  const f = fixtureStdio();
  return {
    id,
    name: id,
    callTimeoutMs: 10000,
    healthCheckIntervalMs,
    connection: { transport: 'stdio', command: f.command, args: f.args, env: {}, cwd: f.cwd },
  };
}

describe('UpstreamPool', function () {
  this.timeout(60000);

  it('probes health periodically at the configured interval and records the latency', async () => {
    const { pool, states } = makePool();
    try {
      await pool.upsert(fixtureSpec('probe', 100));
      await waitFor('connected', () => pool.state('probe')?.status === 'connected');
      const latencies = () => states.filter((s) => s.status === 'connected' && typeof s.latencyMs === 'number').length;
      await waitFor('five probes', () => latencies() >= 5);
      expect(pool.state('probe')?.latencyMs).to.be.a('number').and.at.least(0);
    } finally {
      await pool.close();
    }
  });

  it('retries a dead upstream on a bounded schedule, then only once per health-check interval', async () => {
    const { pool } = makePool({ maxFastRetries: 3 });
    try {
      const port = await freePort();
      await pool.upsert({
        id: 'dead',
        name: 'dead',
        callTimeoutMs: 1000,
        healthCheckIntervalMs: 60000,
        connection: { transport: 'streamable_http', url: `http://127.0.0.1:${port}/mcp`, headers: {} },
      });
      await waitFor('four attempts', () => (pool.state('dead')?.attempts ?? 0) >= 4);
      await new Promise((r) => setTimeout(r, 1000));
      expect(pool.state('dead')).to.include({ status: 'error', attempts: 4, lastError: 'connection refused' });
    } finally {
      await pool.close();
    }
  });

  it('changing only the call timeout or the name keeps the connection; changing the connection replaces the process', async () => {
    const { pool } = makePool();
    try {
      const spec = fixtureSpec('swap');
      await pool.upsert(spec);
      await waitFor('connected', () => pool.state('swap')?.status === 'connected');
      const pid = pool.state('swap')?.pid;
      await pool.upsert({ ...spec, name: 'renamed', callTimeoutMs: 500 });
      expect(pool.state('swap')?.pid).to.equal(pid);
      const err = await pool.callTool('swap', 'sleep', { ms: 5000 }).catch((e: unknown) => e);
      expect((err as { kind?: string }).kind).to.equal('timeout');
      const f = fixtureStdio();
      await pool.upsert({
        ...spec,
        connection: { transport: 'stdio', command: f.command, args: f.args, env: { FIXTURE_NAME: 'other' }, cwd: f.cwd },
      });
      await waitFor('reconnected', () => pool.state('swap')?.status === 'connected');
      expect(pool.state('swap')?.pid).to.not.equal(pid);
      expect(pool.state('swap')?.serverInfo?.name).to.equal('other');
      expect(descendantPids(`--import tsx`).filter((p) => p === pid)).to.deep.equal([]);
    } finally {
      await pool.close();
    }
  });

  it('close() ends every stdio process and releases waiting callers', async () => {
    const { pool } = makePool();
    await pool.upsert(fixtureSpec('c1'));
    await pool.upsert({
      ...fixtureSpec('c2'),
      connection: { transport: 'stdio', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {}, cwd: null },
    });
    await waitFor('connected', () => pool.state('c1')?.status === 'connected');
    const pids = [pool.state('c1')!.pid!];
    const waiting = pool.callTool('c2', 'echo', {}, { timeoutMs: 30000 }).catch((e: unknown) => e);
    await pool.close();
    expect(((await waiting) as { kind?: string }).kind).to.equal('unavailable');
    for (const pid of pids) expect(() => process.kill(pid, 0)).to.throw();
    expect(descendantPids('setInterval')).to.deep.equal([]);
  });
});
