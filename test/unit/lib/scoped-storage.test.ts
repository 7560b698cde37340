import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { scopedStorage } from '../../../src/lib/scoped-storage.js';

const MODULE = fileURLToPath(new URL('../../../src/lib/scoped-storage.ts', import.meta.url));

/** True while V8's promise hooks are on (an AsyncLocalStorage enabled): each continuation gets an async id of its own. */
async function promiseHooksOn(): Promise<boolean> {
  await null;
  const first = executionAsyncId();
  await null;
  return executionAsyncId() !== first;
}

describe('scopedStorage (an AsyncLocalStorage enabled only while it runs)', () => {
  it('turns promise hooks on for its runs only (in a process of its own, where nothing else enables them)', function () {
    this.timeout(20000);
    const script = `
      import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
      import { scopedStorage } from ${JSON.stringify(MODULE)};
      const on = async () => { await null; const first = executionAsyncId(); await null; return executionAsyncId() !== first; };
      const storage = scopedStorage(new AsyncLocalStorage());
      const seen = [await on()];
      seen.push(await storage.run(1, async () => on()));
      seen.push(await on());
      await storage.run(2, async () => storage.run(3, async () => null));
      seen.push(await on());
      console.log(JSON.stringify(seen));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).to.deep.equal([false, true, false, false]);
  });

  it('gives each run its own store through awaits, and stays enabled until the last run settles', async () => {
    const storage = scopedStorage(new AsyncLocalStorage<string>());
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = storage.run('a', async () => {
      await gate;
      return storage.getStore();
    });
    const b = storage.run('b', async () => {
      await null;
      return [storage.getStore(), await promiseHooksOn()] as const;
    });
    expect(await b).to.deep.equal(['b', true]);
    // `a` is still running: the storage stays enabled for it.
    expect(await promiseHooksOn()).to.equal(true);
    release();
    expect(await a).to.equal('a');
    expect(storage.getStore()).to.equal(undefined);
  });

  it('releases a run whose function throws or rejects', async () => {
    const storage = scopedStorage(new AsyncLocalStorage<number>());
    const thrown = await storage
      .run(1, () => {
        throw new Error('sync');
      })
      .catch((e: Error) => e.message);
    expect(thrown).to.equal('sync');
    const rejected = await storage.run(2, () => Promise.reject(new Error('async'))).catch((e: Error) => e.message);
    expect(rejected).to.equal('async');
    expect(storage.getStore()).to.equal(undefined);
    expect(storage.exit(() => storage.getStore())).to.equal(undefined);
  });
});
