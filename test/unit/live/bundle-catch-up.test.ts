import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import { BundleCatchUp } from '../../../src/live/bundle-catch-up.js';
import type { LiveBundle } from '../../../src/live/bundles-registry.js';

const lines: string[] = [];
const logger = createLogger(
  { logLevel: 'warn', logFormat: 'json' },
  new Writable({
    write: (chunk: Buffer, _e, cb) => {
      lines.push(chunk.toString());
      cb();
    },
  }),
);
const bundle = (keyHash: string) => ({ id: `b-${keyHash}`, keyHash }) as unknown as LiveBundle;

/** A database stand-in: `known` key hashes exist; reads are held until `release()`. */
function fakeReads(known: string[]) {
  const reads: string[] = [];
  let held: (() => void)[] = [];
  let failing = false;
  return {
    reads,
    fail: (on: boolean) => (failing = on),
    release: () => {
      const h = held;
      held = [];
      h.forEach((r) => r());
    },
    read: (keyHash: string) => {
      reads.push(keyHash);
      return new Promise<LiveBundle | undefined>((resolve, reject) =>
        held.push(() =>
          failing ? reject(new Error('connect ECONNREFUSED')) : resolve(known.includes(keyHash) ? bundle(keyHash) : undefined),
        ),
      );
    },
  };
}

describe('BundleCatchUp (a bundle key another instance just created)', () => {
  it('reads a key once however many requests ask for it meanwhile, and answers them all', async () => {
    const db = fakeReads(['k1']);
    const catchUp = new BundleCatchUp({ read: db.read, logger });
    const asked = [catchUp.lookup('k1'), catchUp.lookup('k1'), catchUp.lookup('k1')];
    db.release();
    const found = await Promise.all(asked);
    expect(found.map((b) => b?.id)).to.deep.equal(['b-k1', 'b-k1', 'b-k1']);
    expect(db.reads).to.deep.equal(['k1']);
  });

  it('answers a key the database did not know from memory until the miss expires, or a bundle changes', async () => {
    let now = 1_000;
    const db = fakeReads([]);
    const catchUp = new BundleCatchUp({ read: db.read, logger, missTtlMs: 2000, now: () => now });
    const first = catchUp.lookup('nope');
    db.release();
    expect(await first).to.equal(undefined);
    expect(await catchUp.lookup('nope')).to.equal(undefined);
    expect(db.reads).to.have.length(1);
    now += 2001;
    const again = catchUp.lookup('nope');
    db.release();
    expect(await again).to.equal(undefined);
    expect(db.reads).to.have.length(2);
    catchUp.forgetMisses();
    const afterChange = catchUp.lookup('nope');
    db.release();
    await afterChange;
    expect(db.reads).to.have.length(3);
  });

  it('runs at most maxInFlight reads: beyond them an unknown key is 404 without a query', async () => {
    const db = fakeReads([]);
    const catchUp = new BundleCatchUp({ read: db.read, logger, maxInFlight: 2 });
    const asked = ['a', 'b', 'c', 'd'].map((k) => catchUp.lookup(k));
    expect(db.reads).to.deep.equal(['a', 'b']);
    expect(await asked[2]).to.equal(undefined);
    db.release();
    await Promise.all(asked);
    // Room again once the reads are done.
    const later = catchUp.lookup('e');
    expect(db.reads).to.deep.equal(['a', 'b', 'e']);
    db.release();
    await later;
  });

  it('answers unknown while the database is unreachable, logs it without the key, and does not remember it as a miss', async () => {
    const db = fakeReads(['k2']);
    const catchUp = new BundleCatchUp({ read: db.read, logger });
    db.fail(true);
    lines.length = 0;
    const during = catchUp.lookup('k2');
    db.release();
    expect(await during).to.equal(undefined);
    expect(lines.join('')).to.include('could not look up a bundle key');
    expect(lines.join('')).to.not.include('k2');
    db.fail(false);
    const after = catchUp.lookup('k2');
    db.release();
    expect((await after)?.id).to.equal('b-k2');
  });

  it('keeps at most maxMisses remembered, forgetting the oldest', async () => {
    const db = fakeReads([]);
    const catchUp = new BundleCatchUp({ read: db.read, logger, maxMisses: 2 });
    for (const k of ['m1', 'm2', 'm3']) {
      const p = catchUp.lookup(k);
      db.release();
      await p;
    }
    for (const k of ['m2', 'm3']) await catchUp.lookup(k);
    expect(db.reads).to.deep.equal(['m1', 'm2', 'm3']);
    const p = catchUp.lookup('m1');
    db.release();
    await p;
    expect(db.reads).to.deep.equal(['m1', 'm2', 'm3', 'm1']);
  });
});
