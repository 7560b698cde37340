import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../../src/stores/database.js';
import { PGliteThread } from '../../../src/stores/pglite-thread.js';
import { conflictOnUnique } from '../../../src/stores/unique-violation.js';
import { isConnectionError } from '../../../src/lib/database-errors.js';
import { ConflictError } from '../../../src/errors.js';

describe('the embedded database in its own thread (PGliteThread)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-pglite-thread-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs a long statement without stalling the event loop', async () => {
    const db = new PGliteThread(dir);
    try {
      await db.waitReady;
      let last = performance.now();
      let longestGap = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      const r = await db.query('select count(*)::int as n from generate_series(1, 2000000) g, lateral (select md5(g::text)) m');
      const took = performance.now() - started;
      clearInterval(tick);
      expect(r.rows).to.deep.equal([{ n: 2_000_000 }]);
      // The statement ran for a long time; the main thread kept its 5 ms timer meanwhile.
      expect(took).to.be.greaterThan(200);
      expect(longestGap).to.be.lessThan(took / 3);
    } finally {
      await db.close();
    }
  });

  it('hands back rows with their types, the PostgreSQL error fields, and keeps what was written across a reopen', async () => {
    const first = openDatabase({ dataDir: dir, databaseUrl: undefined, databaseSchema: undefined });
    await first.knex.schema.createTable('t', (t) => {
      t.integer('id').primary();
      t.timestamp('at', { useTz: true });
      t.jsonb('doc');
      t.binary('raw');
    });
    const at = new Date('2026-11-27T12:00:00.000Z');
    await first.knex('t').insert({ id: 1, at, doc: { a: [1, 'x'] }, raw: Buffer.from([1, 2, 3]) });
    const [row] = await first.knex('t').select();
    expect(row.at).to.be.instanceOf(Date);
    expect((row.at as Date).toISOString()).to.equal(at.toISOString());
    expect(row.doc).to.deep.equal({ a: [1, 'x'] });
    expect(Buffer.from(row.raw as Uint8Array)).to.deep.equal(Buffer.from([1, 2, 3]));

    const duplicate = await first
      .knex('t')
      .insert({ id: 1 })
      .catch((err: unknown) => err);
    expect(duplicate).to.be.instanceOf(Error);
    expect(duplicate).to.include({ code: '23505' });
    const mapped = await first
      .knex('t')
      .insert({ id: 1 })
      .catch(conflictOnUnique({ t_pkey: ['That id is taken', 'id_taken'] }))
      .catch((err: unknown) => err);
    expect(mapped).to.be.instanceOf(ConflictError);
    expect(mapped).to.include({ message: 'That id is taken' });

    // A transaction that fails leaves nothing behind.
    const failed = await first.knex
      .transaction(async (trx) => {
        await trx('t').insert({ id: 2 });
        await trx('t').insert({ id: 1 });
      })
      .catch((err: unknown) => err);
    expect(failed).to.include({ code: '23505' });
    expect(await first.knex('t').pluck('id')).to.deep.equal([1]);
    await first.close();
    await first.close();

    const second = openDatabase({ dataDir: dir, databaseUrl: undefined, databaseSchema: undefined });
    try {
      expect(await second.knex('t').pluck('id')).to.deep.equal([1]);
    } finally {
      await second.close();
    }
  });

  it('fails every waiting and later statement with a connection error when the thread dies', async () => {
    const db = new PGliteThread(dir);
    await db.waitReady;
    const inFlight = db.query('select pg_sleep(2)').catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 100));
    await (db as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const err = await inFlight;
    expect(isConnectionError(err)).to.equal(true);
    const later = await db.query('select 1').catch((e: unknown) => e);
    expect(isConnectionError(later)).to.equal(true);
    await db.close();
  });

  it('reports a data directory it cannot open as a failed start, not a hang', async () => {
    const file = path.join(dir, 'not-a-directory');
    fs.writeFileSync(file, 'x');
    const db = new PGliteThread(file);
    const err = await db.waitReady.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.not.equal('[object Object]');
    await db.close();
    expect(isConnectionError(await db.query('select 1').catch((e: unknown) => e))).to.equal(true);
  });

  it('creates a new data directory in a process of its own, and runs with its small memory settings', async () => {
    const cluster = path.join(dir, 'pglite');
    const before = new Set(childPids());
    const db = new PGliteThread(cluster);
    try {
      // While the directory is being made, a child process of this one does it.
      let sawCreator = false;
      const watching = setInterval(() => (sawCreator ||= childPids().some((pid) => !before.has(pid))), 20);
      await db.waitReady;
      clearInterval(watching);
      expect(sawCreator).to.equal(true);
      expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).to.equal(true);
      const settings = await db.query(
        "select name, setting, unit from pg_settings where name in ('shared_buffers', 'max_connections') order by name",
      );
      expect(settings.rows).to.deep.equal([
        { name: 'max_connections', setting: '4', unit: null },
        { name: 'shared_buffers', setting: '1024', unit: '8kB' },
      ]);
      await db.query('create table kept (id int)');
    } finally {
      await db.close();
    }
    // An existing directory opens in the thread itself: no process, and what was written is there.
    const again = new PGliteThread(cluster);
    const during = new Set(childPids());
    try {
      await again.waitReady;
      expect(childPids().filter((pid) => !during.has(pid) && !before.has(pid))).to.deep.equal([]);
      expect((await again.query("select to_regclass('kept') is not null as here")).rows).to.deep.equal([{ here: true }]);
    } finally {
      await again.close();
    }
  });
});

/** The process ids of this process's children (Linux /proc). */
function childPids(): number[] {
  const tasks = fs.readdirSync(`/proc/${process.pid}/task`);
  return tasks.flatMap((t) => fs.readFileSync(`/proc/${process.pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}
