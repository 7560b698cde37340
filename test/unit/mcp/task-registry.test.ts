import { expect } from 'chai';
import { JSONRPCErrorException } from 'json-rpc-2.0';
import { TaskRegistry } from '../../../src/mcp/tasks.js';

const ok = { content: [{ type: 'text', text: 'done' }] };
const limits = { defaultTtlMs: 60_000, maxTtlMs: 120_000, pollIntervalMs: 500, maxPerOwner: 2 };

/** A run the test settles by hand, recording whether the task's signal aborted it. */
function manual() {
  let resolve!: (v: typeof ok) => void;
  let reject!: (e: unknown) => void;
  const state = { aborted: false };
  const run = (signal: AbortSignal) => {
    signal.addEventListener('abort', () => (state.aborted = true));
    return new Promise<typeof ok>((res, rej) => ((resolve = res), (reject = rej)));
  };
  return { run, resolve: (v = ok) => resolve(v), reject: (e: unknown) => reject(e), state };
}

describe('TaskRegistry (gateway tasks)', () => {
  it('completes a task with its result, fails it with the JSON-RPC error it threw', async () => {
    const tasks = new TaskRegistry(limits);
    const a = manual();
    const done = tasks.create('alice', 'echo', 1000, a.run);
    expect(done.status).to.equal('working');
    a.resolve();
    await done.settled;
    expect(done).to.include({ status: 'completed' });
    expect(done.result).to.deep.equal(ok);
    const b = manual();
    const failed = tasks.create('alice', 'echo', 1000, b.run);
    b.reject(new JSONRPCErrorException('Upstream server x is unavailable', -32000));
    await failed.settled;
    expect(failed.status).to.equal('failed');
    expect(failed.error).to.deep.equal({ code: -32000, message: 'Upstream server x is unavailable' });
    const c = manual();
    const internal = tasks.create('bob', 'echo', 1000, c.run);
    c.reject(new Error('secret detail'));
    await internal.settled;
    expect(internal.error).to.deep.equal({ code: -32603, message: 'Internal error' });
    tasks.close();
  });

  it('never shows, lists or cancels a task to another owner', () => {
    const tasks = new TaskRegistry(limits);
    const a = manual();
    const task = tasks.create('alice', 'echo', 1000, a.run);
    expect(tasks.get('bob', task.id)).to.equal(undefined);
    expect(tasks.list('bob')).to.deep.equal([]);
    expect(tasks.cancel('bob', task.id)).to.equal(false);
    expect(a.state.aborted).to.equal(false);
    expect(tasks.get('alice', task.id)).to.equal(task);
    expect(tasks.list('alice')).to.deep.equal([task]);
    tasks.close();
  });

  it('cancels a working task once: its run is aborted and a late outcome is ignored', async () => {
    const tasks = new TaskRegistry(limits);
    const a = manual();
    const task = tasks.create('alice', 'echo', 1000, a.run);
    expect(tasks.cancel('alice', task.id)).to.equal(true);
    expect(a.state.aborted).to.equal(true);
    expect(task.status).to.equal('cancelled');
    expect(tasks.cancel('alice', task.id)).to.equal(false);
    a.resolve();
    await new Promise((r) => setImmediate(r));
    expect(task.status).to.equal('cancelled');
    expect(task.result).to.equal(undefined);
    tasks.close();
  });

  it('caps tasks per owner (-32003) and bounds the TTL a caller asks for', () => {
    const tasks = new TaskRegistry(limits);
    tasks.create('alice', 'echo', 1000, manual().run);
    tasks.create('alice', 'echo', 1000, manual().run);
    expect(() => tasks.create('alice', 'echo', 1000, manual().run))
      .to.throw(JSONRPCErrorException)
      .with.property('code', -32003);
    expect(() => tasks.create('bob', 'echo', 1000, manual().run)).to.not.throw();
    expect(tasks.ttlFor(undefined)).to.equal(60_000);
    expect(tasks.ttlFor(-5)).to.equal(60_000);
    expect(tasks.ttlFor(1e12)).to.equal(120_000);
    expect(tasks.ttlFor(1500.7)).to.equal(1500);
    tasks.close();
  });

  it('forgets a task when its TTL runs out (cancelling it if it still runs), which frees its slot', async () => {
    const tasks = new TaskRegistry(limits);
    const a = manual();
    const task = tasks.create('alice', 'echo', 20, a.run);
    tasks.create('alice', 'echo', 60_000, manual().run);
    await new Promise((r) => setTimeout(r, 60));
    expect(tasks.get('alice', task.id)).to.equal(undefined);
    expect(a.state.aborted).to.equal(true);
    expect(task.status).to.equal('cancelled');
    expect(() => tasks.create('alice', 'echo', 1000, manual().run)).to.not.throw();
    tasks.close();
  });

  it('cancels every working task on close and refuses new ones', () => {
    const tasks = new TaskRegistry(limits);
    const a = manual();
    tasks.create('alice', 'echo', 1000, a.run);
    tasks.close();
    expect(a.state.aborted).to.equal(true);
    expect(tasks.size).to.equal(0);
    expect(() => tasks.create('alice', 'echo', 1000, manual().run)).to.throw(JSONRPCErrorException);
  });
});
