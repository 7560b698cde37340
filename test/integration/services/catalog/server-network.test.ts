import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../../helpers/contract.js';
import { createUser } from '../../../helpers/identity.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { EVERYTHING_BIN, fixtureStdio, register, waitConnected } from '../../../helpers/upstreams.js';

/** A plain-JavaScript stdio server that runs in the jail: its package folder is all it reads. */
function sandboxableStdio(): { command: string; args: string[]; cwd: string } {
  return {
    command: process.execPath,
    args: [fs.realpathSync(EVERYTHING_BIN), 'stdio'],
    cwd: fs.realpathSync(path.join(ROOT, 'node_modules')),
  };
}

describe('Sandboxed stdio servers and their approved network (REST)', function () {
  this.timeout(90_000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
  });
  after(() => t?.stop());

  const activity = async (serverId: string) =>
    (await t.server.services.db.knex('activity_log').select('action', 'details').where({ target_id: serverId }).orderBy('occurred_at')) as {
      action: string;
      details: Record<string, unknown>;
    }[];

  it('registers an admin’s stdio server unsandboxed by default, and runs it sandboxed when asked', async () => {
    const plain = await register(t.owner, {
      name: `plain-${randomUUID().slice(0, 8)}`,
      transport: 'stdio',
      ...fixtureStdio(),
      enabled: false,
    });
    expect(plain.sandboxed).to.equal(false);
    expect(plain.network).to.deep.equal({ approved_hosts: [], requested_hosts: null });

    const jailed = await register(t.owner, {
      name: `jailed-${randomUUID().slice(0, 8)}`,
      transport: 'stdio',
      ...sandboxableStdio(),
      sandboxed: true,
    });
    expect(jailed.sandboxed).to.equal(true);
    await waitConnected(t.owner, jailed.id);
    const tools = await t.owner.get(`/api/v1/servers/${jailed.id}/tools?page_size=100`);
    expect(tools.body.total).to.be.greaterThan(0);
  });

  it('refuses sandboxed for an HTTP server (422)', async () => {
    const res = await t.owner.post('/api/v1/servers', {
      name: `http-${randomUUID().slice(0, 8)}`,
      transport: 'streamable_http',
      url: 'http://127.0.0.1:9/mcp',
      sandboxed: true,
    });
    expect(res.status).to.equal(422);
  });

  describe('PUT /api/v1/servers/{server_id}/network', () => {
    it('approves a host list, answers the pending request, and records both in the activity log', async () => {
      const server = await register(t.owner, {
        name: `net-${randomUUID().slice(0, 8)}`,
        transport: 'stdio',
        ...sandboxableStdio(),
        sandboxed: true,
        enabled: false,
      });
      await t.server.services.servers.requestNetwork(server.id, ['api.example.com', 'db.example.com:5432'], 'generation job test');
      const pending = await t.owner.get(`/api/v1/servers/${server.id}`);
      expect(pending.body.network).to.deep.equal({ approved_hosts: [], requested_hosts: ['api.example.com', 'db.example.com:5432'] });

      const res = await t.owner.put(`/api/v1/servers/${server.id}/network`, { approved_hosts: ['API.example.com', 'db.example.com:5432'] });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.network).to.deep.equal({ approved_hosts: ['api.example.com', 'db.example.com:5432'], requested_hosts: null });
      const entries = await activity(server.id);
      expect(entries.map((e) => e.action)).to.include.members(['server.network_request', 'server.network_approve']);
      const approval = entries.find((e) => e.action === 'server.network_approve')!;
      expect(approval.details).to.deep.include({ approved_hosts: ['api.example.com', 'db.example.com:5432'] });
    });

    it('answers 422 at the index of an entry that is not a host, and 409 for a server that is not sandboxed', async () => {
      const jailed = await register(t.owner, {
        name: `bad-${randomUUID().slice(0, 8)}`,
        transport: 'stdio',
        ...sandboxableStdio(),
        sandboxed: true,
        enabled: false,
      });
      const bad = await t.owner.put(`/api/v1/servers/${jailed.id}/network`, { approved_hosts: ['ok.example.com', 'not a host'] });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['body', 'approved_hosts', 1]);

      const plain = await register(t.owner, {
        name: `plain-${randomUUID().slice(0, 8)}`,
        transport: 'stdio',
        ...fixtureStdio(),
        enabled: false,
      });
      const refused = await t.owner.put(`/api/v1/servers/${plain.id}/network`, { approved_hosts: ['api.example.com'] });
      expect(refused.status).to.equal(409);
      expect(refused.body.code).to.equal('server_not_sandboxed');
    });

    it('is for admins: a member gets 403 and sees no network list', async () => {
      const server = await register(t.owner, {
        name: `member-${randomUUID().slice(0, 8)}`,
        transport: 'stdio',
        ...sandboxableStdio(),
        sandboxed: true,
        enabled: false,
      });
      await t.owner.put(`/api/v1/servers/${server.id}/network`, { approved_hosts: ['api.example.com'] });
      const member = (await createUser(t, 'member')).client;
      const res = await member.put(`/api/v1/servers/${server.id}/network`, { approved_hosts: [] });
      expect(res.status).to.equal(403);
      const seen = await member.get(`/api/v1/servers/${server.id}`);
      expect(seen.body.network).to.deep.equal({ approved_hosts: [], requested_hosts: null });
    });
  });
});
