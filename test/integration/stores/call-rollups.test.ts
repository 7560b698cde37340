import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../../src/logger.js';
import { NO_SERVER_ID } from '../../../src/stores/call-records-store.js';
import { migrateToLatest, openDatabase } from '../../../src/stores/database.js';
import { expectRollupsMatchRecords, storedRollups, syntheticRecords } from '../../helpers/call-stats.js';
import { dropSchema, startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';

describe('call records and their rollups', function () {
  this.timeout(120000);
  let t: TestServer;
  const servers = Array.from({ length: 4 }, (_, i) => ({ id: randomUUID(), name: `server-${i}` }));

  before(async () => {
    t = await startTestServer({ noBootstrap: true });
  });
  after(() => t.stop());

  it('keeps per hour × server rollups and hourly histograms equal to the raw records, across concurrent batches', async () => {
    const store = t.server.services.stores.callRecords;
    const now = new Date();
    const records = syntheticRecords({ now, count: 3000, hours: 30, servers, seed: 7, emptyHours: [3, 4, 17] });
    // Eight writers at once (as several instances flushing the same hours), in uneven batches.
    const batches: (typeof records)[] = [];
    for (let i = 0; i < records.length; i += 100 + (i % 7) * 40) batches.push(records.slice(i, i + 100 + (i % 7) * 40));
    for (let i = 0; i < batches.length; i += 8) await Promise.all(batches.slice(i, i + 8).map((b) => store.insertMany(b)));
    expect(await expectRollupsMatchRecords(t.server.services.db.knex)).to.equal(3000);
  });

  it('writes through the recorder (the MCP path) with the same result', async () => {
    const recorder = t.server.services.callRecorder;
    for (const r of syntheticRecords({ now: new Date(), count: 700, hours: 2, servers, seed: 8 })) recorder.record(r);
    await recorder.flush();
    expect(await expectRollupsMatchRecords(t.server.services.db.knex)).to.equal(3700);
  });

  it('writes a batch all or nothing: a bad record leaves records and rollups untouched', async () => {
    const knex = t.server.services.db.knex;
    const before = await storedRollups(knex);
    const good = syntheticRecords({ now: new Date(), count: 20, hours: 1, servers, seed: 9 });
    const bad = { ...good[0]!, status: 'exploded' as never };
    let failedWrite = false;
    await t.server.services.stores.callRecords.insertMany([...good, bad]).catch(() => (failedWrite = true));
    expect(failedWrite).to.equal(true);
    expect(await storedRollups(knex)).to.deep.equal(before);
    expect(await expectRollupsMatchRecords(knex)).to.equal(3700);
  });

  it('keys calls without a server under the nil id', async () => {
    const rows = await t.server.services.db.knex('call_rollups').where({ server_id: NO_SERVER_ID }).sum({ calls: 'calls' });
    const raw = await t.server.services.db.knex('call_records').whereNull('server_id').count({ n: '*' });
    expect(Number(rows[0]!.calls)).to.equal(Number(raw[0]!.n)).and.to.be.greaterThan(0);
  });

  it('rolls up the records that exist when the migration runs', async () => {
    const schema = `tg_rollup_mig_${process.pid}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-rollup-mig-'));
    const db = openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: TEST_DATABASE_URL ? schema : undefined, dataDir });
    const logger = createLogger({ logLevel: 'silent' });
    try {
      await migrateToLatest(db, logger, { schema: TEST_DATABASE_URL ? schema : undefined });
      const store = new (await import('../../../src/stores/call-records-store.js')).CallRecordsStore(db.knex);
      await store.insertMany(syntheticRecords({ now: new Date(), count: 800, hours: 6, servers, seed: 10 }));
      // Back to before the rollups (records keep their rows), then up again: the migration rebuilds them.
      while (((await db.knex.migrate.list()) as [{ name: string }[]])[0].some((m) => m.name.startsWith('20261123130400')))
        await db.knex.migrate.down();
      expect(await db.knex.schema.hasTable('call_rollups')).to.equal(false);
      await migrateToLatest(db, logger, { schema: TEST_DATABASE_URL ? schema : undefined });
      expect(await expectRollupsMatchRecords(db.knex)).to.equal(800);
    } finally {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
    }
  });
});
