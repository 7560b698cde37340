import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { CallerAffinity, DownstreamPeer, ToolCallResult } from '../../../src/domain/upstream-call.js';
import { createLogger } from '../../../src/logger.js';
import { UpstreamPool } from '../../../src/upstream/upstream-pool.js';
import { descendantPids, fixtureStdio, waitFor } from '../../helpers/upstreams.js';

const quiet = createLogger({ logLevel: 'error' }, new Writable({ write: (_c, _e, cb) => cb() }));

/** A caller that declared elicitation; `affinity` names it. */
function peer(key: string, owner: string, capabilities: CallerAffinity['capabilities'] = { elicitation: {} }): DownstreamPeer {
  return {
    has: (c) => c in capabilities,
    request: async () => ({ action: 'accept', content: { answer: key } }),
    log: () => undefined,
    affinity: () => ({ key, owner, capabilities }),
  };
}

const pidOf = (r: ToolCallResult) => (r.structuredContent as { pid: number }).pid;

describe('UpstreamPool: session-affine connections (bounds, reuse, idle reaping)', function () {
  this.timeout(60_000);
  let pool: UpstreamPool;
  const f = fixtureStdio();

  beforeEach(async () => {
    pool = new UpstreamPool({
      logger: quiet,
      clientInfo: { name: 'affinity-test', version: '1' },
      connectTimeoutMs: 30_000,
      retryBaseMs: 100,
      retryMaxMs: 1000,
      maxFastRetries: 3,
      affinity: { maxPerServer: 2, maxPerUser: 1, idleMs: 3000 },
    });
    await pool.upsert({
      id: 's1',
      name: 'fixture',
      connection: { transport: 'stdio', command: f.command, args: f.args, env: {}, cwd: f.cwd },
      callTimeoutMs: 30_000,
      healthCheckIntervalMs: 60_000,
    });
  });
  afterEach(() => pool.close());

  it('runs a caller that declared a client feature on a connection of its own, reused by its next call, then reaped when idle', async () => {
    const shared = pidOf(await pool.callTool('s1', 'whoami', {}));
    const a = peer('session a', 'alice');
    const first = pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: a }));
    expect(first).to.not.equal(shared);
    expect(pool.affinityStats()).to.deep.equal([{ serverId: 's1', busy: 0, idle: 1 }]);
    // The same caller's next call: the same process.
    expect(pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: a }))).to.equal(first);
    // A caller without client features (no affinity) shares the pooled connection.
    const plain: DownstreamPeer = { has: () => false, request: async () => ({}), log: () => undefined };
    expect(pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: plain }))).to.equal(shared);
    await waitFor('the idle connection reaped', () => pool.affinityStats().length === 0, 10_000);
  });

  it('declares toward the upstream only the features the caller declared', async () => {
    const result = await pool.callTool('s1', 'relay_all', { tag: 't' }, { downstream: peer('session b', 'bob') });
    // The fixture's sampling request is refused on a connection that did not declare sampling.
    expect(result.isError).to.equal(true);
    const both = await pool.callTool(
      's1',
      'test_elicitation',
      { message: 'hi' },
      { downstream: peer('session b', 'bob', { elicitation: {}, sampling: {} }) },
    );
    expect((both.content[0] as { text: string }).text).to.contain('"answer":"session b"');
  });

  it('past the per-user bound a call shares the pooled connection; an idle connection of the same user makes room', async () => {
    const shared = pidOf(await pool.callTool('s1', 'whoami', {}));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const waiting: DownstreamPeer = {
      ...peer('session c1', 'carol'),
      request: async () => {
        await held;
        return { action: 'accept', content: { answer: 'late' } };
      },
    };
    const busy = pool.callTool('s1', 'test_elicitation', { message: 'wait' }, { downstream: waiting });
    await waitFor('the first call busy on its own connection', () => pool.affinityStats()[0]?.busy === 1, 20_000);
    // Carol's second session while her first connection is busy: over her bound of 1, so shared.
    expect(pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: peer('session c2', 'carol') }))).to.equal(shared);
    // Dave is another user: a connection of his own (the server bound is 2).
    const dave = pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: peer('session d', 'dave') }));
    expect(dave).to.not.equal(shared);
    release();
    await busy;
    // Carol's idle connection gives way to her other session's.
    const c2 = pidOf(await pool.callTool('s1', 'whoami', {}, { downstream: peer('session c2', 'carol') }));
    expect(c2).to.not.equal(shared).and.not.equal(dave);
    expect(pool.affinityStats()).to.deep.equal([{ serverId: 's1', busy: 0, idle: 2 }]);
  });

  it('removing the server closes its session-affine connections', async () => {
    await pool.callTool('s1', 'whoami', {}, { downstream: peer('session e', 'erin') });
    expect(pool.affinityStats()).to.have.length(1);
    await pool.remove('s1');
    expect(pool.affinityStats()).to.deep.equal([]);
  });

  it('keeps the configured number of warm spares: that many callers at once each take a process started before them, and each is replaced', async () => {
    const marker = f.args.join(' ');
    const before = new Set(descendantPids(marker));
    const warm = new UpstreamPool({
      logger: quiet,
      clientInfo: { name: 'affinity-test', version: '1' },
      connectTimeoutMs: 30_000,
      retryBaseMs: 100,
      retryMaxMs: 1000,
      maxFastRetries: 3,
      affinity: { maxPerServer: 8, maxPerUser: 8, idleMs: 30_000, spares: 3 },
    });
    const ours = () => descendantPids(marker).filter((p) => !before.has(p));
    try {
      await warm.upsert({
        id: 'w',
        name: 'fixture',
        connection: { transport: 'stdio', command: f.command, args: f.args, env: {}, cwd: f.cwd },
        callTimeoutMs: 30_000,
        healthCheckIntervalMs: 60_000,
      });
      await warm.callTool('w', 'whoami', {});
      // The pooled process and three spares; give the spares time to finish their handshake.
      await waitFor('the pooled process and three spares', () => ours().length === 4, 20_000);
      await new Promise((r) => setTimeout(r, 3000));
      const started = new Set(ours());
      const callers = ['a', 'b', 'c'].map((k) => peer(`caller ${k}`, k));
      const pids = await Promise.all(callers.map((c) => warm.callTool('w', 'whoami', {}, { downstream: c }).then(pidOf)));
      expect(new Set(pids).size).to.equal(3);
      for (const pid of pids) expect(started.has(pid), `pid ${pid} was started before the calls`).to.equal(true);
      // Each spare taken is replaced: three callers' processes, the pooled one and three new spares.
      await waitFor('three new spares', () => ours().length === 7, 20_000);
    } finally {
      await warm.close();
    }
  });
});
