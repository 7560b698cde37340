import { expect } from 'chai';
import { runAsActor } from '../../src/services/actor-context.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { ManualClock } from '../../src/lib/clock.js';

describe('admin activity log', function () {
  this.timeout(60000);
  let t: TestServer;
  const clock = new ManualClock(new Date('2026-11-23T10:00:00.000Z'));

  before(async () => {
    t = await startTestServer({ clock });
  });
  after(() => t.stop());

  const entries = async () =>
    (await t.server.services.db.knex('activity_log').select('*').orderBy('occurred_at', 'desc')) as Record<string, unknown>[];

  it('writes an entry in the caller transaction: committed with the change, gone with a rollback', async () => {
    const { tx: transactor } = t.server.services;
    const log = t.server.services.activityLog;
    await transactor.transaction(async (tx) => {
      await log.record(tx, { action: 'bundle.create', target: { type: 'bundle', id: 'b-1', name: 'Kept' } });
    });
    await transactor
      .transaction(async (tx) => {
        await log.record(tx, { action: 'bundle.create', target: { type: 'bundle', id: 'b-2', name: 'Rolled back' } });
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    const names = (await entries()).map((e) => e.target_name);
    expect(names).to.include('Kept');
    expect(names).to.not.include('Rolled back');
  });

  it('names the actor of the current request, when, and the outcome; system actions have no actor', async () => {
    const log = t.server.services.activityLog;
    clock.advance(60_000);
    await runAsActor({ userId: null, name: 'Ada Admin' }, () =>
      log.append({ action: 'server.refresh', target: { type: 'server', id: 's-1', name: 'github' }, outcome: 'error' }),
    );
    clock.advance(1000);
    await log.append({ action: 'retention.purge', target: { type: 'settings' } });
    const [system, failed] = await entries();
    expect(failed).to.include({ actor_name: 'Ada Admin', action: 'server.refresh', target_type: 'server', outcome: 'error' });
    expect((failed!.occurred_at as Date).toISOString()).to.equal('2026-11-23T10:01:00.000Z');
    expect(system).to.include({ actor_id: null, actor_name: null, outcome: 'success', action: 'retention.purge' });
  });

  it('keeps plain facts only and drops anything named like a secret', async () => {
    clock.advance(1000);
    await t.server.services.activityLog.append({
      action: 'settings.general.update',
      target: { type: 'settings', name: 'general' },
      details: {
        fields: ['registry_token', 'log_retention_days'],
        registry_token: 'tok-canary-0123456789',
        client_secret: 'sec-canary-0123456789',
        password: 'pw-canary-0123456789',
        bundle_key: 'tg_bdl_canary0123456789',
        api_key: 'tg_usr_live_canary',
        key_prefix: 'tg_usr_live_abcd',
        count: 2,
        note: 'x'.repeat(1000),
      },
    });
    const [entry] = await entries();
    const details = entry!.details as Record<string, unknown>;
    expect(details).to.have.keys('fields', 'key_prefix', 'count', 'note');
    expect((details.note as string).length).to.be.at.most(300);
    expect(JSON.stringify(entry)).to.not.match(/canary/);
  });
});
