import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knexFactory from 'knex';
import { ManualClock } from '../../../../src/lib/clock.js';
import { RetentionService } from '../../../../src/services/operations/retention-service.js';
import { RetentionStore } from '../../../../src/stores/retention-store.js';
import { expectRollupsMatchRecords, HOUR_MS, hourOf, rawRecords, syntheticRecords } from '../../../helpers/call-stats.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../../helpers/test-server.js';

const DAY_MS = 24 * HOUR_MS;

describe('retention purge', function () {
  this.timeout(120000);
  let t: TestServer;
  const clock = new ManualClock(new Date('2026-11-23T15:37:12.345Z'));
  const servers = [
    { id: randomUUID(), name: 'alpha' },
    { id: randomUUID(), name: 'beta' },
  ];

  /** A purge service like the server's, with small batches so a run takes many statements. */
  const purger = (batchSize = 97, pauseMs = 0) =>
    new RetentionService(
      {
        store: new RetentionStore(t.server.services.db.knex, { advisoryLock: t.server.services.db.kind === 'postgres' }),
        settings: t.server.services.generalSettings,
        clock,
        logger: t.server.logger,
      },
      { batchSize, pauseMs, vacuum: t.server.services.db.kind === 'pglite' },
    );

  before(async () => {
    t = await startTestServer({ clock });
    const now = clock.now();
    const records = syntheticRecords({ now, count: 3000, hours: 40 * 24, servers, seed: 21 });
    // Records on both sides of the cutoff hour's edge.
    const cutoff = hourOf(new Date(now.getTime() - 30 * DAY_MS));
    records.push({ ...records[0]!, occurred_at: new Date(cutoff - 1) }, { ...records[1]!, occurred_at: new Date(cutoff) });
    for (let i = 0; i < records.length; i += 500) await t.server.services.stores.callRecords.insertMany(records.slice(i, i + 500));
    const rows = Array.from({ length: 800 }, (_, i) => ({
      id: randomUUID(),
      occurred_at: new Date(now.getTime() - Math.floor((i / 800) * 400 * DAY_MS)),
      actor_id: null,
      actor_name: 'someone',
      action: 'bundle.update',
      target_type: 'bundle',
      target_id: randomUUID(),
      target_name: `b${i}`,
      outcome: 'success',
      details: '{}',
    }));
    await t.server.services.db.knex('activity_log').insert(rows);
    expect((await t.owner.put('/api/v1/settings/general', { log_retention_days: 30, activity_log_retention_days: 365 })).status).to.equal(
      200,
    );
  });
  after(() => t.stop());

  it('deletes call records of the hours past retention in bounded batches, with their rollups', async () => {
    const knex = t.server.services.db.knex;
    const before = await rawRecords(knex);
    const cutoff = hourOf(new Date(clock.now().getTime() - 30 * DAY_MS));
    const expired = before.filter((r) => r.occurred_at.getTime() < cutoff).length;
    expect(expired).to.be.greaterThan(200);
    const result = await purger().purge();
    expect(result).to.not.equal(undefined);
    expect(result!.callRecordsBefore.toISOString()).to.equal(new Date(cutoff).toISOString());
    expect(result!.callRecords).to.equal(expired);
    expect(result!.batches).to.be.at.least(Math.ceil(expired / 97));
    const after = await rawRecords(knex);
    expect(after.length).to.equal(before.length - expired);
    expect(after.every((r) => r.occurred_at.getTime() >= cutoff)).to.equal(true);
    expect(after.some((r) => r.occurred_at.getTime() === cutoff)).to.equal(true);
    // The rollups describe exactly the records that are left: whole expired hours went with them.
    await expectRollupsMatchRecords(knex);
    const oldest = await knex('call_rollups').min({ hour: 'hour' });
    expect((oldest[0]!.hour as Date).getTime()).to.be.at.least(cutoff);
  });

  it('deletes activity entries past their own retention', async () => {
    const knex = t.server.services.db.knex;
    const cutoff = clock.now().getTime() - 365 * DAY_MS;
    const entries = (await knex('activity_log').select('occurred_at')) as { occurred_at: Date }[];
    expect(entries.length).to.be.greaterThan(0);
    expect(entries.every((e) => e.occurred_at.getTime() >= cutoff)).to.equal(true);
    expect(entries.some((e) => e.occurred_at.getTime() < cutoff + 30 * DAY_MS)).to.equal(true);
  });

  it('follows the clock and the settings: a day later, or a shorter retention, purges more', async () => {
    const knex = t.server.services.db.knex;
    clock.advance(DAY_MS);
    let result = await purger().purge();
    expect(result!.callRecords).to.be.greaterThan(0);
    await expectRollupsMatchRecords(knex);
    await t.owner.put('/api/v1/settings/general', { log_retention_days: 2 });
    result = await purger(5000).purge();
    const left = await rawRecords(knex);
    const cutoff = hourOf(new Date(clock.now().getTime() - 2 * DAY_MS));
    expect(result!.callRecordsBefore.getTime()).to.equal(cutoff);
    expect(left.every((r) => r.occurred_at.getTime() >= cutoff)).to.equal(true);
    await expectRollupsMatchRecords(knex);
    // Nothing left to do: a second run deletes nothing.
    const again = await purger().purge();
    expect({ calls: again!.callRecords, activity: again!.activityEntries, rollups: again!.rollupRows }).to.deep.equal({
      calls: 0,
      activity: 0,
      rollups: 0,
    });
  });

  it('runs by itself on its interval once started, and stops', async () => {
    const knex = t.server.services.db.knex;
    clock.advance(DAY_MS);
    const count = async () => Number((await knex('call_records').count({ n: '*' }))[0]!.n);
    const before = await count();
    const service = new RetentionService(
      {
        store: new RetentionStore(knex, { advisoryLock: t.server.services.db.kind === 'postgres' }),
        settings: t.server.services.generalSettings,
        clock,
        logger: t.server.logger,
      },
      { intervalMs: 50 },
    );
    service.start();
    try {
      for (let i = 0; i < 200 && (await count()) === before; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await service.stop();
    }
    expect(await count()).to.be.lessThan(before);
    await expectRollupsMatchRecords(knex);
  });

  it('runs on one instance at a time (PostgreSQL advisory lock)', async function () {
    if (!TEST_DATABASE_URL) this.skip();
    const knex = t.server.services.db.knex;
    const other = knexFactory({
      client: 'pg',
      connection: TEST_DATABASE_URL,
      searchPath: [t.config.databaseSchema!],
      pool: { min: 1, max: 1 },
    });
    try {
      // Another instance holds the lock: this run does nothing.
      await other.raw("select pg_advisory_lock(hashtext(current_schema() || ':toolgate.retention'))");
      clock.advance(DAY_MS);
      const count = async () => Number((await knex('call_records').count({ n: '*' }))[0]!.n);
      const before = await count();
      expect(await purger().purge()).to.equal(undefined);
      expect(await count()).to.equal(before);
      await other.raw("select pg_advisory_unlock(hashtext(current_schema() || ':toolgate.retention'))");
      // Two runs at once: one does the work, the other finds the lock taken.
      const results = await Promise.all([purger(10, 5).purge(), purger(10, 5).purge()]);
      expect(results.filter((r) => r === undefined)).to.have.length(1);
      expect(await count()).to.be.lessThan(before);
      await expectRollupsMatchRecords(knex);
    } finally {
      await other.destroy();
    }
  });
});
