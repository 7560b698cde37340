import { expect } from 'chai';
import { runAsActor } from '../../../../src/services/actor-context.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { FakeGithub } from '../../../helpers/fake-github.js';
import { createUser } from '../../../helpers/identity.js';
import { createSkill, scriptSkill } from '../../../helpers/skills.js';
import { fixtureStdio, register, waitConnected } from '../../../helpers/upstreams.js';

type Row = Record<string, unknown>;

describe('admin activity log', function () {
  this.timeout(60000);
  let t: TestServer;
  const clock = new ManualClock(new Date('2026-11-23T10:00:00.000Z'));

  let github: FakeGithub;

  before(async () => {
    github = await FakeGithub.start();
    github.repos.set('acme/skills', {
      files: { 'skills/slides/SKILL.md': '---\nname: slides\ndescription: Makes slide decks\n---\n\n# slides\n' },
    });
    t = await startTestServer({ clock, env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_SKILLS_GITHUB_API_URL: github.url } });
  });
  after(async () => {
    await t?.stop();
    await github?.close();
  });

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

  describe('every state-changing admin operation appends one entry, in its own transaction', () => {
    /** Runs `op` and returns the entries it added (by id: the manual clock gives many equal timestamps). */
    const added = async (op: () => Promise<unknown>): Promise<Row[]> => {
      const before = new Set((await entries()).map((e) => e.id));
      await op();
      return (await entries()).filter((e) => !before.has(e.id));
    };
    /** Runs `op`, asserts it succeeded with `status`, and that it added exactly one entry of `action`. */
    const one = async (action: string, op: () => Promise<{ status: number; text: string }>, status: number, target: Row = {}) => {
      let res: { status: number; text: string } | undefined;
      const rows = await added(async () => (res = await op()));
      expect(res!.status, res!.text).to.equal(status);
      expect(rows.map((r) => r.action)).to.deep.equal([action]);
      const row = rows[0]!;
      expect(row).to.include({ outcome: 'success', ...target });
      if (action !== 'user.bootstrap') expect(row).to.include({ actor_name: 'Owner' });
      expect(row.actor_id).to.be.a('string');
      return row;
    };
    /** Runs a failing `op`: answered `status`, and no entry. */
    const none = async (op: () => Promise<{ status: number; text: string }>, status: number) => {
      let res: { status: number; text: string } | undefined;
      const rows = await added(async () => (res = await op()));
      expect(res!.status, res!.text).to.equal(status);
      expect(rows).to.deep.equal([]);
    };

    let serverId = '';
    let toolIds: string[] = [];
    let bundleId = '';

    it('servers: create, update, disable, enable, refresh, tool selection (and failures leave no entry)', async () => {
      const created = await added(async () => {
        const s = await register(t.owner, {
          name: 'act-fixture',
          transport: 'stdio',
          ...fixtureStdio(),
          secret_env: { API_TOKEN: 'sec-canary-srv-0123456789' },
        });
        serverId = s.id;
      });
      expect(created.map((r) => r.action)).to.deep.equal(['server.create']);
      expect(created[0]).to.include({ target_type: 'server', target_id: serverId, target_name: 'act-fixture', actor_name: 'Owner' });
      await waitConnected(t.owner, serverId, 2);
      toolIds = (await t.owner.get(`/api/v1/servers/${serverId}/tools?page_size=100`)).body.items.map((x: { id: string }) => x.id);
      await none(() => t.owner.post('/api/v1/servers', { name: 'act-fixture', transport: 'stdio', ...fixtureStdio() }), 409);
      const updated = await one(
        'server.update',
        () =>
          t.owner.patch(`/api/v1/servers/${serverId}`, { description: 'changed', secret_env: { API_TOKEN: 'sec-canary-srv-9876543210' } }),
        200,
        { target_id: serverId },
      );
      expect(updated.details).to.deep.equal({ fields: ['description', 'secret_env'] });
      await none(() => t.owner.patch(`/api/v1/servers/${serverId}`, { url: 'http://127.0.0.1:1/mcp' }), 422);
      await one('server.disable', () => t.owner.post(`/api/v1/servers/${serverId}/disable`), 200, { target_name: 'act-fixture' });
      await one('server.enable', () => t.owner.post(`/api/v1/servers/${serverId}/enable`), 200, { target_name: 'act-fixture' });
      await waitConnected(t.owner, serverId, 2);
      const refreshed = await one('server.refresh', () => t.owner.post(`/api/v1/servers/${serverId}/refresh`), 200, {
        target_id: serverId,
      });
      expect(refreshed.details).to.deep.include({ status: 'connected' });
      const selection = await one(
        'server.tools.disable',
        () => t.owner.patch(`/api/v1/servers/${serverId}/tool-selection`, { tool_ids: [toolIds[0]], enabled: false }),
        200,
        { target_type: 'server', target_id: serverId },
      );
      expect(selection.details).to.deep.include({ tool_ids: [toolIds[0]], changed: 1 });
      await one(
        'server.tools.enable',
        () => t.owner.patch(`/api/v1/servers/${serverId}/tool-selection`, { tool_ids: [toolIds[0]], enabled: true }),
        200,
      );
      await none(
        () =>
          t.owner.patch(`/api/v1/servers/${serverId}/tool-selection`, {
            tool_ids: ['00000000-0000-4000-8000-000000000000'],
            enabled: true,
          }),
        400,
      );
    });

    it('bundles: create, update, tools add/override/reorder/remove, regenerate key, delete (never the key)', async () => {
      const [first, second] = toolIds as [string, string];
      let key = '';
      const created = await one(
        'bundle.create',
        async () => {
          const res = await t.owner.post('/api/v1/bundles', { name: 'act-bundle', tools: [{ tool_id: first }] });
          bundleId = res.body.id;
          key = res.body.bundle_key;
          return res;
        },
        201,
        { target_type: 'bundle', target_name: 'act-bundle' },
      );
      expect(created.target_id).to.equal(bundleId);
      await none(
        () => t.owner.post('/api/v1/bundles', { name: 'broken', tools: [{ tool_id: '00000000-0000-4000-8000-000000000000' }] }),
        400,
      );
      await one('bundle.update', () => t.owner.put(`/api/v1/bundles/${bundleId}`, { name: 'act-bundle-2' }), 200, {
        target_name: 'act-bundle-2',
      });
      await one('bundle.tools.add', () => t.owner.post(`/api/v1/bundles/${bundleId}/tools`, { tools: [{ tool_id: second }] }), 200);
      await none(() => t.owner.post(`/api/v1/bundles/${bundleId}/tools`, { tools: [{ tool_id: second }] }), 409);
      await one(
        'bundle.tools.override',
        () => t.owner.put(`/api/v1/bundles/${bundleId}/tools/${second}/override`, { title: 'Second' }),
        200,
      );
      await one(
        'bundle.tools.reorder',
        () =>
          t.owner.post(`/api/v1/bundles/${bundleId}/reorder`, {
            tool_orders: [
              [second, 0],
              [first, 1],
            ],
          }),
        204,
      );
      await one('bundle.tools.remove', () => t.owner.delete(`/api/v1/bundles/${bundleId}/tools/${second}`), 204);
      let newKey = '';
      await one(
        'bundle.regenerate_key',
        async () => {
          const res = await t.owner.post(`/api/v1/bundles/${bundleId}/regenerate-key`);
          newKey = res.body.bundle_key;
          return res;
        },
        200,
      );
      const all = JSON.stringify(await entries());
      expect(all).to.not.include(key.slice(-20));
      expect(all).to.not.include(newKey.slice(-20));
    });

    it('skills: create, update, import, attach, detach, delete', async () => {
      let skill: any;
      await one(
        'skill.create',
        async () => {
          skill = await createSkill(
            t.owner,
            scriptSkill('act-skill', { act_echo: ['javascript', 'e.js', 'export const main = (a) => a;'] }),
          );
          return { status: 201, text: '' };
        },
        201,
        { target_type: 'skill', target_name: 'act-skill' },
      );
      await none(
        () => t.owner.post('/api/v1/skills', scriptSkill('act-skill', { x: ['javascript', 'x.js', 'export const main = () => 1;'] })),
        409,
      );
      await one('skill.update', () => t.owner.patch(`/api/v1/skills/${skill.id}`, { description: 'Changed' }), 200, {
        target_id: skill.id,
      });
      await one('skill.import', () => t.owner.post('/api/v1/skills/import', { source: 'acme/skills/skills', name: 'slides' }), 201, {
        target_name: 'slides',
      });
      const attached = await one('skill.attach', () => t.owner.post(`/api/v1/servers/${serverId}/skills/${skill.id}/attach`), 200, {
        target_id: skill.id,
      });
      expect(attached.details).to.deep.include({ server_id: serverId, server_name: 'act-fixture', tools: ['act_echo'] });
      await none(() => t.owner.post(`/api/v1/servers/${serverId}/skills/${skill.id}/attach`), 409);
      await one('skill.detach', () => t.owner.delete(`/api/v1/servers/${serverId}/skills/${skill.id}`), 204, { target_name: 'act-skill' });
      await one('skill.delete', () => t.owner.delete(`/api/v1/skills/${skill.id}`), 204, { target_name: 'act-skill' });
    });

    it('api keys: create, update, rotate, revoke (with the public prefix, never the key)', async () => {
      let key: any;
      await one(
        'api_key.create',
        async () => {
          const res = await t.owner.post('/api/v1/users/me/api-keys', { name: 'act-key' });
          key = res.body;
          return res;
        },
        201,
        { target_type: 'api_key', target_name: 'act-key' },
      );
      await one('api_key.update', () => t.owner.patch(`/api/v1/users/me/api-keys/${key.id}`, { name: 'act-key-2' }), 200, {
        target_id: key.id,
      });
      let rotated: any;
      const rotation = await one(
        'api_key.rotate',
        async () => {
          const res = await t.owner.post(`/api/v1/users/me/api-keys/${key.id}/rotate`, { grace_period_seconds: 0 });
          rotated = res.body.new_key;
          return res;
        },
        200,
        { target_id: key.id },
      );
      expect(rotation.details).to.deep.include({ new_key_id: rotated.id, key_prefix: key.key_prefix });
      await none(() => t.owner.post(`/api/v1/users/me/api-keys/${key.id}/rotate`, {}), 409);
      await one('api_key.revoke', () => t.owner.delete(`/api/v1/users/me/api-keys/${rotated.id}`), 204, { target_id: rotated.id });
      const all = JSON.stringify(await entries());
      expect(all).to.not.include(key.key.slice(-20));
      expect(all).to.not.include(rotated.key.slice(-20));
    });

    it('users, invitations and gateway settings: update role, deactivate, invite, revoke', async () => {
      const member = await createUser(t, 'member');
      const role = await one('user.update', () => t.owner.patch(`/api/v1/users/${member.id}`, { role: 'admin' }), 200, {
        target_type: 'user',
        target_id: member.id,
      });
      expect(role.details).to.deep.include({ role_from: 'member', role_to: 'admin' });
      await one('user.deactivate', () => t.owner.delete(`/api/v1/users/${member.id}`), 204, { target_id: member.id });
      const owner = (await t.owner.get('/api/v1/users/me')).body;
      await none(() => t.owner.patch(`/api/v1/users/${owner.id}`, { role: 'member' }), 409);
      let invitation: any;
      const invited = await one(
        'invitation.create',
        async () => {
          const res = await t.owner.post('/api/v1/invitations', { email: 'act-invitee@example.com', role: 'admin' });
          invitation = res.body;
          return res;
        },
        201,
        { target_type: 'invitation', target_name: 'act-invitee@example.com' },
      );
      expect(JSON.stringify(invited)).to.not.include(invitation.token);
      await none(() => t.owner.post('/api/v1/invitations', { email: 'act-invitee@example.com' }), 409);
      await one('invitation.revoke', () => t.owner.delete(`/api/v1/invitations/${invitation.id}`), 204, { target_id: invitation.id });
      await none(() => t.owner.delete(`/api/v1/invitations/${invitation.id}`), 409);
      await one(
        'settings.gateway.update',
        () => t.owner.put('/api/v1/users/me/gateway-settings', { mode: 'direct', bundle_ids: [bundleId] }),
        200,
        {
          target_type: 'gateway_settings',
          target_id: owner.id,
        },
      );
    });

    it('auth settings, OAuth providers, general settings and AI providers (no secret in any entry)', async () => {
      await one('settings.auth.update', () => t.owner.patch('/api/v1/settings/auth', { allowed_domains: ['example.com'] }), 200, {
        target_type: 'settings',
        target_id: 'auth',
      });
      const provider = { provider_type: 'github', display_name: 'GitHub', client_id: 'gh', client_secret: 'sec-canary-oauth-0123456789' };
      await one('oauth_provider.create', () => t.owner.post('/api/v1/settings/auth/providers', provider), 201, { target_id: 'github' });
      await none(() => t.owner.post('/api/v1/settings/auth/providers', provider), 409);
      const patched = await one(
        'oauth_provider.update',
        () => t.owner.patch('/api/v1/settings/auth/providers/github', { client_secret: 'sec-canary-oauth-9876543210' }),
        200,
      );
      expect(patched.details).to.deep.equal({ fields: ['client_secret'] });
      await one('oauth_provider.delete', () => t.owner.delete('/api/v1/settings/auth/providers/github'), 204, { target_id: 'github' });
      await none(() => t.owner.delete('/api/v1/settings/auth/providers/github'), 404);

      await one(
        'settings.general.update',
        () => t.owner.put('/api/v1/settings/general', { registry_token: 'tok-canary-reg-0123456789' }),
        200,
      );
      const ai = {
        provider_type: 'llm',
        provider: 'openai_compatible',
        model: 'm1',
        endpoint: 'http://127.0.0.1:9/v1',
        api_key: 'sk-canary-ai-0123456789abcdef',
      };
      let first = '';
      await one(
        'ai_provider.create',
        async () => {
          const res = await t.owner.post('/api/v1/settings/providers', ai);
          first = res.body.id;
          return res;
        },
        201,
        { target_type: 'ai_provider' },
      );
      let second = '';
      await one(
        'ai_provider.create',
        async () => {
          const res = await t.owner.post('/api/v1/settings/providers', { ...ai, model: 'm2' });
          second = res.body.id;
          return res;
        },
        201,
      );
      await one(
        'ai_provider.update',
        () => t.owner.patch(`/api/v1/settings/providers/${first}`, { api_key: 'sk-canary-ai-9876543210fedcba' }),
        200,
        {
          target_id: first,
        },
      );
      await one('ai_provider.activate', () => t.owner.post(`/api/v1/settings/providers/${second}/activate`), 200, { target_id: second });
      await one('ai_provider.delete', () => t.owner.delete(`/api/v1/settings/providers/${first}`), 204, { target_id: first });
      await none(() => t.owner.delete(`/api/v1/settings/providers/${first}`), 404);
      await one('settings.general.reset', () => t.owner.post('/api/v1/settings/general/reset'), 200, { target_id: 'general' });
      expect(JSON.stringify(await entries())).to.not.match(/canary/);
    });

    it('servers and bundles: delete', async () => {
      await one('bundle.delete', () => t.owner.delete(`/api/v1/bundles/${bundleId}`), 204, { target_id: bundleId });
      await none(() => t.owner.delete(`/api/v1/bundles/${bundleId}`), 404);
      await one('server.delete', () => t.owner.delete(`/api/v1/servers/${serverId}`), 204, { target_name: 'act-fixture' });
      await none(() => t.owner.delete(`/api/v1/servers/${serverId}`), 404);
    });

    it('the bootstrap of the first owner was recorded as a system action', async () => {
      const rows = (await entries()).filter((e) => e.action === 'user.bootstrap');
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ actor_id: null, actor_name: null, target_type: 'user', target_name: 'Owner' });
    });

    it('the dashboard feed shows the entries as the contract describes them (admin filter)', async () => {
      const res = await t.owner.get('/api/v1/dashboard/activity?activity_filter=admin');
      expect(res.status).to.equal(200);
      const actions = res.body.items.map((i: { action: string }) => i.action);
      expect(actions).to.include.members(['server.delete', 'bundle.delete', 'settings.general.reset']);
      const deleted = res.body.items.find((i: { action: string }) => i.action === 'server.delete');
      expect(deleted).to.include({ kind: 'admin', actor: 'Owner', target: 'act-fixture', status: 'success', latency_ms: null });
      expect(deleted.details).to.include({ target_type: 'server', target_id: serverId });
      expect(res.text).to.not.match(/canary/);
    });
  });
});
